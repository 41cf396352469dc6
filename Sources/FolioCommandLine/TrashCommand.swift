import ArgumentParser
import Foundation
import ProviderAPI
import ProviderCore

struct TrashCommand: AsyncParsableCommand {
  enum Verb: String, ExpressibleByArgument, CaseIterable { case list, restore, empty }

  static let configuration = CommandConfiguration(
    commandName: "trash",
    abstract: "List Recently Deleted, restore items to where they were, or empty it.",
    discussion: """
      folio trash                      list what was deleted, most recent first
      folio trash restore PATH...      put items back (PATH is where they were, or a trashed name)
      folio trash restore --newest P   when several deleted items were at P, the last one deleted
      A restore names what it put back; when several deleted items match, it lists them and \
      restores nothing: give the one to restore as listed (its place in the trash, or its id).
      folio trash restore --keep-both P   when P's name is taken now, restore it as "name 2"
      folio trash restore --replace P     when P's name is taken now, move that item to Recently
                                          Deleted first (without either, a taken name is an error)
      folio trash empty [--yes]        delete everything in it forever (asks on a terminal)
      A location's Recently Deleted: --location NAME, or NAME:/path for restore.
      """)

  @Argument(help: "list, restore or empty.") var verb: Verb = .list
  @Argument(help: "For restore: the original paths (or names) of the items.") var items: [String] = []
  @Option(help: "The location whose Recently Deleted to use (default: this computer).") var location: String?
  @Flag(help: "Don't ask before emptying.") var yes = false
  @Flag(help: "For restore: when several deleted items match, take the one deleted last.") var newest = false
  @Flag(help: "Print JSON.") var json = false
  @Flag(help: "For restore: when the name is taken where it was, restore as \"name 2\" (the first free number).")
  var keepBoth = false
  @Flag(help: "For restore: when the name is taken where it was, move the item holding it to Recently Deleted first.")
  var replace = false

  func validate() throws {
    if verb == .restore && items.isEmpty { throw ValidationError("restore needs at least one item") }
    if verb != .restore && !items.isEmpty { throw ValidationError("'\(verb.rawValue)' takes no items") }
    if verb != .restore && newest { throw ValidationError("--newest goes with restore") }
    if verb != .restore && (keepBoth || replace) { throw ValidationError("--keep-both and --replace go with restore") }
    if keepBoth && replace { throw ValidationError("choose --keep-both or --replace, not both") }
  }

  func run() async throws {
    // Set when a restore stopped at an argument that names several deleted items (already said).
    var ambiguous = false
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let domain = try self.domain(context)
      switch verb {
      case .list:
        let trashed = try await context.items.trashedItems(in: domain)
        if json {
          Console.out(ItemJSON.encode(trashed.map { ItemJSON($0, location: context.locationName(domain)) }))
        } else {
          for item in trashed {
            Console.out(
              HumanFormat.date(item.trashedDate) + "  " + HumanFormat.pad(HumanFormat.size(item.documentSize), 8, right: true)
                + "  " + (item.originalPath?.displayString ?? item.filename.displayString) + (item.isFolder ? "/" : ""))
          }
        }
      case .restore:
        let trashed = try await context.items.trashedItems(in: domain)
        var chosen: [Item] = []
        for argument in items {
          switch try match(argument, in: trashed, exclude: chosen) {
          case .one(let item): chosen.append(item)
          case .several(let hits, let what):
            Console.err(
              "\(hits.count) deleted items \(what); nothing was restored: name the one to restore as listed below"
                + (newest ? " (the last ones were deleted in the same second)" : ", or add --newest"))
            for item in hits {
              FileHandle.standardError.write(
                Data(
                  ("  " + HumanFormat.date(item.trashedDate) + "  "
                    + HumanFormat.pad(HumanFormat.size(item.documentSize), 8, right: true) + "  "
                    + Self.choiceKey(item, among: trashed) + "\n").utf8))
            }
            ambiguous = true
            return
          }
        }
        var tally = FailureTally(total: chosen.count)
        for item in chosen {
          do throws(ProviderError) {
            let restored = try await context.items.restore(
              item, in: domain, ifTaken: keepBoth ? .keepBoth : replace ? .replace : .refuse)
            Console.out("restored " + restored.path.displayString + (restored.isFolder ? "/" : ""))
          } catch { tally.report(error) }
        }
        try tally.finish("some items were not restored")
      case .empty:
        let count = try await context.items.trashedItems(in: domain).count
        if count == 0 { return }
        if !yes {
          guard Console.stdinIsTerminal else {
            throw ProviderError(.invalidArgument, "emptying deletes \(count) item(s) forever: add --yes to confirm")
          }
          guard Console.confirm("Delete \(count) item(s) forever?") else { return }
        }
        _ = try await context.items.emptyTrash(in: domain)
      }
    }
    if ambiguous { throw ExitCode(1) }
  }

  /// The location: `--location`, else the one `restore`'s first argument names, else this computer.
  private func domain(_ context: FolioContext) throws(ProviderError) -> Domain {
    if let location { return try context.registry.require(try DomainIdentifier(location)) }
    guard verb == .restore, let first = items.first else { return context.registry.local }
    // Only the NAME: prefix matters here (ASCII), so the raw bytes are not looked up (match does).
    let address = try ItemAddress.parse(Array(first.utf8), currentDirectory: ItemAddress.currentDirectory)
    return try context.domain(for: address)
  }

  /// What a restore argument names.
  private enum Match {
    case one(Item)
    /// Several deleted items, most recently deleted first, and how they match ("were at /a/b").
    case several([Item], String)
  }

  /// The trashed item an argument names: by its place in the trash, by original path, or by a
  /// name. Several deleted items of one path (or name) are not chosen among silently — restoring
  /// one would give back a version the person did not pick — unless `--newest` says which.
  private func match(_ argument: String, in trashed: [Item], exclude: [Item]) throws(ProviderError) -> Match {
    let bytes = RawArguments.bytes(of: argument)
    let candidates = trashed.filter { t in !exclude.contains { $0.identifier == t.identifier } }
    if let byKey = candidates.first(where: { Self.choiceKey($0, among: trashed) == argument }) { return .one(byKey) }
    let address = try ItemAddress.parse(bytes, currentDirectory: ItemAddress.currentDirectory)
    var hits = candidates.filter { $0.originalPath == address.path }
    var how = "were at \(address.path.displayString)"
    if hits.isEmpty && !bytes.contains(0x2F) {
      hits = candidates.filter { $0.filename.bytes == bytes }
      how = "are named '\(TerminalText.escape(bytes: bytes))'"
    }
    guard let first = hits.first else {
      throw ProviderError(.noSuchItem, "nothing deleted from \(address.path.displayString) is in Recently Deleted")
    }
    // `trashed` is ordered most recently deleted first; deletion times are to the second, so
    // --newest picks only a last one that is alone in its second.
    if hits.count == 1 || (newest && hits[1].trashedDate != first.trashedDate) { return .one(first) }
    return .several(hits, how)
  }

  /// What names one deleted item among others of the same path: its place in the trash
  /// (`~/.local/share/Trash/files/notes.txt_2`), where that differs from its original path and is
  /// its own; else its identifier (a server's trash may keep the original path).
  private static func choiceKey(_ item: Item, among trashed: [Item]) -> String {
    if item.path != item.originalPath, trashed.count(where: { $0.path == item.path }) == 1,
      let text = item.path.utf8String, TerminalText.escape(text) == text
    {
      return text
    }
    return TerminalText.escape(item.identifier.rawValue)
  }
}

struct ActionsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "actions", abstract: "List the custom actions whose activation rules match the items.")

  @Argument(help: "The selection: paths or NAME:/path.") var items: [String]
  @Flag(help: "Print JSON.") var json = false

  struct ActionJSON: Encodable {
    var id: String
    var name: String
    var rule: String
    var source: String
  }

  func run() async throws {
    // Set when a restore stopped at an argument that names several deleted items (already said).
    var ambiguous = false
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let selection = try await resolveAll(items, context: context)
      let domain = selection[0].0
      let actions = context.actions.actions(for: selection.map(\.1), in: domain)
      if json {
        Console.out(
          ItemJSON.encode(
            actions.map {
              ActionJSON(
                id: $0.identifier.rawValue, name: $0.name, rule: $0.rule.source,
                source: { if case .provider(let d) = $0.source { return d.rawValue } else { return "config" } }($0))
            }))
      } else {
        for a in actions { Console.out(TerminalText.escape(a.name) + "  (" + TerminalText.escape(a.identifier.rawValue) + ")") }
      }
    }
  }
}

struct ActionCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "action", abstract: "Run a custom action (by name or id) on items its rule matches.")

  @Argument(help: "The action's name or id.") var name: String
  @Argument(help: "The selection: paths or NAME:/path.") var items: [String]
  @Flag(help: "Don't ask, even when the action asks for confirmation.") var yes = false

  func run() async throws {
    // Set when a restore stopped at an argument that names several deleted items (already said).
    var ambiguous = false
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let selection = try await resolveAll(items, context: context)
      let domain = selection[0].0
      guard let action = context.actions.action(named: name, in: domain) else {
        let known = context.actions.declaredActions(for: domain).map { TerminalText.escape($0.name) }
        throw ProviderError(
          .noSuchItem,
          "no action named '\(TerminalText.escape(name))'" + (known.isEmpty ? " (none is configured)" : " (known: \(known.joined(separator: ", "))))"))
      }
      // A user action's program gets local paths; a server location's paths are not local files
      // (`/notes.txt` on a server is not this machine's /notes.txt) until they are downloaded.
      if case .user = action.source, domain.isSynced {
        throw ProviderError(
          .featureUnsupported,
          "'\(TerminalText.escape(action.name))' runs a program on local files, and '\(domain.identifier)' is a server location")
      }
      if action.needsConfirmation && !yes {
        guard Console.confirm("Run '\(TerminalText.escape(action.name))' on \(selection.count) item(s)?") else {
          throw ProviderError(.cancelled, "not confirmed (add --yes to run it without asking)")
        }
      }
      if let outcome = try await context.actions.run(action, on: selection.map(\.1), in: domain), !outcome.succeeded {
        throw ProviderError(.ioError, "the action '\(TerminalText.escape(action.name))' failed (exit status \(outcome.exitStatus.map(String.init) ?? "signal"))")
      }
    }
  }
}
