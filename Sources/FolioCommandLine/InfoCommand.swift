import ProviderCore
import ArgumentParser
import Foundation
import ProviderAPI

struct InfoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "info", abstract: "Show every field of an item.")

  @Argument(help: "The item: a path or NAME:/path.") var item: String
  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make(readOnly: true)
      let (domain, it) = try await context.resolve(item)
      if json {
        Console.out(ItemJSON.encode(ItemJSON(it, location: context.locationName(domain), detailed: true)))
        return
      }
      var rows: [(String, String)] = [
        ("Name", it.filename.displayString),
        ("Kind", it.contentType.kindDescription + " (\(it.contentType.identifier))"),
        ("Location", domain.displayName),
        ("Path", it.path.displayString),
      ]
      if let s = it.documentSize {
        rows.append(("Size", s < 1024 ? "\(s) \(s == 1 ? "byte" : "bytes")" : "\(HumanFormat.size(s)) (\(s) bytes)"))
      }
      if let d = it.creationDate { rows.append(("Created", HumanFormat.date(d))) }
      if let d = it.contentModificationDate { rows.append(("Modified", HumanFormat.date(d))) }
      if let d = it.lastUsedDate { rows.append(("Last opened", HumanFormat.date(d))) }
      rows.append(("Tags", it.tags.isEmpty ? "none" : it.tags.map(TerminalText.escape).joined(separator: ", ")))
      rows.append(("Favorite", it.isFavorite ? "yes" : "no"))
      if let t = it.symlinkTargetPath {
        rows.append(("Points to", t.displayString))
        // On this computer, where it leads (stat follows the link), as the browser's Info says.
        if domain.hasDirectContent {
          var st = stat()
          if it.path.withCString({ stat($0, &st) }) != 0 {
            rows.append(("Link", errno == ELOOP ? "broken: a loop of links" : "broken: its target is missing"))
          } else if (st.st_mode & S_IFMT) == S_IFDIR {
            rows.append(("Link", "to a folder"))
          }
        }
      }
      if let o = it.originalPath { rows.append(("Original place", o.displayString)) }
      if let d = it.trashedDate { rows.append(("Deleted", HumanFormat.date(d))) }
      if let p = it.posixPermissions { rows.append(("Permissions", String(p, radix: 8))) }
      rows.append(("Can", it.capabilities.names.joined(separator: ", ")))
      rows.append(("Version", it.version.displayString))
      // Said wherever the item is shown, not only by `folio domain list` (issue 11 §1).
      if domain.traits.conditionalWrites == .ignored {
        rows.append(("Conflicts", "cannot detect conflicting edits (the server ignores conditional writes)"))
      }
      rows.append(("Identifier", it.identifier.rawValue))
      rows += ExtensionInfo.rows(domain.provider)
      if let e = it.uploadingError ?? it.downloadingError {
        rows.append(("Last error", TerminalText.escapeMessage(e.message)))
        if let r = e.recoverySuggestion { rows.append(("Recovery", r)) }
      }
      for (k, v) in it.userInfo.sorted(by: { $0.key < $1.key }) {
        rows.append(("userInfo." + TerminalText.escape(k), TerminalText.escape(v.description)))
      }
      let width = rows.map(\.0.count).max() ?? 0
      for (k, v) in rows { Console.out(HumanFormat.pad(k + ":", width + 1) + " " + v) }
    }
  }
}
