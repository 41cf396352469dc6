#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

import ProviderAPI

/// A theme that cannot be used, as one line: `<file>:<line>: <key>: <what is wrong>`.
///
/// The parts are kept apart for tests and for callers that want to show the file; `description`
/// is the line to print. A theme that is not found has no file and no line.
public struct ThemeError: Error, Sendable, Equatable, CustomStringConvertible {
  public var file: String
  public var line: Int?
  public var column: Int?
  public var key: String?
  public var reason: String

  public init(file: String, line: Int?, column: Int? = nil, key: String?, reason: String) {
    self.file = file
    self.line = line
    self.column = column
    self.key = key
    self.reason = reason
  }

  public var description: String {
    var s = file
    if !s.isEmpty, let line {
      s += ":\(line)"
      if let column { s += ":\(column)" }
    }
    if !s.isEmpty { s += ": " }
    if let key { s += key + ": " }
    // Escaped: a key and toml++'s message quote the theme file's bytes (an ESC went out raw:
    // found by folio-fuzz). A newline in a message becomes a space.
    return TerminalText.escapeMessage(String((s + reason).map { $0 == "\n" || $0 == "\r\n" ? " " : $0 }))
  }
}

extension Theme {
  /// Themes that exist even with no theme file installed: `default-dark` (a copy of
  /// Themes/default-dark.toml compiled in) and `monochrome` (``defaultMonochrome``).
  public static let builtInNames = ["default-dark", "monochrome"]

  /// The theme directories, first match wins.
  ///
  /// 1. `$XDG_CONFIG_HOME/folio/themes` (default `~/.config/folio/themes`): the user's own themes,
  ///    which may shadow a shipped one of the same name (and still `extends` it).
  /// 2. `$XDG_DATA_HOME/folio/themes` (default `~/.local/share/folio/themes`), as the XDG spec puts
  ///    the user's data directory before the system ones.
  /// 3. Each `$XDG_DATA_DIRS` entry's `folio/themes` (default `/usr/local/share` then `/usr/share`):
  ///    where an installation copies Themes/*.toml, e.g. `/usr/local/share/folio/themes`.
  /// 4. `<executable dir>/../share/folio/themes`: an installation under any prefix
  ///    (`~/.local/bin/folio` → `~/.local/share/folio/themes`) without setting XDG_DATA_DIRS.
  /// 5. The source tree's `Themes/`: the first directory above the executable that holds
  ///    `Themes/default-dark.toml`, which covers `swift run folio` and `.build/debug/folio`.
  ///
  /// Unset, empty or relative XDG variables fall back to their defaults, as the spec says.
  ///
  /// - Parameters:
  ///   - environment: the variables to read (`HOME`, `XDG_CONFIG_HOME`, `XDG_DATA_HOME`,
  ///     `XDG_DATA_DIRS`).
  ///   - executablePath: the running program, symlinks resolved; nil skips 4 and 5.
  public static func searchPaths(environment: [String: String], executablePath: String?) -> [String] {
    func absolute(_ value: String?) -> String? {
      guard let value, value.hasPrefix("/") else { return nil }
      return value
    }
    var dirs: [String] = []
    let home = absolute(environment["HOME"])
    if let config = absolute(environment["XDG_CONFIG_HOME"]) ?? home.map({ $0 + "/.config" }) {
      dirs.append(config + "/folio/themes")
    }
    if let data = absolute(environment["XDG_DATA_HOME"]) ?? home.map({ $0 + "/.local/share" }) {
      dirs.append(data + "/folio/themes")
    }
    let dataDirs = (environment["XDG_DATA_DIRS"] ?? "").split(separator: ":").compactMap { absolute(String($0)) }
    for dir in dataDirs.isEmpty ? ["/usr/local/share", "/usr/share"] : dataDirs {
      dirs.append(dir + "/folio/themes")
    }
    if let executablePath = absolute(executablePath) {
      let exeDir = ThemeFiles.parent(of: ThemeFiles.normalize(executablePath))
      dirs.append(exeDir + "/../share/folio/themes")
      var dir = exeDir
      while true {
        let candidate = (dir == "/" ? "" : dir) + "/Themes"
        if ThemeFiles.isRegularFile(candidate + "/default-dark.toml") {
          dirs.append(candidate)
          break
        }
        let up = ThemeFiles.parent(of: dir)
        if up == dir { break }
        dir = up
      }
    }
    var seen = Set<String>()
    return dirs.map(ThemeFiles.normalize).filter { seen.insert($0).inserted }
  }

  /// ``searchPaths(environment:executablePath:)`` for this process.
  public static func defaultSearchPaths() -> [String] {
    var environment: [String: String] = [:]
    for name in ["HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_DATA_DIRS"] {
      if let value = getenv(name) { environment[name] = String(cString: value) }
    }
    return searchPaths(environment: environment, executablePath: ThemeFiles.executablePath())
  }

  /// Loads the theme `name`: the first `<dir>/<name>.toml` of `searchPaths`, else a built-in one,
  /// with its `extends` chain applied. A name with a `/` or ending in `.toml` is a file path.
  ///
  /// `extends` names a theme found the same way, skipping the files already in the chain: so
  /// `~/.config/folio/themes/default-dark.toml` can say `extends = "default-dark"` and change two
  /// roles of the shipped theme. Roles a child writes change only the keys it writes.
  ///
  /// - Throws: ``ThemeError``: not found (with the themes that exist), unreadable, not UTF-8, a
  ///   syntax error (`file:line:column`), or a bad key or value (`file:line: key: what`).
  public static func load(named name: String, searchPaths: [String]) throws(ThemeError) -> Theme {
    let trimmed = ThemeColor.trimmed(name)
    guard let first = try locate(trimmed, searchPaths: searchPaths, excluding: []) else {
      throw ThemeError(file: "", line: nil, key: nil, reason: notFound(trimmed, searchPaths: searchPaths))
    }
    var chain: [(definition: ThemeDefinition, source: String, name: String)] = []
    var current = first
    var currentName = trimmed
    while true {
      let definition = try current.definition()
      chain.append((definition, current.source, currentName))
      guard let parent = definition.extends else { break }
      let file = current.source
      func chainError(_ reason: String) -> ThemeError {
        ThemeError(file: file, line: definition.extendsLine, key: "extends", reason: reason)
      }
      guard chain.count < 16 else { throw chainError("themes extend each other more than 16 deep") }
      let visited = Set(chain.map(\.source))
      if let next = try locate(parent, searchPaths: searchPaths, excluding: visited) {
        current = next
        currentName = parent
      } else if try locate(parent, searchPaths: searchPaths, excluding: []) != nil {
        let names = (chain.map(\.name) + [parent]).joined(separator: " → ")
        throw chainError("\"\(parent)\" leads back to a theme already in the chain (\(names))")
      } else {
        throw chainError(notFound(parent, searchPaths: searchPaths))
      }
    }
    var styles: [StyleRole: ThemeStyle] = [:]
    var monochrome: [StyleRole: CellAttributes] = [:]
    for link in chain.reversed() {
      for (role, patch) in link.definition.roles { styles[role] = patch.applied(to: styles[role]) }
      monochrome.merge(link.definition.monochrome) { _, child in child }
    }
    let displayName = trimmed.hasSuffix(".toml") || trimmed.contains("/") ? ThemeFiles.baseName(trimmed) : trimmed
    return Theme(name: displayName, source: chain[0].source, styles: styles, monochrome: monochrome)
  }

  /// Parses the text of a theme file (a theme being edited, a test).
  ///
  /// - Parameters:
  ///   - text: the TOML text.
  ///   - file: how error messages name the file.
  ///   - searchPaths: where `extends` looks.
  public static func parse(_ text: String, file: String, searchPaths: [String] = []) throws(ThemeError) -> Theme {
    let definition = try ThemeLocation.decode(text, file: file)
    var styles: [StyleRole: ThemeStyle] = [:]
    var monochrome: [StyleRole: CellAttributes] = [:]
    if let parent = definition.extends {
      do {
        let base = try load(named: parent, searchPaths: searchPaths)
        styles = base.styles
        monochrome = base.monochrome
      } catch {
        throw ThemeError(file: file, line: definition.extendsLine, key: "extends", reason: error.description)
      }
    }
    for (role, patch) in definition.roles { styles[role] = patch.applied(to: styles[role]) }
    monochrome.merge(definition.monochrome) { _, child in child }
    return Theme(name: ThemeFiles.baseName(file), source: file, styles: styles, monochrome: monochrome)
  }

  /// The names of the themes in `searchPaths` and the built-in ones, sorted.
  public static func availableThemes(searchPaths: [String]) -> [String] {
    var names = Set(builtInNames)
    for dir in searchPaths {
      for file in ThemeFiles.list(dir) where file.hasSuffix(".toml") && !file.hasPrefix(".") {
        names.insert(String(file.dropLast(5)))
      }
    }
    return names.sorted()
  }

  // MARK: - Finding a theme

  private static func locate(_ name: String, searchPaths: [String], excluding visited: Set<String>) throws(ThemeError)
    -> ThemeLocation?
  {
    if name.contains("/") || name.hasSuffix(".toml") {
      guard !visited.contains(name) else { return nil }
      switch ThemeFiles.readFile(name) {
      case .missing: return nil
      case .failed(let reason): throw unreadable(name, reason)
      case .read(let bytes): return .file(path: name, bytes: bytes)
      }
    }
    guard !name.isEmpty, !name.hasPrefix("."), !name.contains("\0") else { return nil }
    for dir in searchPaths {
      let path = (dir.hasSuffix("/") ? String(dir.dropLast()) : dir) + "/" + name + ".toml"
      if visited.contains(path) { continue }
      switch ThemeFiles.readFile(path) {
      case .missing: continue
      case .failed(let reason): throw unreadable(path, reason)
      case .read(let bytes): return .file(path: path, bytes: bytes)
      }
    }
    switch name {
    case "default-dark" where !visited.contains(ThemeLocation.builtInDefaultDark.source):
      return .builtInDefaultDark
    case "monochrome" where !visited.contains(ThemeLocation.builtInMonochrome.source):
      return .builtInMonochrome
    default: return nil
    }
  }

  private static func unreadable(_ path: String, _ reason: String) -> ThemeError {
    ThemeError(file: path, line: nil, key: nil, reason: "cannot read the theme: \(reason)")
  }

  private static func notFound(_ name: String, searchPaths: [String]) -> String {
    if name.contains("/") || name.hasSuffix(".toml") { return "theme file \"\(name)\" not found" }
    let places = searchPaths.isEmpty ? "no theme directories" : searchPaths.joined(separator: ", ")
    let available = availableThemes(searchPaths: searchPaths).joined(separator: ", ")
    return "theme \"\(name)\" not found (looked for \(name).toml in \(places); available: \(available))"
  }
}

/// Where a theme of the chain comes from.
enum ThemeLocation {
  case file(path: String, bytes: [UInt8])
  case builtInDefaultDark
  case builtInMonochrome

  var source: String {
    switch self {
    case .file(let path, _): return path
    case .builtInDefaultDark: return "<built-in default-dark>"
    case .builtInMonochrome: return "<built-in monochrome>"
    }
  }

  func definition() throws(ThemeError) -> ThemeDefinition {
    switch self {
    case .file(let path, let bytes):
      // The installed default-dark.toml, unchanged: the built-in theme, without parsing it.
      if bytes.elementsEqual(Theme.builtInDefaultDarkText.utf8) { return .builtInDefaultDark }
      if let line = ThemeFiles.lineOfFirstInvalidUTF8(bytes) {
        throw ThemeError(file: path, line: line, key: nil, reason: "the theme is not valid UTF-8 text")
      }
      return try Self.decode(String(decoding: bytes, as: UTF8.self), file: path)
    case .builtInDefaultDark:
      return .builtInDefaultDark
    case .builtInMonochrome:
      var definition = ThemeDefinition()
      for role in StyleRole.allCases {
        let attributes = Theme.defaultMonochrome[role] ?? []
        definition.roles[role] = ThemeStylePatch(foreground: .default, background: .default, setAttributes: attributes)
      }
      return definition
    }
  }

  static func decode(_ text: String, file: String) throws(ThemeError) -> ThemeDefinition {
    // Bytes, not Characters: walking the text by grapheme clusters to find none was 1.5 M
    // instructions of every launch (issue 13).
    if let nul = text.utf8.firstIndex(of: 0) {
      let line = text.utf8[..<nul].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
      throw ThemeError(file: file, line: line, key: nil, reason: "the theme contains a NUL character")
    }
    let document = try ThemeValue.parseDocument(text, file: file)
    return try ThemeDecoder(file: file, locator: ThemeSourceLocator(text: text)).decode(document)
  }
}

/// The few file-system calls theme loading needs, with POSIX so BrowserUI stays Foundation-free.
enum ThemeFiles {
  enum ReadResult {
    case read([UInt8])
    case missing
    case failed(String)
  }

  /// Reads a whole file, telling "missing" (look further) from every other failure (report it).
  static func readFile(_ path: String) -> ReadResult {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 {
      let code = errno
      return code == ENOENT || code == ENOTDIR ? .missing : .failed(String(cString: strerror(code)))
    }
    defer { close(fd) }
    var info = stat()
    if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR { return .failed("it is a directory") }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n == 0 { return .read(bytes) }
      if n < 0 {
        if errno == EINTR { continue }
        return .failed(String(cString: strerror(errno)))
      }
      bytes += chunk[0..<n]
      if bytes.count > 1 << 20 { return .failed("larger than 1 MiB") }
    }
  }

  static func isRegularFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
  }

  /// The entries of a directory; empty when it cannot be read.
  static func list(_ dir: String) -> [String] {
    guard let handle = opendir(dir) else { return [] }
    defer { closedir(handle) }
    var names: [String] = []
    while let entry = readdir(handle) {
      let name = withUnsafePointer(to: &entry.pointee.d_name) {
        String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// The running executable with symlinks resolved (`/proc/self/exe` on Linux).
  static func executablePath() -> String? {
    #if os(Linux)
      var buffer = [CChar](repeating: 0, count: 4096)
      let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
      guard n > 0 else { return nil }
      return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    #else
      guard let argv0 = CommandLine.arguments.first, argv0.hasPrefix("/") else { return nil }
      return argv0
    #endif
  }

  /// `/a/b/../c/./d/` → `/a/c/d`, lexically (the directories need not exist).
  ///
  /// Built with concrete `String` appends: `[Substring].joined` is the standard library's
  /// unspecialized generic, whose first call scanned every conformance record of the binary
  /// (~0.45 M instructions before the first frame; docs/BENCHMARKS.md).
  static func normalize(_ path: String) -> String {
    var parts: [String] = []
    for part in path.split(separator: "/") {
      switch part {
      case ".": continue
      case "..": if !parts.isEmpty { parts.removeLast() }
      default: parts.append(String(part))
      }
    }
    var result = ""
    for part in parts {
      result += "/"
      result += part
    }
    return result.isEmpty ? "/" : result
  }

  static func parent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// `dir/light.toml` → `light`.
  static func baseName(_ path: String) -> String {
    let last = path.split(separator: "/").last.map(String.init) ?? path
    return last.hasSuffix(".toml") ? String(last.dropLast(5)) : last
  }

  /// The line of the first byte sequence that is not UTF-8, or nil when all of it is.
  static func lineOfFirstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    var line = 1
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar): if scalar == "\n" { line += 1 }
      case .emptyInput: return nil
      case .error: return line
      }
    }
  }
}
