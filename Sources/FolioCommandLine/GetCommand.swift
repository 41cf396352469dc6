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
      if domain.isLocal {
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
        let target = try Self.target(destination, name: it.filename)
        try await ContentStore.export(source, to: target)
        Console.out(TerminalText.escape(target.path))
      }
    }
  }

  /// DEST itself, or DEST/NAME when DEST is a folder. An existing file is refused.
  static func target(_ destination: String, name: ItemName) throws(ProviderError) -> URL {
    var url = URL(fileURLWithPath: destination)
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
      url = url.appendingPathComponent(String(decoding: name.bytes, as: UTF8.self), isDirectory: false)
    }
    if FileManager.default.fileExists(atPath: url.path) {
      throw ProviderError(.filenameCollision, "\(TerminalText.escape(url.path)) already exists; it was not replaced")
    }
    return url
  }
}
