import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where Folio keeps its files, following the XDG Base Directory specification.
///
/// Computed from an environment dictionary so that tests (and `folio --print-paths`) can ask about
/// any environment. As the spec says, an `XDG_*` variable that is unset, empty or not an absolute
/// path is ignored and its default under `$HOME` is used instead.
public struct FolioPaths: Sendable, Equatable {
  /// The home directory: `$HOME` when absolute, else the password database's entry.
  public var home: URL
  /// `$XDG_CONFIG_HOME`, default `~/.config`.
  public var configHome: URL
  /// `$XDG_DATA_HOME`, default `~/.local/share`. The local provider's Trash lives here.
  public var dataHome: URL
  /// `$XDG_CACHE_HOME`, default `~/.cache`.
  public var cacheHome: URL
  /// `$XDG_STATE_HOME`, default `~/.local/state`: what must outlive a run but is neither a
  /// setting nor a cache — work under way (an S3 rename's journal) and the browser's view choices.
  public var stateHome: URL
  /// `$XDG_DATA_DIRS` (absolute entries only), default `/usr/local/share` and `/usr/share`.
  public var dataDirectories: [URL]

  public init(environment: [String: String]) {
    let home = Self.absolute(environment["HOME"]) ?? Self.passwordDatabaseHome() ?? "/"
    let homeURL = URL(fileURLWithPath: home, isDirectory: true)
    self.home = homeURL
    func xdg(_ name: String, default relative: String) -> URL {
      if let value = Self.absolute(environment[name]) { return URL(fileURLWithPath: value, isDirectory: true) }
      return homeURL.appendingPathComponent(relative, isDirectory: true)
    }
    configHome = xdg("XDG_CONFIG_HOME", default: ".config")
    dataHome = xdg("XDG_DATA_HOME", default: ".local/share")
    cacheHome = xdg("XDG_CACHE_HOME", default: ".cache")
    stateHome = xdg("XDG_STATE_HOME", default: ".local/state")
    let dirs = (environment["XDG_DATA_DIRS"] ?? "").split(separator: ":").compactMap { Self.absolute(String($0)) }
    dataDirectories = (dirs.isEmpty ? ["/usr/local/share", "/usr/share"] : dirs).map {
      URL(fileURLWithPath: $0, isDirectory: true)
    }
  }

  /// The paths for this process's environment.
  ///
  /// The six variables it reads, each with getenv: Foundation's `environment` builds a dictionary
  /// of the whole environment at every read (~0.7 M instructions, and a launch asked twice).
  public static var current: FolioPaths {
    var environment: [String: String] = [:]
    for name in ["HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_DATA_DIRS"] {
      if let value = getenv(name) { environment[name] = String(cString: value) }
    }
    return FolioPaths(environment: environment)
  }

  /// `$XDG_CONFIG_HOME/folio/config.toml`.
  public var configFile: URL { configHome.appendingPathComponent("folio/config.toml", isDirectory: false) }
  /// `$XDG_CONFIG_HOME/folio/credentials`: secrets, mode 0600.
  public var credentialsFile: URL { configHome.appendingPathComponent("folio/credentials", isDirectory: false) }
  /// `$XDG_DATA_HOME/folio/index.sqlite`: the working-set index and the transfer journal.
  public var indexFile: URL { dataHome.appendingPathComponent("folio/index.sqlite", isDirectory: false) }
  /// `$XDG_CACHE_HOME/folio/content`: materialized files, `<domain>/<item-key>` below it.
  public var contentCache: URL { cacheHome.appendingPathComponent("folio/content", isDirectory: true) }
  /// `$XDG_CACHE_HOME/folio/preview`: the preview helpers' private folder (mode 0700; their
  /// working directory, and where a PDF page or a video frame is written as a picture).
  public var previewCache: URL { cacheHome.appendingPathComponent("folio/preview", isDirectory: true) }
  /// `$XDG_STATE_HOME/folio/view`: the browser's sort and hidden-files choice (`ViewChoices`),
  /// written by the browser only when the person changes it.
  public var viewChoicesFile: URL { stateHome.appendingPathComponent("folio/view", isDirectory: false) }
  /// `$XDG_STATE_HOME/folio/open-with`: the Open With… prompt's last commands, newest first.
  public var openWithHistoryFile: URL { stateHome.appendingPathComponent("folio/open-with", isDirectory: false) }
  /// `$XDG_STATE_HOME/folio/s3-jobs/<location>`: the renames of an S3 location not yet finished.
  public func s3Jobs(_ location: String) -> URL {
    stateHome.appendingPathComponent("folio/s3-jobs", isDirectory: true).appendingPathComponent(location, isDirectory: true)
  }
  /// `$XDG_DATA_HOME/Trash`: the freedesktop home trash.
  public var trashDirectory: URL { dataHome.appendingPathComponent("Trash", isDirectory: true) }
  /// Where themes are looked for, first match wins: the user's config, the user's data, then each
  /// system data directory (`…/folio/themes`).
  public var themeDirectories: [URL] {
    ([configHome, dataHome] + dataDirectories).map { $0.appendingPathComponent("folio/themes", isDirectory: true) }
  }

  /// `~` or `~/…` with the home directory; anything else unchanged (`~user` is not expanded).
  public func expandingTilde(_ path: String) -> String {
    if path == "~" { return home.path }
    if path.hasPrefix("~/") {
      let base = home.path.hasSuffix("/") ? String(home.path.dropLast()) : home.path
      return base + path.dropFirst()
    }
    return path
  }

  private static func absolute(_ value: String?) -> String? {
    guard let value, value.hasPrefix("/") else { return nil }
    return value
  }

  private static func passwordDatabaseHome() -> String? {
    guard let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir else { return nil }
    return absolute(String(cString: dir))
  }
}
