import ArgumentParser
import Foundation
import ProviderAPI
import ProviderCore

/// `folio get ITEM [DEST]`: Download. The content lands in the content store (the item is
/// materialized: it opens without the network); with DEST a copy is written there too.
struct GetCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "get",
    abstract: "Download a remote file (and copy it to DEST when given).",
    discussion: """
      The file is kept in the content cache ($XDG_CACHE_HOME/folio/content) until evicted; its \
      local path is printed. Progress goes to stderr when it is a terminal. DEST may be a folder \
      or a new file name; an existing file is never replaced. For an item on this computer \
      there is nothing to download: with DEST it is copied.
      """)

  @Argument(help: "The item: NAME:/path in a remote location.") var item: String
  @Argument(help: "Where to copy it (a folder or a new file).") var destination: String?

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let (domain, it) = try await context.resolve(item, offline: true)
      guard !it.isFolder else { throw ProviderError(.invalidArgument, "\(it.path.displayString) is a folder") }
      let source: URL
      if domain.hasDirectContent {
        guard destination != nil else {
          Console.err("\(it.path.displayString) is on this computer: there is nothing to download")
          return
        }
        source = URL(fileURLWithPath: it.path.lossyString)
      } else {
        let engine = context.makeSyncEngine()
        let progress = ProgressLine(engine.events)
        do throws(ProviderError) {
          source = try await engine.materialize(it, in: domain)
          await progress.finish()
        } catch {
          await progress.finish()
          throw ProviderError(error.code, FolioContext.explain(error), existingItem: error.existingItem)
        }
        try context.items.recordOpen(it, in: domain)
        if destination == nil { Console.out(TerminalText.escape(source.path)) }
      }
      if let destination {
        let target = try Self.target(ItemPath(bytes: RawArguments.bytes(of: destination)), name: it.filename)
        try await Self.export(source, to: target)
        Console.out(target.displayString)
      }
    }
  }

  /// DEST itself, or DEST/NAME when DEST is a folder. An existing file is refused. Bytes end to
  /// end: a name that is not valid UTF-8 arrives as it is (a URL made it U+FFFD).
  static func target(_ destination: ItemPath, name: ItemName) throws(ProviderError) -> ItemPath {
    var target = destination
    var st = stat()
    if destination.withCString({ stat($0, &st) }) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
      target = destination.appending(name)
    }
    if target.withCString({ lstat($0, &st) }) == 0 {
      throw ProviderError(.filenameCollision, "\(target.displayString) already exists; it was not replaced")
    }
    return target
  }

  /// Copies durably under a temporary ASCII name beside the target (`ContentStore.export`), then
  /// gives it the target's exact bytes with a hard link, which never replaces a file that appeared
  /// meanwhile (a rename where links are not to be had, after a last look).
  static func export(_ source: URL, to target: ItemPath) async throws(ProviderError) {
    let folder = target.parent
    let temporary = folder.appending(ItemName(".folio-get-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"))
    try await ContentStore.export(source, to: URL(fileURLWithPath: temporary.lossyString))
    defer { _ = temporary.withCString { unlink($0) } }
    let linked = temporary.withCString { from in target.withCString { to in link(from, to) } }
    if linked == 0 { return }
    let e = errno
    if e == EEXIST { throw ProviderError(.filenameCollision, "\(target.displayString) already exists; it was not replaced") }
    var st = stat()
    guard e == EPERM || e == ENOTSUP || e == EOPNOTSUPP, target.withCString({ lstat($0, &st) }) != 0 else {
      throw ProviderError(.ioError, "cannot write \(target.displayString): \(String(cString: strerror(e)))")
    }
    guard temporary.withCString({ from in target.withCString { to in rename(from, to) } }) == 0 else {
      throw ProviderError(.ioError, "cannot write \(target.displayString): \(String(cString: strerror(errno)))")
    }
  }
}
