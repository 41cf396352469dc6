import ProviderAPI

/// A table of the document being decoded, with the path its keys are reported under.
struct ConfigTable {
  /// "" for the top level, else `keys`, `action[1]`, …
  let path: String
  let values: [String: ConfigValue]

  subscript(key: String) -> ConfigValue? { values[key] }

  func path(of key: String) -> String { path.isEmpty ? key : path + "." + key }
}

/// Turns the parsed document into a ``FolioConfiguration``, one section at a time, reporting the
/// first problem as `<file>:<line>: <key>: <what is wrong>`.
///
/// The typed getters below return nil for an absent key and throw for a value of the wrong kind, so
/// each section reads like a list of its keys (see FolioConfiguration+Decoding.swift).
struct ConfigDecoder {
  let file: String
  let locator: SourceLocator
  let paths: FolioPaths

  // MARK: Errors

  /// An error about `path`, on its line (or on the line of `needle` inside its value).
  func error(_ path: String, _ what: String, near needle: String? = nil) -> ProviderError {
    let line = needle.map { locator.line(of: path, containing: $0) } ?? locator.line(of: path)
    return ProviderError(.badConfig, "\(file):\(line): \(Self.oneLine(path)): \(Self.oneLine(what))")
  }

  func typeError(_ path: String, expected: String, found value: ConfigValue, hint: String = "") -> ProviderError {
    error(path, "expected \(expected), found \(value.kindDescription)\(hint)")
  }

  /// Messages are one line whatever a parser or a value put in them.
  /// Escaped too: a key, a value or toml++'s message quote the file's bytes, which may hold an
  /// ESC or a bidi control (they went out raw: found by folio-fuzz).
  static func oneLine(_ s: String) -> String {
    TerminalText.escapeMessage(String(s.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 }))
  }

  static func quote(_ s: String) -> String { CommandTemplate.quote(s) }

  // MARK: Keys

  /// How a key is written in the "expected one of" list: `theme`, `[keys]`, `[[action]]`.
  enum KeyShape {
    case value
    case table
    case arrayOfTables
  }

  /// Rejects the first (in file order) key of `table` not in `allowed`, with a did-you-mean.
  ///
  /// - Parameter special: a message for keys that are wrong for a known reason (a password).
  func checkKeys(
    _ table: ConfigTable, allowed: [(String, KeyShape)], special: (String) -> String? = { _ in nil }
  ) throws(ProviderError) {
    let names = allowed.map(\.0)
    let unknown = table.values.keys.filter { !names.contains($0) }.sorted {
      (locator.exactLine(of: table.path(of: $0)) ?? .max, $0) < (locator.exactLine(of: table.path(of: $1)) ?? .max, $1)
    }
    guard let key = unknown.first else { return }
    if let message = special(key) { throw error(table.path(of: key), message) }
    func written(_ entry: (String, KeyShape)) -> String {
      switch entry.1 {
      case .value: return entry.0
      case .table: return "[\(entry.0)]"
      case .arrayOfTables: return "[[\(entry.0)]]"
      }
    }
    if let suggestion = Self.suggestion(for: key, among: names),
      let entry = allowed.first(where: { $0.0 == suggestion })
    {
      let shown = entry.1 == .value ? Self.quote(suggestion) : written(entry)
      throw error(table.path(of: key), "unknown key (did you mean \(shown)?)")
    }
    throw error(table.path(of: key), "unknown key (expected one of: \(allowed.map(written).joined(separator: ", ")))")
  }

  /// Words people use for a key under another name.
  static let aliases: [String: [String]] = [
    "command": ["cmd", "argv", "exec", "program", "run"],
    "extensions": ["ext", "extension", "exts", "suffix", "suffixes"],
    "content_type": ["type", "uti", "mime", "mime_type", "kind"],
    "name": ["title", "label"],
    "server": ["host", "hostname", "address"],
    "user": ["username", "login", "account"],
    "root": ["path", "folder", "directory", "dir"],
    "keys": ["keymap", "bindings", "keybindings"],
    "cache_budget": ["cache_size", "cache", "cache_limit"],
    "preview": ["previews", "preview_pane", "pane"],
    "previewer": ["previewers", "previewer_command"],
    "images": ["image", "pictures", "graphics"],
    "tools": ["helpers", "external_tools"],
  ]

  /// The allowed key closest to `key`: same word up to case, `-`/`_` or a couple of typos, or a
  /// known alias. Nil when nothing is close.
  static func suggestion(for key: String, among candidates: [String]) -> String? {
    let k = key.lowercased().replacingAll("-", with: "_")
    if let alias = candidates.first(where: { aliases[$0]?.contains(k) == true }) { return alias }
    var best: (String, Int)?
    for candidate in candidates {
      let d = editDistance(k, candidate)
      let limit = max(1, min(2, candidate.count / 3))
      if d <= limit && d < (best?.1 ?? .max) { best = (candidate, d) }
    }
    return best?.0
  }

  /// Levenshtein distance over characters.
  static func editDistance(_ a: String, _ b: String) -> Int { EditDistance.between(a, b) }

  // MARK: Typed getters

  func string(_ table: ConfigTable, _ key: String) throws(ProviderError) -> String? {
    guard let value = table[key] else { return nil }
    guard case .string(let s) = value else { throw typeError(table.path(of: key), expected: "a string", found: value) }
    return s
  }

  /// A string that must be present and not blank.
  func requiredString(_ table: ConfigTable, _ key: String, example: String) throws(ProviderError) -> String {
    guard let s = try string(table, key) else {
      throw error(table.path, "missing key \"\(key)\" (e.g. \(key) = \(example))")
    }
    if s.trimmingWhitespace().isEmpty { throw error(table.path(of: key), "must not be empty") }
    return s
  }

  func bool(_ table: ConfigTable, _ key: String) throws(ProviderError) -> Bool? {
    guard let value = table[key] else { return nil }
    guard case .bool(let b) = value else {
      throw typeError(table.path(of: key), expected: "true or false", found: value)
    }
    return b
  }

  func stringArray(_ table: ConfigTable, _ key: String, hint: String = "") throws(ProviderError) -> [String]? {
    guard let value = table[key] else { return nil }
    let path = table.path(of: key)
    guard case .array(let elements) = value else {
      throw typeError(path, expected: "an array of strings", found: value, hint: hint)
    }
    var strings: [String] = []
    for (i, element) in elements.enumerated() {
      guard case .string(let s) = element else {
        throw error(path, "expected an array of strings, but element \(i + 1) is \(element.kindDescription)")
      }
      strings.append(s)
    }
    return strings
  }

  /// The entries of `[[key]]`, each with the path `key[i]`.
  func arrayOfTables(_ table: ConfigTable, _ key: String) throws(ProviderError) -> [ConfigTable] {
    guard let value = table[key] else { return [] }
    let path = table.path(of: key)
    guard case .array(let elements) = value else {
      throw typeError(path, expected: "[[\(key)]] entries (an array of tables)", found: value)
    }
    var tables: [ConfigTable] = []
    for (i, element) in elements.enumerated() {
      guard case .table(let values) = element else {
        throw error("\(path)[\(i)]", "expected a table, found \(element.kindDescription)")
      }
      tables.append(ConfigTable(path: "\(path)[\(i)]", values: values))
    }
    return tables
  }

  /// A command: an array of strings whose placeholders are whole arguments.
  ///
  /// - Parameters:
  ///   - placeholders: the placeholders this command may use (all of ``CommandPlaceholder`` by default).
  ///   - example: the program shown in the "missing key" and one-string hints.
  func command(
    _ table: ConfigTable, _ key: String, placeholders: [String] = CommandPlaceholder.allCases.map(\.rawValue),
    example: (program: String, hint: String) = ("xdg-open", "nvim")
  ) throws(ProviderError) -> [String] {
    let hint =
      ": commands run without a shell, so write each argument apart, e.g. [\"\(example.hint)\", \"{path}\"]"
    guard let argv = try stringArray(table, key, hint: table[key].map(\.isString) == true ? hint : "") else {
      throw error(table.path, "missing key \"\(key)\" (e.g. \(key) = [\"\(example.program)\", \"{path}\"])")
    }
    if let problem = CommandTemplate.validate(argv, placeholders: placeholders) {
      throw error(table.path(of: key), problem.message, near: problem.argument)
    }
    return argv
  }
}

extension ConfigValue {
  var isString: Bool {
    if case .string = self { return true }
    return false
  }
}

extension String {
  /// `replacingOccurrences(of:with:)` for single characters, without Foundation.
  func replacingAll(_ old: Character, with new: Character) -> String {
    String(map { $0 == old ? new : $0 })
  }
}
