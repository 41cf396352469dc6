import ArgumentParser
import ProviderAPI
import ProviderCore

struct RenameCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rename", abstract: "Rename an item (never replaces an existing one).")

  @Argument(help: "The item: a path or NAME:/path.") var item: String
  @Argument(help: "The new name (a name, not a path).") var newName: String

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let (domain, it) = try await context.resolve(item)
      let name = try ItemName.validated(RawArguments.bytes(of: newName))
      let progress = RelocationProgress(it.filename.displayString)
      defer { progress.finish() }
      _ = try await context.items.rename(it, to: name, in: domain, progress: progress.report)
    }
  }
}

/// Resolves every source first, so that a typo in one argument changes nothing at all.
func resolveAll(_ arguments: [String], context: FolioContext) async throws(ProviderError) -> [(Domain, Item)] {
  var out: [(Domain, Item)] = []
  for a in arguments { out.append(try await context.resolve(a)) }
  return out
}

/// The destination folder of mv and cp, and the checks that must pass before anything moves.
///
/// With `refuseTaken` (mv, which never replaces), a name already present in the folder is refused
/// here, before the first item moves: checked item by item, `mv a b dest` with `dest/b` taken
/// used to move `a` and then fail, leaving the move half done.
func destinationFolder(
  _ argument: String, for sources: [(Domain, Item)], context: FolioContext, verb: String, refuseTaken: Bool = false
) async throws(ProviderError) -> (Domain, Item) {
  // A server that cannot be reached still takes copies from this computer, as `folio put` does:
  // the folder as this computer last saw it, the uploads journaled until it is back.
  let (domain, folder) = try await context.resolve(argument, offline: sources.contains { $0.0.hasDirectContent })
  guard folder.isFolder else { throw ProviderError(.invalidArgument, "\(folder.path.displayString) is not a folder") }
  var names = Set<ItemName>()
  for (_, item) in sources {
    guard names.insert(item.filename).inserted else {
      throw ProviderError(.filenameCollision, "two items named '\(item.filename.displayString)' would land in \(folder.path.displayString)")
    }
    // A lookup that fails for another reason (permission) is left to the move itself to report.
    if refuseTaken, (try? await context.items.item(at: folder.path.appending(item.filename), in: domain)) != nil {
      throw ProviderError(
        .filenameCollision, "an item named '\(item.filename.displayString)' already exists in \(folder.path.displayString)")
    }
  }
  return (domain, folder)
}

struct MoveCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "mv",
    abstract: "Move items into a folder (never replaces; across filesystems or locations it copies, then removes).",
    discussion: """
      Between locations (this computer and an SSH host, or two servers) the items are copied as \
      `folio cp` copies them, and each source is removed only once all of its copy is safe: \
      written here, or uploaded and confirmed by the server. Copies still queued (the server \
      cannot be reached) keep their sources, and the command says so and exits 75.
      """)

  @Argument(help: "The items, then the destination folder.") var arguments: [String]

  func validate() throws {
    if arguments.count < 2 { throw ValidationError("give at least one item and a destination folder") }
  }

  func run() async throws {
    var leftQueued = false
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let sources = try await resolveAll(Array(arguments.dropLast()), context: context)
      let (target, folder) = try await destinationFolder(
        arguments.last!, for: sources, context: context, verb: "move", refuseTaken: true)
      var tally = FailureTally(total: sources.count)
      var across: [(Domain, Item)] = []
      for (domain, item) in sources {
        guard CrossLocationTransfer.isWithin(domain, target) else {
          across.append((domain, item))
          continue
        }
        let progress = RelocationProgress(item.filename.displayString)
        do throws(ProviderError) {
          _ = try await context.items.move(item, to: folder, in: domain, progress: progress.report)
        } catch { tally.report(error) }
        progress.finish()
      }
      if !across.isEmpty {
        _ = try await CrossLocationTransfer(context: context, target: target, folder: folder).run(
          across, removingSources: true, tally: &tally)
      }
      if tally.isOnlyQueued {
        // Nothing lost, nothing to decide: the uploads wait for the server (exit 75, as put).
        tally.say("some items are not moved yet: their uploads stay queued for `folio sync`")
        leftQueued = true
        return
      }
      try tally.finish("some items were not moved")
    }
    if leftQueued { throw ExitCode(Console.queuedExitCode) }
  }
}

struct CopyCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cp",
    abstract: "Copy items into a folder (a name already taken there gets \" copy\", as in Finder).",
    discussion: """
      Between locations a file is downloaded if it must be, then written or uploaded (uploads are \
      journaled first, as `folio put` does, and sent now; a taken name becomes "NAME 2"); a folder \
      is made on the other side with its contents, up to 16 levels and 1000 entries.
      """)

  @Argument(help: "The items, then the destination folder.") var arguments: [String]

  func validate() throws {
    if arguments.count < 2 { throw ValidationError("give at least one item and a destination folder") }
  }

  func run() async throws {
    var leftQueued = false
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let sources = try await resolveAll(Array(arguments.dropLast()), context: context)
      let (target, folder) = try await destinationFolder(arguments.last!, for: sources, context: context, verb: "copy")
      var tally = FailureTally(total: sources.count)
      var across: [(Domain, Item)] = []
      for (domain, item) in sources {
        guard CrossLocationTransfer.isWithin(domain, target) else {
          across.append((domain, item))
          continue
        }
        do throws(ProviderError) { _ = try await context.items.copy(item, to: folder, in: domain) } catch { tally.report(error) }
      }
      if !across.isEmpty {
        _ = try await CrossLocationTransfer(context: context, target: target, folder: folder).run(
          across, removingSources: false, tally: &tally)
      }
      if tally.isOnlyQueued {
        // Nothing lost, nothing to decide: the uploads wait for the server (exit 75, as put).
        tally.say("some items are not copied yet: their uploads stay queued for `folio sync`")
        leftQueued = true
        return
      }
      try tally.finish("some items were not copied")
    }
    if leftQueued { throw ExitCode(Console.queuedExitCode) }
  }
}

struct MakeFolderCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "mkdir", abstract: "Create a folder.")

  @Argument(help: "The new folder: a path or NAME:/path.") var path: String
  @Flag(name: .shortAndLong, help: "Create missing parent folders too, and accept an existing folder.") var parents = false

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let address = try ItemAddress.parse(RawArguments.bytes(of: path), currentDirectory: ItemAddress.currentDirectory)
      let domain = try context.domain(for: address)
      let target = context.path(for: address, in: domain)
      guard let name = target.lastComponent else { throw ProviderError(.filenameCollision, "/ already exists") }
      let parentPath = target.parent
      if parents { try await makeParents(parentPath, domain: domain, context: context) }
      let parent = try await context.items.item(at: parentPath, in: domain)
      do throws(ProviderError) {
        _ = try await context.items.makeFolder(named: name, in: parent, in: domain)
      } catch {
        guard error.code == .filenameCollision && parents else { throw error }
        let existing = try await context.items.item(at: target, in: domain)
        guard existing.isFolder else { throw error }
      }
    }
  }

  private func makeParents(_ path: ItemPath, domain: Domain, context: FolioContext) async throws(ProviderError) {
    if (try? await context.items.item(at: path, in: domain)) != nil { return }
    guard let name = path.lastComponent else { return }
    try await makeParents(path.parent, domain: domain, context: context)
    let parent = try await context.items.item(at: path.parent, in: domain)
    _ = try await context.items.makeFolder(named: name, in: parent, in: domain)
  }
}

struct RemoveCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rm",
    abstract: "Move items to Recently Deleted (the freedesktop Trash, shared with trash-cli and desktops).",
    discussion: "A location without a trash (an SSH host) refuses unless --permanently says the items go for good.")

  @Argument(help: "The items: paths or NAME:/path.") var items: [String]
  @Flag(help: "Delete for good, without a trash (folders with what they hold).") var permanently = false

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let sources = try await resolveAll(items, context: context)
      var tally = FailureTally(total: sources.count)
      for (domain, item) in sources {
        do throws(ProviderError) {
          if permanently {
            try await context.items.deleteForever(item, in: domain)
          } else if !domain.traits.hasTrash {
            throw ProviderError(
              .featureUnsupported,
              "\(TerminalText.escape(domain.displayName)) has no trash: `folio rm --permanently` deletes \(item.filename.displayString) for good")
          } else {
            _ = try await context.items.trash(item, in: domain)
          }
        } catch { tally.report(error) }
      }
      try tally.finish("some items were not deleted")
    }
  }
}
