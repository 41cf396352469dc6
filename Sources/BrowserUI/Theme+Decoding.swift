import ProviderAPI
import TOMLKit

/// What one theme file says, before its `extends` chain is applied.
struct ThemeDefinition: Sendable {
  var extends: String?
  /// The line of `extends`, for errors about the theme it names.
  var extendsLine = 1
  var roles: [StyleRole: ThemeStylePatch] = [:]
  var monochrome: [StyleRole: CellAttributes] = [:]
}

/// The keys one role entry sets: a child theme changes only what it writes.
struct ThemeStylePatch: Sendable, Equatable {
  var foreground: ThemeColor?
  var background: ThemeColor?
  var foreground16: ThemeColor?
  var background16: ThemeColor?
  var setAttributes: CellAttributes = []
  var clearedAttributes: CellAttributes = []

  /// `base` with this patch applied. A new foreground drops the base's 16-color choice for it,
  /// which was picked for the old color.
  func applied(to base: ThemeStyle?) -> ThemeStyle {
    var s = base ?? ThemeStyle()
    if let foreground {
      s.foreground = foreground
      s.foreground16 = foreground16
    } else if let foreground16 {
      s.foreground16 = foreground16
    }
    if let background {
      s.background = background
      s.background16 = background16
    } else if let background16 {
      s.background16 = background16
    }
    s.attributes.formUnion(setAttributes)
    s.attributes.subtract(clearedAttributes)
    return s
  }
}

/// Reads a theme file's TOML into a ``ThemeDefinition``, reporting the first problem, in file
/// order, as `<file>:<line>: <key>: <what is wrong>`.
///
/// The file's shape:
/// ```toml
/// extends = "default-dark"          # optional: start from another theme
/// [roles]
/// normal = { fg = "default", bg = "default" }
/// list-selected = { fg = "black", bg = "#5fafff", bold = true }
/// tag-orange = 208                  # a bare color is the foreground
/// [monochrome]                      # optional: emphasis when there are no colors
/// list-selected = ["reverse", "bold"]
/// ```
struct ThemeDecoder {
  let file: String
  let locator: ThemeSourceLocator

  static let topLevelKeys = ["extends", "description", "roles", "monochrome"]
  static let styleKeys = ["fg", "bg", "fg16", "bg16"] + CellAttributes.themeNames.map(\.name)

  func decode(_ document: [String: ThemeValue]) throws(ThemeError) -> ThemeDefinition {
    var definition = ThemeDefinition()
    for key in inFileOrder(document.keys, under: "") where !Self.topLevelKeys.contains(key) {
      if StyleRole(themeKey: key) != nil {
        throw error(key, "a role belongs in the [roles] table (write [roles] on a line above it)")
      }
      if Self.suggestion(for: key, among: Self.topLevelKeys) == nil, let role = Self.roleSuggestion(for: key) {
        throw error(key, "unknown key (did you mean the role \"\(role)\"? roles belong in the [roles] table)")
      }
      throw unknownKey(key, among: Self.topLevelKeys)
    }
    if let value = document["extends"] {
      guard case .string(let name) = value, !ThemeColor.trimmed(name).isEmpty else {
        let found = value.kindDescription
        throw error("extends", "expected the name of a theme (extends = \"default-dark\"), found \(found)")
      }
      definition.extends = ThemeColor.trimmed(name)
      definition.extendsLine = locator.line(of: "extends")
    }
    if let value = document["description"] {
      guard case .string = value else {
        throw error("description", "expected a string, found \(value.kindDescription)")
      }
    }
    if let value = document["roles"] {
      guard case .table(let roles) = value else {
        throw error("roles", "expected a table ([roles]), found \(value.kindDescription)")
      }
      for key in inFileOrder(roles.keys, under: "roles") {
        let role = try self.role(key, under: "roles")
        definition.roles[role] = try patch(roles[key]!, path: "roles." + key)
      }
    }
    if let value = document["monochrome"] {
      guard case .table(let entries) = value else {
        throw error("monochrome", "expected a table ([monochrome]), found \(value.kindDescription)")
      }
      for key in inFileOrder(entries.keys, under: "monochrome") {
        let role = try self.role(key, under: "monochrome")
        definition.monochrome[role] = try attributeList(entries[key]!, path: "monochrome." + key)
      }
    }
    return definition
  }

  // MARK: Roles

  private func role(_ key: String, under parent: String) throws(ThemeError) -> StyleRole {
    if let role = StyleRole(themeKey: key) { return role }
    let path = parent + "." + key
    if let suggestion = Self.roleSuggestion(for: key) {
      throw error(path, "unknown role (did you mean \"\(suggestion)\"?)")
    }
    throw error(path, "unknown role (roles are: \(StyleRole.allCases.map(\.themeKey).joined(separator: ", ")))")
  }

  /// The role name closest to `key`: the same words spelled another way (`listSelected`,
  /// `list_selected`) or a couple of typos away.
  static func roleSuggestion(for key: String) -> String? {
    suggestion(for: key, among: StyleRole.allCases.map(\.themeKey))
  }

  /// A role entry: a table of keys, or a bare color meaning the foreground.
  private func patch(_ value: ThemeValue, path: String) throws(ThemeError) -> ThemeStylePatch {
    var patch = ThemeStylePatch()
    switch value {
    case .string, .integer:
      patch.foreground = try color(value, path: path)
      return patch
    case .table(let table):
      for key in inFileOrder(table.keys, under: path) {
        let keyPath = path + "." + key
        let v = table[key]!
        switch key {
        case "fg": patch.foreground = try color(v, path: keyPath)
        case "bg": patch.background = try color(v, path: keyPath)
        case "fg16": patch.foreground16 = try ansiColor(v, path: keyPath)
        case "bg16": patch.background16 = try ansiColor(v, path: keyPath)
        default:
          guard let attribute = CellAttributes.themeNames.first(where: { $0.name == key })?.attribute else {
            throw unknownKey(keyPath, among: Self.styleKeys)
          }
          guard case .bool(let on) = v else {
            throw error(keyPath, "expected true or false, found \(v.kindDescription)")
          }
          if on { patch.setAttributes.insert(attribute) } else { patch.clearedAttributes.insert(attribute) }
        }
      }
      return patch
    default:
      let example = "{ fg = \"black\", bg = \"#5fafff\", bold = true }"
      throw error(path, "expected a table such as \(example) or a color, found \(value.kindDescription)")
    }
  }

  private func color(_ value: ThemeValue, path: String) throws(ThemeError) -> ThemeColor {
    switch value {
    case .integer(let n):
      guard let index = UInt8(exactly: n) else { throw error(path, "palette index \(n) is out of range (0-255)") }
      return .indexed(index)
    case .string(let s):
      if let color = ThemeColor(s) { return color }
      throw error(path, "unknown color \"\(s)\"\(Self.colorHint(for: s))")
    default:
      throw error(path, "expected a color (a name, an index 0-255 or \"#rrggbb\"), found \(value.kindDescription)")
    }
  }

  /// `fg16`/`bg16`: the choice for 8/16-color terminals, so only the 16 ANSI colors (or 0–15).
  private func ansiColor(_ value: ThemeValue, path: String) throws(ThemeError) -> ThemeColor {
    let c = try color(value, path: path)
    guard let index = c.paletteIndex, index < 16 else {
      throw error(path, "expected one of the 16 ANSI colors (a name such as \"magenta\" or 0-15), found \(c)")
    }
    return c
  }

  static func colorHint(for text: String) -> String {
    let key = ThemeColor.nameKey(text)
    let aliases = ["gray": "bright-black", "grey": "bright-black", "purple": "magenta", "orange": "208", "pink": "213"]
    if let alias = aliases[key] {
      return " (did you mean \(alias.first!.isNumber ? alias : "\"\(alias)\"")?)"
    }
    if text.hasPrefix("#") { return " (expected #rrggbb with six hexadecimal digits)" }
    if let suggestion = suggestion(for: key, among: ThemeColor.ansiColors.map(\.name)) {
      return " (did you mean \"\(suggestion)\"?)"
    }
    return " (expected default, an ANSI name such as \"bright-black\", a palette index 0-255 or \"#rrggbb\")"
  }

  // MARK: Monochrome

  private func attributeList(_ value: ThemeValue, path: String) throws(ThemeError) -> CellAttributes {
    let names: [String]
    switch value {
    case .string(let s): names = s.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "+" }).map(String.init)
    case .array(let elements):
      var list: [String] = []
      for element in elements {
        guard case .string(let s) = element else {
          let found = element.kindDescription
          throw error(path, "expected attribute names such as [\"reverse\", \"bold\"], found \(found) in the array")
        }
        list.append(s)
      }
      names = list
    default:
      throw error(path, "expected attribute names such as [\"reverse\", \"bold\"], found \(value.kindDescription)")
    }
    var attributes: CellAttributes = []
    for name in names where name != "none" {
      guard let a = CellAttributes.themeNames.first(where: { $0.name == name.lowercased() })?.attribute else {
        let names = CellAttributes.themeNames.map(\.name).joined(separator: ", ")
        throw error(path, "unknown attribute \"\(name)\" (expected: \(names))")
      }
      attributes.insert(a)
    }
    return attributes
  }

  // MARK: Errors and key order

  func error(_ path: String, _ what: String) -> ThemeError {
    ThemeError(file: file, line: locator.line(of: path), key: path, reason: what)
  }

  private func unknownKey(_ path: String, among names: [String]) -> ThemeError {
    let key = String(path.split(separator: ".").last ?? Substring(path))
    let aliases = [
      "fg": ["foreground", "fore", "color", "colour", "fgcolor", "text"],
      "bg": ["background", "back", "bgcolor"],
      "extends": ["extend", "inherits", "inherit", "base", "parent"],
      "reverse": ["inverse", "reversed", "invert"],
      "underline": ["underlined", "under"],
    ]
    let k = ThemeColor.nameKey(key)
    if let alias = names.first(where: { aliases[$0]?.contains(k) == true }) ?? Self.suggestion(for: key, among: names) {
      return error(path, "unknown key (did you mean \"\(alias)\"?)")
    }
    return error(path, "unknown key (expected one of: \(names.joined(separator: ", ")))")
  }

  /// Keys in the order the file wrote them, so the first error reported is the first in the file.
  private func inFileOrder(_ keys: Dictionary<String, ThemeValue>.Keys, under parent: String) -> [String] {
    // Each key's line looked up once, not at every comparison of the sort: the comparisons built
    // the key's path and hashed it twice each, 2.4 M instructions of every launch (issue 13).
    let lined = keys.map { key in (line: locator.exactLine(of: parent.isEmpty ? key : parent + "." + key) ?? .max, key: key) }
    return lined.sorted { ($0.line, $0.key) < ($1.line, $1.key) }.map(\.key)
  }

  /// The candidate closest to `key`: equal up to case, `-` and `_`, else at most two edits away
  /// (one for short words). Nil when nothing is close.
  static func suggestion(for key: String, among candidates: [String]) -> String? {
    let k = ThemeColor.nameKey(key)
    if let same = candidates.first(where: { ThemeColor.nameKey($0) == k }) { return same }
    var best: (String, Int)?
    for candidate in candidates {
      let d = editDistance(k, ThemeColor.nameKey(candidate))
      let limit = max(1, min(2, candidate.count / 3))
      if d <= limit && d < (best?.1 ?? .max) { best = (candidate, d) }
    }
    return best?.0
  }

  /// Edits between two words, a swap of neighbours counting as one (optimal string alignment):
  /// `erorr` is one typo away from `error`.
  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { d[i][0] = i }
    for j in 0...b.count { d[0][j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
      }
    }
    return d[a.count][b.count]
  }
}

/// A parsed TOML value copied out of TOMLKit, whose tables are non-Sendable classes over toml++
/// nodes, right after parsing.
indirect enum ThemeValue: Sendable, Equatable {
  case string(String)
  case integer(Int64)
  case float(Double)
  case bool(Bool)
  case dateTime(String)
  case array([ThemeValue])
  case table([String: ThemeValue])

  var kindDescription: String {
    switch self {
    case .string(let s): return "the string \"\(s)\""
    case .integer(let n): return "the integer \(n)"
    case .float: return "a floating-point number"
    case .bool(let b): return "\(b)"
    case .dateTime(let kind): return "a \(kind)"
    case .array: return "an array"
    case .table: return "a table"
    }
  }

  /// Parses a TOML document; a syntax error comes back with toml++'s line and column.
  static func parseDocument(_ text: String, file: String) throws(ThemeError) -> [String: ThemeValue] {
    let table: TOMLTable
    // toml++ must not see what its parser asserts never happens (TOMLPreflight).
    if let p = TOMLPreflight.problem(in: text) {
      throw ThemeError(file: file, line: p.line, column: p.column, key: nil, reason: "syntax error: \(p.message)")
    }
    do {
      table = try TOMLTable(string: text)
    } catch let error as TOMLParseError {
      let what = String(error.description.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
      throw ThemeError(
        file: file, line: error.source.begin.line, column: error.source.begin.column, key: nil,
        reason: "syntax error: \(what)")
    } catch {
      throw ThemeError(file: file, line: nil, key: nil, reason: "syntax error: \(error)")
    }
    return convert(table)
  }

  private static func convert(_ table: TOMLTable) -> [String: ThemeValue] {
    var result: [String: ThemeValue] = [:]
    for (key, value) in table { result[key] = convert(value) }
    return result
  }

  private static func convert(_ value: any TOMLValueConvertible) -> ThemeValue {
    switch value.type {
    case .string: return .string(value.string ?? "")
    case .int: return .integer(Int64(value.int ?? 0))
    case .double: return .float(value.double ?? 0)
    case .bool: return .bool(value.bool ?? false)
    case .date: return .dateTime("date")
    case .time: return .dateTime("time")
    case .dateTime: return .dateTime("date-time")
    case .array: return .array(value.array.map { $0.map { convert($0) } } ?? [])
    case .table: return .table(value.table.map { convert($0) } ?? [:])
    }
  }
}
