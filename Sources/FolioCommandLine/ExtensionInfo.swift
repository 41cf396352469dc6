import ExtensionHost
import Foundation
import ProviderAPI

/// What Info says about a location served by an extension: how the extension is, and when it is
/// out, the last lines of its log (escaped) and where the rest is.
enum ExtensionInfo {
  static func rows(_ provider: any Provider) -> [(String, String)] {
    guard let ext = provider as? ExtensionProvider else { return [] }
    var rows = [("Extension", TerminalText.escapeMessage(ext.stateDescription))]
    if ext.isOut {
      let tail = ext.lastLogLines.suffix(5)
      if !tail.isEmpty { rows.append(("Its log ends", tail.joined(separator: "\n  "))) }
      rows.append(("Log", TerminalText.escape(ext.logFile.path)))
    }
    return rows
  }
}
