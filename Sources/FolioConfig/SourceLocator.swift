/// Finds the line on which a key of a TOML document was written.
///
/// TOMLKit reports lines only for syntax errors; a value of the wrong kind, an unknown key or a bad
/// rule is found after parsing, when the tree no longer knows where it came from. This scanner
/// re-reads the (already valid) text and records, for every table header and every `key =`, the
/// path the decoder uses in its messages: `theme`, `keys.open`, `action[1].command` (the second
/// `[[action]]` header and the key below it). It understands just enough TOML to skip strings,
/// comments and multi-line arrays; keys inside inline tables fall back to their parent's line.
struct SourceLocator: Sendable {
  private let lines: [Substring]
  private var keyLines: [String: Int] = [:]
  /// Lines on which a header or a key starts, ascending: where one statement's text ends.
  private var statementLines: [Int] = []

  init(text: String) {
    lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    var scanner = Scanner(scalars: Array(text.unicodeScalars))
    scanner.run()
    for (path, line) in scanner.found {
      if keyLines[path] == nil { keyLines[path] = line }
      if statementLines.last != line { statementLines.append(line) }
    }
  }

  /// The line of `path` itself, or nil when the text does not spell it out.
  func exactLine(of path: String) -> Int? { keyLines[path] }

  /// The line of `path`, else of its nearest ancestor (`action[1].command[2]` → `action[1].command`
  /// → `action[1]` → `action`), else 1.
  func line(of path: String) -> Int {
    var p = path
    while true {
      if let line = keyLines[p] { return line }
      guard let parent = Self.parent(of: p) else { return 1 }
      p = parent
    }
  }

  /// The first line at or after `path`'s line, and before the next statement, that contains
  /// `needle` (an element of a multi-line array); `path`'s own line when there is none.
  func line(of path: String, containing needle: String) -> Int {
    let start = line(of: path)
    guard !needle.isEmpty else { return start }
    let end = statementLines.first { $0 > start } ?? lines.count + 1
    for line in start..<end where line - 1 < lines.count && lines[line - 1].contains(needle) {
      return line
    }
    return start
  }

  static func parent(of path: String) -> String? {
    if path.hasSuffix("]"), let open = path.lastIndex(of: "[") {
      return String(path[..<open])
    }
    guard let dot = path.lastIndex(of: ".") else { return nil }
    return String(path[..<dot])
  }
}

/// A forgiving single pass over a TOML text that records where keys and headers are.
private struct Scanner {
  let scalars: [Unicode.Scalar]
  var i = 0
  var line = 1
  /// The path of the table the following keys belong to ("" at the top).
  var context = ""
  /// How many `[[x]]` headers were seen for each (indexed) path.
  var arrayCounts: [String: Int] = [:]
  var found: [(path: String, line: Int)] = []

  init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

  var peek: Unicode.Scalar? { i < scalars.count ? scalars[i] : nil }

  mutating func advance() {
    if scalars[i] == "\n" { line += 1 }
    i += 1
  }

  mutating func run() {
    while i < scalars.count {
      skipBlanks()
      guard let c = peek else { break }
      switch c {
      case "\n": advance()
      case "#": skipComment()
      case "[":
        header()
        skipComment()  // the rest of the header's line
      default:
        keyValue()
        skipComment()  // the rest of the value's last line
      }
    }
  }

  mutating func skipBlanks() {
    while let c = peek, c == " " || c == "\t" || c == "\r" { advance() }
  }

  mutating func skipComment() {
    while let c = peek, c != "\n" { advance() }
  }

  mutating func header() {
    let start = line
    advance()
    var isArray = false
    if peek == "[" {
      isArray = true
      advance()
    }
    let components = readKey()
    var path = ""
    for (k, component) in components.enumerated() {
      path = path.isEmpty ? component : path + "." + component
      if isArray && k == components.count - 1 {
        let n = arrayCounts[path, default: 0]
        arrayCounts[path] = n + 1
        path += "[\(n)]"
      } else if let n = arrayCounts[path] {
        path += "[\(n - 1)]"
      }
      found.append((path, start))
    }
    context = path
  }

  mutating func keyValue() {
    let start = line
    let components = readKey()
    skipBlanks()
    guard peek == "=", !components.isEmpty else { return }
    advance()
    var path = context
    for component in components {
      path = path.isEmpty ? component : path + "." + component
      found.append((path, start))
    }
    skipValue()
  }

  /// Reads `a.b."c d"` up to (not including) whatever follows the key.
  mutating func readKey() -> [String] {
    var components: [String] = []
    while true {
      skipBlanks()
      guard let c = peek else { break }
      var component = ""
      if c == "\"" || c == "'" {
        advance()
        while let d = peek, d != c, d != "\n" {
          if c == "\"" && d == "\\" {
            advance()
            guard peek != nil else { break }
          }
          component.unicodeScalars.append(scalars[i])
          advance()
        }
        if peek == c { advance() }
      } else {
        while let d = peek, !" \t\r\n.=]#[".unicodeScalars.contains(d) {
          component.unicodeScalars.append(d)
          advance()
        }
        if component.isEmpty && peek != "." { break }
      }
      components.append(component)
      skipBlanks()
      guard peek == "." else { break }
      advance()
    }
    return components
  }

  /// Skips a value, including arrays and inline tables that span lines, up to its final newline.
  mutating func skipValue() {
    var depth = 0
    while let c = peek {
      switch c {
      case "\"", "'": skipString(quote: c)
      case "[", "{":
        depth += 1
        advance()
      case "]", "}":
        depth = max(0, depth - 1)
        advance()
      case "#": skipComment()
      case "\n":
        if depth == 0 { return }
        advance()
      default: advance()
      }
    }
  }

  mutating func skipString(quote: Unicode.Scalar) {
    let basic = quote == "\""
    let multiline = i + 2 < scalars.count && scalars[i + 1] == quote && scalars[i + 2] == quote
    if multiline {
      advance()
      advance()
      advance()
      while let c = peek {
        if basic && c == "\\" {
          advance()
          if peek != nil { advance() }
          continue
        }
        if c == quote && i + 2 < scalars.count && scalars[i + 1] == quote && scalars[i + 2] == quote {
          advance()
          advance()
          advance()
          // A closing run may be up to five quotes long ("""a"""" ends with a quote in the value).
          while peek == quote { advance() }
          return
        }
        advance()
      }
      return
    }
    advance()
    while let c = peek, c != "\n" {
      if basic && c == "\\" {
        advance()
        if let d = peek, d != "\n" { advance() }
        continue
      }
      advance()
      if c == quote { return }
    }
  }
}
