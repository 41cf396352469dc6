import Foundation
import ProviderAPI
import Testing

@testable import ProviderCore

/// Random histories of one path-keyed folder — files added, deleted, edited and renamed by
/// another client, listings complete, cut short, failed or lying (empty) — against a model of
/// the index (test-plan §1.5: I4, I9; remote-providers.md §1.3). Every decision comes from one
/// seed; a failure names it.
@Suite struct ListingDiffPropertyTests {
  /// A file on the server, with the identity the model gives it across renames.
  struct ServerFile {
    var uid: Int
    var item: Item
  }

  struct Model {
    var rng: SeededGenerator
    var server: [ServerFile] = []
    /// The index: known children and their tags.
    var index: [ItemIdentifier: (child: KnownChild, tag: String?)] = [:]
    var nextUID = 0
    var nextSize: Int64 = 1
    /// Logical files whose tag may legitimately be lost (edited or opened under the new name
    /// while a rename was not yet seen twice).
    var spoiled: Set<Int> = []
    var pendingRename: Set<Int> = []

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    mutating func fresh(_ name: String, uid: Int? = nil, size: Int64? = nil, modified: Double? = nil) -> ServerFile {
      let u = uid ?? { nextUID += 1; return nextUID }()
      let s = size ?? { nextSize += 1; return nextSize }()
      return ServerFile(
        uid: u,
        item: ListingDiffTests.file(name, size: s, modified: modified ?? Double(Int.random(in: 1...1_000_000, using: &rng))))
    }

    func uid(of id: ItemIdentifier) -> Int? { server.first { $0.item.identifier == id }?.uid }
    var names: Set<String> { Set(server.map { $0.item.filename.lossyString }) }

    mutating func freeName() -> String {
      var n: String
      repeat { n = "f\(Int.random(in: 0..<60, using: &rng))" } while names.contains(n)
      return n
    }

    /// Another client changes the folder.
    mutating func mutate() {
      switch Int.random(in: 0..<10, using: &rng) {
      case 0...2:
        let name = freeName()
        spoilReuse(of: name)
        server.append(fresh(name))
      case 3...4 where !server.isEmpty:
        server.remove(at: Int.random(in: 0..<server.count, using: &rng))
      case 5...6 where !server.isEmpty:
        let i = Int.random(in: 0..<server.count, using: &rng)
        let f = server[i]
        if pendingRename.contains(f.uid) { spoiled.insert(f.uid) }
        server[i] = fresh(f.item.filename.lossyString, uid: f.uid)
      case 7...8 where !server.isEmpty:
        let i = Int.random(in: 0..<server.count, using: &rng)
        let f = server[i]
        let name = freeName()
        if spoilReuse(of: name) { spoiled.insert(f.uid) }
        let renamed = fresh(
          name, uid: f.uid, size: f.item.documentSize, modified: f.item.contentModificationDate!.timeIntervalSince1970)
        server[i] = renamed
        if index.values.contains(where: { uid(ofKnown: $0.child.identifier) == f.uid }) || pendingRename.contains(f.uid) {
          pendingRename.insert(f.uid)
        }
      default:
        break
      }
    }

    /// A path that the index still knows (under a file gone or renamed away) taken by another
    /// file: on path-keyed storage that is the same identifier, so the known file's tag may go
    /// with it (inherent to paths as identifiers).
    @discardableResult
    mutating func spoilReuse(of name: String) -> Bool {
      let id = ListingDiffTests.file(name).identifier
      guard index[id] != nil, let u = uidOfKnown[id] else { return false }
      spoiled.insert(u)
      return true
    }

    /// The logical file a known identifier was, before any rename (by the uid recorded on indexing).
    var uidOfKnown: [ItemIdentifier: Int] = [:]
    func uid(ofKnown id: ItemIdentifier) -> Int? { uidOfKnown[id] }

    mutating func indexItem(_ item: Item, uid: Int, tag: String?) {
      index[item.identifier] = (KnownChild(item, hash: .none), tag)
      uidOfKnown[item.identifier] = uid
    }
  }

  enum Answer: CaseIterable { case complete, cutShort, failed, lyingEmpty }

  @Test func randomHistoriesNeverDeleteWithoutTwoCompleteListingsNorLoseATagToARename() throws {
    let seeds: [UInt64] = (1...400).map { UInt64($0) &* 0x9E37_79B9 }
    for seed in seeds {
      var m = Model(seed: seed)
      for _ in 0..<8 { m.server.append(m.fresh(m.freeName())) }
      for f in m.server { m.indexItem(f.item, uid: f.uid, tag: "tag-\(f.uid)") }
      var state = FolderListingState()
      // The ids listed by the previous listing when it was complete, nil after any other.
      var previousComplete: Set<ItemIdentifier>?
      // Items the diff would not guess about (alike new files): held, their tags kept in place.
      var held = Set<ItemIdentifier>()
      let steps = 40
      for step in 0..<(steps + 3) {
        let quiescing = step >= steps
        if !quiescing { m.mutate() }
        let answer: Answer = quiescing ? .complete : Answer.allCases.randomElement(using: &m.rng)!
        let sorted = m.server.map(\.item).sorted { $0.filename.lossyString < $1.filename.lossyString }
        let listed: [Item]
        let completeness: ListingCompleteness
        switch answer {
        case .complete: (listed, completeness) = (sorted, .complete)
        case .cutShort: (listed, completeness) = (Array(sorted.prefix(Int.random(in: 0...sorted.count, using: &m.rng))), .cutShort)
        case .failed: (listed, completeness) = ([], .failed)
        case .lyingEmpty: (listed, completeness) = ([], .complete)
        }
        let known = m.index.values.map(\.child)
        let changes = ListingDiff.diff(
          folder: ListingDiffTests.folder, known: known, listed: listed, completeness: completeness, state: &state,
          detectMoves: true, hash: .none)
        let context = "seed \(seed), step \(step), answer \(answer)"
        let onServer = Set(m.server.map(\.item.identifier))
        let listedIDs = Set(listed.map(\.identifier))

        if completeness != .complete || (listed.isEmpty && !known.isEmpty) {
          #expect(changes.deletedIdentifiers.isEmpty && changes.moves.isEmpty, "\(context): deleted on an incomplete listing")
        }
        for id in changes.deletedIdentifiers + changes.moves.map(\.old.identifier) {
          #expect(!listedIDs.contains(id) && previousComplete.map { !$0.contains(id) } == true, "\(context): \(id) deleted without two complete listings")
          #expect(!onServer.contains(id), "\(context): \(id) deleted but on the server")
        }
        #expect(!MassDeletionGuard.standard.holds(deletions: changes.deletedIdentifiers.count, of: known.count), "\(context): guard")
        for move in changes.moves {
          #expect(move.old.size == move.new.documentSize && move.old.modified == move.new.contentModificationDate, "\(context): merged different content")
        }
        previousComplete = changes.verdict == .complete ? listedIDs : nil

        // Apply as WorkingSetSync does: moves carry the tag, known items refresh, deletions go;
        // a new item is indexed now and then (a person opened it).
        for move in changes.moves {
          let tag = m.index.removeValue(forKey: move.old.identifier)?.tag
          let uid = m.uid(ofKnown: move.old.identifier) ?? -1
          m.indexItem(move.new, uid: uid, tag: tag)
          if m.uid(of: move.new.identifier) == uid { m.pendingRename.remove(uid) }
        }
        for item in changes.updatedItems {
          if let entry = m.index[item.identifier] {
            m.index[item.identifier] = (KnownChild(item, hash: .none), entry.tag)
          } else if Int.random(in: 0..<10, using: &m.rng) == 0, let uid = m.uid(of: item.identifier) {
            if m.pendingRename.contains(uid) { m.spoiled.insert(uid) }
            m.indexItem(item, uid: uid, tag: nil)
          }
        }
        for id in changes.deletedIdentifiers { m.index[id] = nil }
        held.formUnion(changes.heldDeletions)
      }
      // Quiet now: every tagged file still on the server carries its tag under its current name,
      // unless it was edited or opened under the new name before the rename was seen.
      for f in m.server where !m.spoiled.contains(f.uid) {
        let tagged = m.index.values.contains { $0.tag == "tag-\(f.uid)" }
        guard tagged || m.index.keys.contains(where: { m.uid(ofKnown: $0) == f.uid }) else { continue }
        if tagged {
          // Followed to its new name, or held under its old one (never guessed, never dropped).
          let heldWithTag = m.index.contains { held.contains($0.key) && $0.value.tag == "tag-\(f.uid)" }
          #expect(
            m.index[f.item.identifier]?.tag == "tag-\(f.uid)" || heldWithTag, "seed \(seed): the tag of file \(f.uid) was lost")
        }
      }
    }
  }
}
