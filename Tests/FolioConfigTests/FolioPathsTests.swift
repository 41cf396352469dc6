import FolioConfig
import Foundation
import Testing

@Suite struct FolioPathsTests {
  @Test func defaultsComeFromHome() {
    let paths = FolioPaths(environment: ["HOME": "/home/ana"])
    #expect(paths.home.path == "/home/ana")
    #expect(paths.configFile.path == "/home/ana/.config/folio/config.toml")
    #expect(paths.credentialsFile.path == "/home/ana/.config/folio/credentials")
    #expect(paths.indexFile.path == "/home/ana/.local/share/folio/index.sqlite")
    #expect(paths.contentCache.path == "/home/ana/.cache/folio/content")
    #expect(paths.dataHome.path == "/home/ana/.local/share")
    #expect(paths.trashDirectory.path == "/home/ana/.local/share/Trash")
    #expect(paths.dataDirectories.map(\.path) == ["/usr/local/share", "/usr/share"])
    #expect(
      paths.themeDirectories.map(\.path) == [
        "/home/ana/.config/folio/themes", "/home/ana/.local/share/folio/themes", "/usr/local/share/folio/themes",
        "/usr/share/folio/themes",
      ])
  }

  /// `current` reads its variables one by one (getenv): the same paths as from the whole environment.
  @Test func currentReadsTheSameVariablesAsTheWholeEnvironment() {
    let current = FolioPaths.current
    let full = FolioPaths(environment: ProcessInfo.processInfo.environment)
    #expect(current.home == full.home)
    #expect(current.configHome == full.configHome)
    #expect(current.dataHome == full.dataHome)
    #expect(current.cacheHome == full.cacheHome)
    #expect(current.stateHome == full.stateHome)
    #expect(current.dataDirectories == full.dataDirectories)
  }

  @Test func absoluteXDGVariablesWin() {
    let paths = FolioPaths(environment: [
      "HOME": "/home/ana", "XDG_CONFIG_HOME": "/cfg", "XDG_DATA_HOME": "/data", "XDG_CACHE_HOME": "/var/cache/ana",
      "XDG_DATA_DIRS": "/opt/share:/usr/share",
    ])
    #expect(paths.configFile.path == "/cfg/folio/config.toml")
    #expect(paths.credentialsFile.path == "/cfg/folio/credentials")
    #expect(paths.indexFile.path == "/data/folio/index.sqlite")
    #expect(paths.trashDirectory.path == "/data/Trash")
    #expect(paths.contentCache.path == "/var/cache/ana/folio/content")
    #expect(paths.dataDirectories.map(\.path) == ["/opt/share", "/usr/share"])
  }

  @Test(arguments: ["relative/config", "", "~/.config", "./cfg"])
  func relativeOrEmptyXDGValuesAreIgnored(value: String) {
    let paths = FolioPaths(environment: [
      "HOME": "/home/ana", "XDG_CONFIG_HOME": value, "XDG_DATA_HOME": value, "XDG_CACHE_HOME": value,
      "XDG_DATA_DIRS": value,
    ])
    #expect(paths.configFile.path == "/home/ana/.config/folio/config.toml")
    #expect(paths.indexFile.path == "/home/ana/.local/share/folio/index.sqlite")
    #expect(paths.contentCache.path == "/home/ana/.cache/folio/content")
    #expect(paths.dataDirectories.map(\.path) == ["/usr/local/share", "/usr/share"])
  }

  @Test func relativeEntriesOfDataDirsAreDropped() {
    let paths = FolioPaths(environment: ["HOME": "/home/ana", "XDG_DATA_DIRS": "share:/opt/share::rel/x"])
    #expect(paths.dataDirectories.map(\.path) == ["/opt/share"])
  }

  @Test func withoutAUsableHomeThePasswordDatabaseAnswers() {
    for environment in [[:], ["HOME": "relative"]] {
      let paths = FolioPaths(environment: environment)
      #expect(paths.home.path.hasPrefix("/"))
      #expect(paths.configFile.path == paths.home.appendingPathComponent(".config/folio/config.toml").path)
    }
  }

  @Test func tildeExpansion() {
    let paths = FolioPaths(environment: ["HOME": "/home/ana"])
    #expect(paths.expandingTilde("~") == "/home/ana")
    #expect(paths.expandingTilde("~/projects") == "/home/ana/projects")
    #expect(paths.expandingTilde("~bob/x") == "~bob/x")
    #expect(paths.expandingTilde("/srv/~/x") == "/srv/~/x")
    #expect(FolioPaths(environment: ["HOME": "/"]).expandingTilde("~/x") == "/x")
  }
}
