import ProviderAPI

/// The file a bulk rename hands to `$EDITOR`: one name a line, each line ending in a newline.
///
/// A name is written as the browser shows it. Most names are shown as they are and their line is
/// read back byte for byte (a backslash is a backslash). A name the browser has to show escaped
/// — bytes that are not UTF-8, control or invisible characters (`TerminalText`) — is written in
/// that escaped form, and its line is read back through the same escapes (`\xNN`, `\t`,
/// `\u{200B}`, `\\`), so it round-trips exactly and can be repaired in the editor (`caf\xE9` →
/// `café`); this is how the Rename prompt treats such names too. Only a newline cannot be
/// written: a line would end inside the name, so such a batch is refused before the editor runs.
public enum BulkRenameText {
  /// Whether a name is written escaped.
  public static func isEscaped(_ name: ItemName) -> Bool { name.utf8String != name.displayString }

  /// The file's bytes for these names.
  ///
  /// - Throws: `newlineInName` for the first name holding a newline.
  public static func text(for names: [ItemName]) throws(BulkRenameRefusal) -> [UInt8] {
    var out: [UInt8] = []
    for n in names {
      if n.bytes.contains(0x0A) { throw BulkRenameRefusal(.newlineInName(n)) }
      out += isEscaped(n) ? Array(n.displayString.utf8) : n.bytes
      out.append(0x0A)
    }
    return out
  }

  /// The lines of a file: split at newlines, the newline after the last line optional.
  static func lines(of text: [UInt8]) -> [ArraySlice<UInt8>] {
    guard !text.isEmpty else { return [] }
    var lines = text.split(separator: 0x0A, omittingEmptySubsequences: false)
    if text.last == 0x0A { lines.removeLast() }
    return lines
  }

  /// The name line `line` (from 1) stands for, read as the name it was written for was written.
  ///
  /// - Throws: an empty line, a control character in the text, text that is not UTF-8, a name that
  ///   is not valid ('/', NUL, '.', '..', over 255 bytes) or that would hold a newline.
  static func name(from text: ArraySlice<UInt8>, line: Int, writtenFor original: ItemName) throws(BulkRenameRefusal) -> ItemName {
    if text.isEmpty { throw BulkRenameRefusal(.emptyLine(line: line)) }
    if let c = text.first(where: { $0 < 0x20 || $0 == 0x7F }) { throw BulkRenameRefusal(.controlCharacter(line: line, byte: c)) }
    guard let string = String(validating: text, as: UTF8.self) else { throw BulkRenameRefusal(.notText(line: line)) }
    let bytes = isEscaped(original) ? TerminalText.unescape(string) : Array(text)
    if bytes.contains(0x0A) {
      throw BulkRenameRefusal(.invalidName(line: line, why: "a name cannot hold a newline in this mode"))
    }
    do throws(ProviderError) {
      return try ItemName.validated(bytes)
    } catch {
      throw BulkRenameRefusal(.invalidName(line: line, why: error.message))
    }
  }
}
