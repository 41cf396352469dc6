import Foundation
import ProviderAPI
import TestSupport

/// The one server every simulated machine shares: TestSupport's `InMemoryProvider` (real versions,
/// a change log, paging, a trash), seen through `PathKeyedMemoryProvider` when the run's storage
/// has no feed. The machines reach it only through their own ``SimulatedLink``; a remote actor (a
/// person on the web, another client) changes it directly.
public final class SimulatedServer: @unchecked Sendable {
  public static let domain = DomainIdentifier(unchecked: "sim")
  public let kind: StorageKind
  public let memory: InMemoryProvider
  public let ledger: SimulationLedger
  /// A bug planted on purpose, to prove the oracle catches it (`folio-sim --sabotage`).
  public enum Sabotage: String, Sendable, CaseIterable {
    /// The server answers a new file's upload with success, then loses the file.
    case loseFiles = "lose-files"
  }
  public var sabotage: Sabotage?

  public init(kind: StorageKind, ledger: SimulationLedger) {
    self.kind = kind
    self.ledger = ledger
    memory = InMemoryProvider(domain: Self.domain, rootName: "Sim", traits: .inMemory)
  }

  /// The storage as a client sees it, before faults.
  public func backing() -> any Provider {
    kind.changes == .feed ? memory : PathKeyedMemoryProvider(base: memory)
  }

  /// What a client is told the storage can do.
  public var traits: ProviderTraits {
    var t = backing().traits
    t.conditionalWrites = kind.conditionalWrites
    t.hasTrash = kind.hasTrash
    if kind.changes == .feed { t.contentHash = .none }
    return t
  }

  // MARK: - What is on the server

  /// One item as the server holds it, for the oracle.
  public struct Entry: Sendable {
    public var item: Item
    public var content: Data?
    public var trashed: Bool
  }

  /// Everything on the server, live and in the trash, in path order.
  public func entries() async -> [Entry] {
    var out: [Entry] = []
    await walk(.root, trashed: false, into: &out)
    await walk(.trash, trashed: true, into: &out)
    return out.sorted { a, b in
      a.trashed != b.trashed ? !a.trashed : a.item.path.bytes.lexicographicallyPrecedes(b.item.path.bytes)
    }
  }

  private func walk(_ folder: ItemIdentifier, trashed: Bool, into out: inout [Entry]) async {
    var page: Page?
    repeat {
      guard
        let result = try? await memory.enumerate(
          EnumerationRequest(container: folder, includeHidden: true, suggestedPageSize: 1000), page: page,
          progress: { _ in })
      else { return }
      for item in result.items {
        out.append(Entry(item: item, content: item.isFolder ? nil : await memory.content(of: item.identifier), trashed: trashed))
        if item.isFolder { await walk(item.identifier, trashed: trashed, into: &out) }
      }
      page = result.nextPage
    } while page != nil
  }

  /// The contents held in an item and everything below it (what a delete takes away).
  func contents(under identifier: ItemIdentifier) async -> [Data] {
    guard let item = try? await memory.item(for: identifier, pathHint: nil) else { return [] }
    if !item.isFolder { return [await memory.content(of: identifier) ?? Data()] }
    var below: [Entry] = []
    await walk(identifier, trashed: false, into: &below)
    return below.compactMap(\.content)
  }

  /// The server's own identifier of an identifier a client was given.
  func inner(_ identifier: ItemIdentifier) async -> ItemIdentifier? {
    guard kind.changes == .listing, identifier != .root, identifier != .trash else { return identifier }
    guard let path = PathKeyedMemoryProvider(base: memory).path(for: identifier) else { return nil }
    return try? await memory.item(at: path).identifier
  }
}
