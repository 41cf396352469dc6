import FolioConfig
import Foundation
import ProviderAPI

/// Chooses the program that opens an item: the configured opener for its extension or type, else
/// `$VISUAL`/`$EDITOR` for text, `$PAGER` for other readable files... and `xdg-open` for the rest
/// (and for everything when it's there and nothing else fits).
public struct OpenerResolver: Sendable {
  public let rules: [OpenerRule]
  public let environment: [String: String]
  public let isAvailable: @Sendable (String) -> Bool

  public init(
    rules: [OpenerRule], environment: [String: String] = ProcessInfo.processInfo.environment,
    isAvailable: @escaping @Sendable (String) -> Bool = { ProgramRunner.isAvailable($0) }
  ) {
    self.rules = rules
    self.environment = environment
    self.isAvailable = isAvailable
  }

  /// The argv to open `item`, or an error saying what to configure.
  public func argv(for item: Item) throws(ProviderError) -> [[UInt8]] {
    if let rule = rules.first(where: { $0.matches(name: item.filename, contentType: item.contentType) }) {
      return rule.arguments(for: item.path)
    }
    let path = item.path.bytes
    func command(_ variable: String) -> [[UInt8]]? {
      // $EDITOR may hold arguments ("code --wait"): split on spaces, never run through a shell.
      guard let v = environment[variable]?.trimmingCharacters(in: .whitespaces), !v.isEmpty else { return nil }
      let words = v.split(separator: " ").map { Array($0.utf8) }
      guard let program = words.first, isAvailable(String(decoding: program, as: UTF8.self)) else { return nil }
      return words + Self.operand(path)
    }
    if item.isFolder {
      if isAvailable("xdg-open") { return [Array("xdg-open".utf8), path] }
      throw ProviderError(.featureUnsupported, "no opener for folders: install xdg-utils or add an [[opener]] to config.toml")
    }
    if item.contentType.isText || item.contentType == .data {
      if let c = command("VISUAL") ?? command("EDITOR") { return c }
    }
    if item.contentType.isText, let c = command("PAGER") { return c }
    if isAvailable("xdg-open") { return [Array("xdg-open".utf8), path] }
    if let c = command("PAGER") { return c }
    for fallback in ["less", "more"] where isAvailable(fallback) { return [Array(fallback.utf8)] + Self.operand(path) }
    throw ProviderError(
      .featureUnsupported,
      "no program to open \(item.filename.displayString): set $EDITOR or $PAGER, install xdg-utils, or add an [[opener]] to config.toml")
  }

  /// The argv that edits a text file Folio wrote (the bulk rename's list of names): `$VISUAL`,
  /// else `$EDITOR` — split on spaces as for Open ("code --wait"), never through a shell — else
  /// `vi`, as git and crontab fall back. No opener rule and no pager: the file must be edited.
  public func editorArgv(for path: [UInt8]) throws(ProviderError) -> [[UInt8]] {
    for variable in ["VISUAL", "EDITOR"] {
      guard let v = environment[variable]?.trimmingCharacters(in: .whitespaces), !v.isEmpty else { continue }
      let words = v.split(separator: " ").map { Array($0.utf8) }
      guard let program = words.first, isAvailable(String(decoding: program, as: UTF8.self)) else { continue }
      return words + Self.operand(path)
    }
    if isAvailable("vi") { return [Array("vi".utf8)] + Self.operand(path) }
    throw ProviderError(.featureUnsupported, "no editor: set $VISUAL or $EDITOR")
  }

  /// The file operand. An absolute path starts with "/" and so can never be read as an option:
  /// it goes alone (a `--` before it broke simple `$EDITOR` scripts that open "$1"). Only a
  /// relative one gets `--` before it.
  public static func operand(_ path: [UInt8]) -> [[UInt8]] {
    path.first == UInt8(ascii: "/") ? [path] : [Array("--".utf8), path]
  }
}
