import ProviderAPI

/// `[preview]` and `[[previewer]]`.
extension ConfigDecoder {
  // MARK: [preview]

  func previewSettings(_ value: ConfigValue) throws(ProviderError) -> PreviewSettings {
    guard case .table(let values) = value else {
      throw typeError("preview", expected: "a table ([preview] with lines such as pane = \"auto\")", found: value)
    }
    let table = ConfigTable(path: "preview", values: values)
    try checkKeys(table, allowed: [("pane", .value), ("images", .value), ("tools", .value)])
    var settings = PreviewSettings()
    if let pane = try choice(table, "pane", PreviewSettings.Pane.self) { settings.pane = pane }
    if let images = try choice(table, "images", PreviewSettings.Images.self) { settings.images = images }
    if let tools = try bool(table, "tools") { settings.tools = tools }
    return settings
  }

  /// A string that must be one of `T`'s raw values.
  func choice<T: RawRepresentable & CaseIterable>(_ table: ConfigTable, _ key: String, _ type: T.Type)
    throws(ProviderError) -> T? where T.RawValue == String
  {
    let names = T.allCases.map(\.rawValue)
    let list = names.map(Self.quote).joined(separator: ", ")
    guard let value = table[key] else { return nil }
    guard case .string(let s) = value else {
      throw typeError(table.path(of: key), expected: "one of \(list)", found: value)
    }
    if let chosen = T(rawValue: s) { return chosen }
    if let close = Self.suggestion(for: s, among: names) {
      throw error(table.path(of: key), "\(Self.quote(s)) is not one of \(list) (did you mean \(Self.quote(close))?)")
    }
    throw error(table.path(of: key), "\(Self.quote(s)) is not one of \(list)")
  }

  // MARK: [[previewer]]

  func previewer(_ table: ConfigTable) throws(ProviderError) -> PreviewerRule {
    try checkKeys(table, allowed: [("extensions", .value), ("content_type", .value), ("command", .value)])
    let match = try fileMatch(table, entry: "previewer")
    if case .array(let elements)? = table["command"], elements.contains(.string(CommandPlaceholder.paths.rawValue)) {
      throw error(
        table.path(of: "command"), "\"{paths}\" means nothing here: a previewer gets one file (use \"{path}\")",
        near: CommandPlaceholder.paths.rawValue)
    }
    let argv = try command(table, "command", placeholders: PreviewerRule.placeholders, example: ("glow", "glow"))
    return PreviewerRule(match: match, argv: argv)
  }
}
