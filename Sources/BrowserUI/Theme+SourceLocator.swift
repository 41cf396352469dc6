/// Finds the line on which a key of a theme file was written.
///
/// TOMLKit reports lines only for syntax errors; an unknown role or a bad color is found after
/// parsing, when the tree no longer knows where it came from. Like FolioConfig's SourceLocator
/// (which BrowserUI cannot import), this re-reads the already valid text and records, for every
/// table header and every `key =`, the dotted path the decoder reports (`roles.list-selected`).
/// It understands just enough TOML to skip strings, comments and multi-line arrays; keys inside
/// inline tables take their parent's line, which is the same line since TOML inline tables cannot
/// span lines.
struct ThemeSourceLocator: Sendable {
  private var keyLines: [String: Int] = [:]

  init(text: String) {
    var scanner = ThemeTOMLScanner(scalars: Array(text.unicodeScalars))
    scanner.run()
    for (path, line) in scanner.found where keyLines[path] == nil { keyLines[path] = line }
  }

  /// The line of `path` itself, or nil when the text does not spell it out.
  func exactLine(of path: String) -> Int? { keyLines[path] }

  /// The line of `path`, else of its nearest ancestor (`roles.x.fg` → `roles.x` → `roles`), else 1.
  func line(of path: String) -> Int {
    var p = Substring(path)
    while true {
      if let line = keyLines[String(p)] { return line }
      guard let dot = p.lastIndex(of: ".") else { return 1 }
      p = p[..<dot]
    }
  }
}

/// A forgiving single pass over a TOML text that records where keys and headers are.
private struct ThemeTOMLScanner {
  let scalars: [Unicode.Scalar]
  var i = 0
  var line = 1
  /// The path of the table the following keys belong to ("" at the top).
  var context = ""
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
        skipComment()
      default:
        keyValue()
        skipComment()
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
    if peek == "[" { advance() }  // [[array]]: themes have none, but don't misread one
    var path = ""
    for component in readKey() {
      path = path.isEmpty ? component : path + "." + component
      found.append((path, start))
    }
    context = path
  }

  mutating func keyValue() {
    let start = line
    let components = readKey()
    skipBlanks()
    guard peek == "=", !components.isEmpty else {
      skipComment()
      return
    }
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

  /// Skips a value, including arrays that span lines, up to its final newline.
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
