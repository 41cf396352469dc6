import ArgumentParser
import Foundation
import ProviderAPI
import ProviderCore
import WorkingSetIndex

/// `folio conflicts`: the conflicts this computer's index holds, both versions named.
///
/// A conflict is two versions kept where one was expected: edits here and there from the same
/// base (the server kept this computer's as a copy beside the original), or edits here of an item
/// deleted (or trashed) there (they came back as a new item). `folio resolve` settles one, as the
/// browser's "Resolve Conflict…" does.
struct ConflictsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "conflicts",
    abstract: "List the conflicts not resolved yet (from the index: works offline).",
    discussion: """
      Each line: when it was found, what happened, your version, and the other one. \
      Settle one with `folio resolve ITEM --keep mine|theirs|both`.
      """)

  @Flag(help: "Print JSON.") var json = false

  struct ConflictJSON: Encodable {
    var location: String
    var reason: String
    var detected: String
    var mine: String
    var minePath: String?
    var theirs: String
    var theirsPath: String?
  }

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make(readOnly: true)
      let conflicts = try context.index.conflicts()
      let rows = conflicts.map { c in
        ConflictJSON(
          location: c.domain.rawValue, reason: c.reason.rawValue, detected: ISO8601DateFormatter().string(from: c.detected),
          mine: c.copy.rawValue, minePath: Self.path(c.copy, c.domain, context),
          theirs: c.original.rawValue, theirsPath: Self.path(c.original, c.domain, context))
      }
      if json {
        Console.out(ItemJSON.encode(rows))
        return
      }
      for (c, row) in zip(conflicts, rows) {
        let mine = "\(row.location):\(row.minePath ?? TerminalText.escape(row.mine))"
        switch c.reason {
        case .staleBase:
          let theirs = "\(row.location):\(row.theirsPath ?? TerminalText.escape(row.theirs))"
          Console.out("\(HumanFormat.date(c.detected))  changed here and elsewhere  yours: \(mine)  theirs: \(theirs)")
        case .remoteDeletion:
          Console.out("\(HumanFormat.date(c.detected))  deleted elsewhere, edited here  yours: \(mine)")
        }
      }
    }
  }

  /// Where the index last saw an item (escaped for the terminal), with "(deleted)" for one in the trash.
  static func path(_ id: ItemIdentifier, _ domain: DomainIdentifier, _ context: FolioContext) -> String? {
    guard let row = try? context.index.item(domain: domain, identifier: id) else { return nil }
    return row.path.displayString + (row.isTrashed || row.isInsideTrash ? " (deleted)" : "")
  }
}

/// `folio resolve ITEM --keep mine|theirs|both`: settles the conflict ITEM is part of (either
/// version names it).
struct ResolveCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "resolve",
    abstract: "Resolve a conflict: keep your version, theirs, or both.",
    discussion: """
      ITEM is either version (see `folio conflicts`). mine: your version becomes the item and the \
      other goes to Recently Deleted. theirs: the other stays and yours goes to Recently Deleted \
      (for an item deleted elsewhere: it stays deleted). both: two items, the conflict forgotten. \
      Nothing is deleted forever — except on a location with no trash (an SSH host), where mine \
      and theirs delete the other version for good and so need --permanently.
      """)

  @Argument(help: "Either version of the conflict: NAME:/path in a remote location.") var item: String
  @Option(help: "mine, theirs or both.") var keep: ConflictChoice
  @Flag(help: "On a location with no trash: delete the version not kept for good.") var permanently = false

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let (domain, it) = try await context.resolve(item)
      let engine = context.makeSyncEngine()
      guard let conflict = try engine.conflict(involving: it, in: domain) else {
        throw ProviderError(.invalidArgument, "\(TerminalText.escape(item)) is not part of a conflict (see folio conflicts)")
      }
      let kept = try await engine.resolve(conflict, keep, permanently: permanently)
      if keep == .keepTheirs && conflict.reason == .remoteDeletion {
        Console.out(
          "kept theirs: it stays deleted; your version "
            + (domain.traits.hasTrash ? "is in Recently Deleted" : "was deleted for good"))
      } else {
        Console.out("kept \(keep.rawValue): \(domain.identifier.rawValue):\(kept.path.displayString)")
      }
    }
  }
}

extension ConflictChoice: ExpressibleByArgument {}
