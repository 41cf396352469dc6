import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What `config.toml` says: theme, cache budget, openers, custom actions, domains, key bindings,
/// and the preview pane's settings and previewers.
///
/// A missing file means the defaults; anything the file gets wrong is a `badConfig` error whose
/// message is one line, `<file>:<line>: <key>: <what is wrong>`, so that a typo is reported where
/// it is rather than silently ignored. See docs/config.example.toml for every key.
public struct FolioConfiguration: Sendable, Equatable {
  /// The theme's name (`--theme` overrides it). The browser looks it up with BrowserUI's
  /// `Theme.defaultSearchPaths()`: `$XDG_CONFIG_HOME/folio/themes`, `$XDG_DATA_HOME/folio/themes`,
  /// each `$XDG_DATA_DIRS/folio/themes`, `../share/folio/themes` next to the executable, then the
  /// source tree's `Themes/`; `default-dark` is also built in and needs no file.
  public var theme: String
  /// How many bytes of downloaded content the content cache may keep before it evicts.
  public var cacheBudgetBytes: Int64
  /// Openers in config order; the first that matches an item opens it.
  public var openers: [OpenerRule]
  /// The user's custom actions, in config order (the menu order).
  public var actions: [CustomActionConfig]
  /// Configured locations, besides the built-in local one.
  public var domains: [DomainConfig]
  /// Binding overrides: action name → key names (`"open" → ["enter", "l"]`). An empty list unbinds.
  /// The names are checked by the key map, which reports what it refuses on the line
  /// `keyBindingSource` gives.
  public var keyBindings: [String: [String]]
  /// Where each binding was written, for the key map's errors.
  public var keyBindingSource = KeyBindingSource()
  /// `[preview]`: when the preview pane shows, pictures, installed tools.
  public var preview = PreviewSettings()
  /// The user's previewers in config order; the first that matches an item previews it, before
  /// any built-in preview.
  public var previewers: [PreviewerRule] = []

  public static let defaultTheme = "default-dark"
  public static let defaultCacheBudgetBytes: Int64 = 10 << 30

  public init(
    theme: String = Self.defaultTheme, cacheBudgetBytes: Int64 = Self.defaultCacheBudgetBytes,
    openers: [OpenerRule] = [], actions: [CustomActionConfig] = [], domains: [DomainConfig] = [],
    keyBindings: [String: [String]] = [:]
  ) {
    self.theme = theme
    self.cacheBudgetBytes = cacheBudgetBytes
    self.openers = openers
    self.actions = actions
    self.domains = domains
    self.keyBindings = keyBindings
  }

  /// The configuration used when there is no config file.
  public static let defaults = FolioConfiguration()

  /// The first opener for an item, or nil to fall back to the system's (`xdg-open`).
  public func opener(for name: ItemName, contentType: ContentType) -> OpenerRule? {
    openers.first { $0.matches(name: name, contentType: contentType) }
  }

  /// The first `[[previewer]]` for an item, or nil for the built-in previews.
  public func previewer(for name: ItemName, contentType: ContentType) -> PreviewerRule? {
    previewers.first { $0.matches(name: name, contentType: contentType) }
  }

  /// Loads the config file of `paths` (``FolioPaths/configFile``).
  public static func load(paths: FolioPaths = .current) throws(ProviderError) -> FolioConfiguration {
    try load(from: paths.configFile, paths: paths)
  }

  /// Loads a config file.
  ///
  /// - Parameters:
  ///   - url: the file; its path names it in error messages.
  ///   - paths: expands `~` in domain roots and names the credentials file in hints.
  /// - Returns: the defaults when the file does not exist.
  /// - Throws: `badConfig` when the file cannot be read, is not UTF-8 text, or is not a valid config.
  public static func load(from url: URL, paths: FolioPaths = .current) throws(ProviderError) -> FolioConfiguration {
    let file = url.path
    let bytes: [UInt8]
    switch readFile(file) {
    case .missing: return .defaults
    case .failed(let reason): throw ProviderError(.badConfig, "\(file): cannot read the config: \(reason)")
    case .read(let b): bytes = b
    }
    if let line = lineOfFirstInvalidUTF8(bytes) {
      throw ProviderError(.badConfig, "\(file):\(line): the config is not valid UTF-8 text")
    }
    return try parse(String(decoding: bytes, as: UTF8.self), file: file, paths: paths)
  }

  /// Parses the text of a config file.
  ///
  /// - Parameters:
  ///   - text: the TOML text.
  ///   - file: how error messages name the file (`config.toml`, or a full path).
  ///   - paths: expands `~` in domain roots and names the credentials file in hints.
  /// - Throws: `badConfig` with a one-line `<file>:<line>: <key>: <what is wrong>` message.
  public static func parse(_ text: String, file: String, paths: FolioPaths = .current) throws(ProviderError)
    -> FolioConfiguration
  {
    if let nul = text.firstIndex(of: "\0") {
      let line = text[..<nul].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
      throw ProviderError(.badConfig, "\(file):\(line): the config contains a NUL character")
    }
    let document: [String: ConfigValue]
    do {
      document = try ConfigValue.parseDocument(text)
    } catch {
      let what = ConfigDecoder.oneLine(error.message)
      throw ProviderError(.badConfig, "\(file):\(error.line):\(error.column): syntax error: \(what)")
    }
    let decoder = ConfigDecoder(file: file, locator: SourceLocator(text: text), paths: paths)
    return try decoder.decode(document)
  }

  // MARK: - Reading the file

  private enum ReadResult {
    case read([UInt8])
    case missing
    case failed(String)
  }

  /// Reads a whole file with POSIX calls, to tell "missing" (defaults) from every other failure.
  private static func readFile(_ path: String) -> ReadResult {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 {
      let code = errno
      return code == ENOENT ? .missing : .failed(String(cString: strerror(code)))
    }
    defer { close(fd) }
    var info = stat()
    if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR { return .failed("it is a directory") }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n == 0 { return .read(bytes) }
      if n < 0 {
        if errno == EINTR { continue }
        return .failed(String(cString: strerror(errno)))
      }
      bytes.append(contentsOf: chunk[0..<n])
    }
  }

  /// The line holding the first byte that is not UTF-8, or nil when all of them are.
  private static func lineOfFirstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
    var line = 1
    var it = bytes.makeIterator()
    var decoder = UTF8()
    while true {
      switch decoder.decode(&it) {
      case .scalarValue(let s): if s == "\n" { line += 1 }
      case .emptyInput: return nil
      case .error: return line
      }
    }
  }
}
