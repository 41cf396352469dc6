import ProviderAPI

extension DomainConfigEditor {
  /// The config text with a `[[domain]] type = "extension"` table appended: its `command` argv
  /// and a `[domain.config]` table of its settings, checked as ``adding(name:type:settings:displayName:to:file:paths:)``
  /// checks any other.
  public static func addingExtension(
    name: DomainIdentifier, command: [String], config: [(String, String)], displayName: String?, to text: String,
    file: String, paths: FolioPaths
  ) throws(ProviderError) -> String {
    var block = "[[domain]]\nname = \(quoted(name.rawValue))\ntype = \"extension\"\n"
    if let displayName, displayName != name.rawValue { block += "display_name = \(quoted(displayName))\n" }
    block += "command = [\(command.map(quoted).joined(separator: ", "))]\n"
    if !config.isEmpty {
      block += "[domain.config]\n"
      for (key, value) in config { block += "\(quotedKey(key)) = \(quoted(value))\n" }
    }
    return try appending(block, named: name, to: text, file: file, paths: paths)
  }

  /// A bare key when TOML allows one (letters, digits, `-`, `_`), else a quoted one.
  static func quotedKey(_ key: String) -> String {
    let bare = !key.isEmpty && key.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
    return bare ? key : quoted(key)
  }
}
