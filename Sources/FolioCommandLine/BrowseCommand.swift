import ArgumentParser
import BrowserApp
import BrowserUI
import FolioConfig
import Foundation
import ProviderAPI
import ProviderCore
import TerminalBackend
import WorkingSetIndex

/// What the launch sets up before the terminal is taken: the start folder is resolved and its
/// first page asked for first, and the index opens on another thread meanwhile.
struct Launch: Sendable {
  let paths: FolioPaths
  let configuration: FolioConfiguration
  let registry: DomainRegistry
  let domain: Domain
  /// The start folder, or nil when a remote location could not say yet (it needs a sign-in, or
  /// its server is unreachable): the UI opens anyway and the first listing asks for the sign-in
  /// or shows the error, instead of failing before the terminal starts.
  let folder: Item?
  /// The path asked for (where the unresolved start folder is).
  let path: ItemPath
  let index: Task<Result<WorkingSetIndex, ProviderError>, Never>
}

/// `folio [PATH]`: the full-screen Files app.
struct BrowseCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "browse",
    abstract: "Open the terminal UI at PATH (the default command: `folio [PATH]`).",
    discussion: """
      Keys: arrows or hjkl move, Enter opens, Backspace goes up, Tab switches Browse/Recents, \
      m opens the context menu, ? lists every key, q quits. Bindings: [keys] in config.toml.
      Themes: default-dark, light, high-contrast, monochrome (Themes/*.toml; see the README).
      """)

  @Argument(help: "The folder to open (default: the current one), or NAME:/path.") var path: String = "."
  @Option(help: "The theme to use (overrides config.toml's theme).") var theme: String?
  @Flag(help: "Only ASCII glyphs (automatic when the locale is not UTF-8).") var ascii = false
  @Flag(help: "No colors (as NO_COLOR does).") var noColor = false
  @Flag(help: "Enable the mouse: right click opens the menu, the wheel scrolls.") var mouse = false
  @Option(
    name: .customLong("cwd-file"),
    help: ArgumentHelp(
      "On quit, write the folder Folio was in to FILE, for a shell function to cd there (see the README).",
      discussion: "Nothing is written when Folio was on a remote location or in Recently Deleted.",
      valueName: "FILE"))
  var cwdFile: String?
  @Option(
    name: .customLong("chooser-file"),
    help: ArgumentHelp(
      "Picker mode: Enter on a file (or with marked items) writes their paths to FILE, one per line, and quits; q quits writing nothing.",
      valueName: "FILE"))
  var chooserFile: String?

  /// What was asked for, as plain values.
  var options: BrowseOptions {
    BrowseOptions(
      path: path, theme: theme, ascii: ascii, noColor: noColor, mouse: mouse, cwdFile: cwdFile, chooserFile: chooserFile)
  }

  @MainActor
  func run() async throws {
    try await options.browse(hints: [:])
  }

  /// The UI, with `hints` for the sign-in prompts of some locations (`folio demo` shows its
  /// password there).
  @MainActor
  func browse(hints: [DomainIdentifier: String]) async throws {
    try await options.browse(hints: hints)
  }
}

/// What `folio [PATH]` was asked for, as plain values: `folio` alone runs from the defaults
/// without going through ArgumentParser, whose parse of the command tree was ~19 M instructions
/// of a launch (issue 13, docs/BENCHMARKS.md).
struct BrowseOptions: Sendable {
  var path = "."
  var theme: String?
  var ascii = false
  var noColor = false
  var mouse = false
  var cwdFile: String?
  var chooserFile: String?

  /// The launch runs what the first screen waits for side by side (docs/BENCHMARKS.md, cause 1):
  /// the start folder's first page is asked for as soon as the folder is known, and the index
  /// opens, the theme loads and the terminal starts while the provider reads it.
  ///
  /// - Parameter hints: for the sign-in prompts of some locations (`folio demo` shows its
  ///   password there).
  @MainActor
  func browse(hints: [DomainIdentifier: String]) async throws {
    // Large temporary buffers (a million-entry folder's names, sort keys, pages) get mappings of
    // their own and go back to the system when freed: with glibc's sliding threshold, whether
    // they landed in a heap that keeps them resident depended on the order of frees (RSS at 1M
    // varied 47.7 / 50.7 MiB between identical launches).
    MallocThreshold.pin()
    let utf8 = DisplayWidth.setUp()
    let launch: Launch
    // SSH hosts ask their questions in the browser's box; until the loop runs (the start folder
    // is resolved before the terminal is set up) the broker refuses them, and the first listing
    // asks again with the box on screen.
    let signIn = SignInBroker()
    switch await prepare(signIn: signIn) {
    case .success(let l): launch = l
    case .failure(let error):
      Console.err(error.message)
      throw ExitCode(Console.exitCode(for: error))
    }
    // A terminal the browser cannot drive (TERM=dumb, unset, unknown) is said in one line, before
    // anything is written to it.
    do { _ = try NCursesTerminal.checkTerminal() } catch {
      Console.err(error.description)
      throw ExitCode(1)
    }
    let domain = launch.domain
    let start: FolderLocation
    if let folder = launch.folder {
      start = FolderLocation(
        domain: domain.identifier, identifier: folder.identifier, path: folder.path, name: folder.filename.displayString)
    } else {
      start = FolderLocation(
        domain: domain.identifier, identifier: nil, path: launch.path,
        name: launch.path.lastComponent?.displayString ?? domain.displayName)
    }
    var state = AppState(width: 80, height: 24, start: start, locations: [])
    // The sort and hidden-files choice of the last run (a few bytes, read before the first page
    // is asked for: that page is sorted by it).
    let choices = ViewChoices.load(from: launch.paths.viewChoicesFile)
    state.sort = choices.sort
    state.showHidden = choices.showHidden
    state.homeFolder = ItemAddress.normalize(Array(launch.paths.home.path.utf8))
    state.openWithHistory = OpenWithHistory.load(from: launch.paths.openWithHistoryFile).commands
    // The first page of the start folder, exactly as the app's first enumeration will ask for it.
    let firstPage = launch.folder.map { folder in
      FirstPagePrefetch(
        EnumerationRequest(
          container: folder.identifier, sort: state.sort, includeHidden: state.showHidden,
          suggestedPageSize: state.browse.list.pageSize),
        on: domain.provider)
    }
    let themeName = theme ?? launch.configuration.theme
    let loaded: Theme
    do {
      loaded = try Theme.load(named: noColor ? "monochrome" : themeName, searchPaths: Theme.defaultSearchPaths())
    } catch {
      firstPage?.cancel()
      Console.err(TerminalText.escape(error.description))
      throw ExitCode(3)
    }
    // The terminal and the launch's first frame need nothing from the index (issue 13).
    let terminal: NCursesTerminal
    do {
      terminal = try NCursesTerminal(theme: loaded, colorMode: noColor ? .none : .auto, mouse: mouse)
    } catch {
      firstPage?.cancel()
      Console.err(error.description)
      throw ExitCode(1)
    }
    defer { terminal.shutdown() }
    let size = terminal.size
    state.width = size.width
    state.height = size.height
    state.ascii = ascii || !utf8
    state.sidebar.locations = BrowseRemote.locations(launch.registry, configuration: launch.configuration, hints: hints)
    switch launch.configuration.preview.pane {
    case .auto: state.preview.visibility = .automatic
    case .on: state.preview.visibility = .shown
    case .off: state.preview.visibility = .hidden
    }
    // Checked when the configuration was loaded (FolioConfiguration.loadChecked).
    state.keyMap = KeyMap.standard.overridden(by: launch.configuration.keyBindings).0
    state.isPicker = chooserFile != nil
    if state.isPicker { state.message = StatusMessage("Picker: Enter chooses a file (or the marked items), q cancels") }
    if let firstPage, case .page(let page) = await LaunchRace.first(page: firstPage, index: launch.index) {
      // The folder was read before the index was open (a new index is created and migrated):
      // its rows go on screen now, and the app's first page, with tags and last use, replaces them.
      state.showLaunchPage(page.items, total: page.totalCount, isComplete: page.nextPage == nil)
      terminal.present(AppView.render(state))
    }
    let index: WorkingSetIndex
    switch await launch.index.value {
    case .success(let i): index = i
    case .failure(let error):
      firstPage?.cancel()
      terminal.shutdown()
      Console.err(error.message)
      throw ExitCode(Console.exitCode(for: error))
    }
    let context = FolioContext.make(
      paths: launch.paths, configuration: launch.configuration, registry: launch.registry, index: index)
    let engine = BrowseRemote.engine(
      registry: context.registry, index: index, configuration: context.configuration, paths: context.paths)
    var services = AppServices(
      registry: context.registry, items: context.items, index: context.index, actions: context.actions,
      openers: context.openers, sync: engine,
      remote: BrowseRemote.hooks(registry: context.registry, configuration: context.configuration, paths: context.paths),
      signIn: signIn, preview: .configured(by: context.configuration, paths: context.paths))
    services.viewChoicesFile = launch.paths.viewChoicesFile
    services.openWithHistoryFile = launch.paths.openWithHistoryFile
    state.customActions = services.customActionEntries()
    let app = BrowserApp(
      state: state, terminal: terminal, services: services, prefetched: firstPage.map { (domain.identifier, $0) })
    // The engine starts beside the UI (it tidies after a crash first): uploads left by an earlier
    // run resume, and each remote location's changes are followed.
    let syncing = engine.map { e in Task.detached { await e.start() } }
    await app.run()
    terminal.shutdown()
    let handOver = ShellHandOver(cwdFile: cwdFile, chooserFile: chooserFile)
    let handOverFailure = handOver.write(after: app.state)
    if let engine {
      await syncing?.value
      await engine.stop()
      if let note = BrowseRemote.pendingNote(engine) { Console.err(note) }
    }
    if let handOverFailure {
      Console.err(handOverFailure.message)
      throw ExitCode(1)
    }
  }

  /// The configuration, the domains and the folder to start in (a file's folder when PATH is a
  /// file), found through the provider alone; the index starts opening first, on its own thread.
  func prepare(signIn: SignInBroker? = nil) async -> Result<Launch, ProviderError> {
    do throws(ProviderError) {
      let paths = FolioPaths.current
      let configuration = try FolioConfiguration.loadChecked(paths: paths)
      let index = Task.detached { () -> Result<WorkingSetIndex, ProviderError> in
        do throws(ProviderError) { return .success(try WorkingSetIndex.open(at: paths.indexFile)) } catch {
          return .failure(error)
        }
      }
      do throws(ProviderError) {
        let registry = try FolioContext.makeRegistry(configuration, commandLineHints: false, signIn: signIn)
        let address = try ItemAddress.parse(RawArguments.bytes(of: path), currentDirectory: ItemAddress.currentDirectory)
        let domain = try FolioContext.domain(for: address, registry: registry, configuration: configuration)
        let path = FolioContext.path(for: address, in: domain)
        var folder: Item?
        do throws(ProviderError) {
          var found = try await domain.provider.item(at: path)
          if !found.isFolder { found = try await domain.provider.item(at: found.path.parent) }
          folder = found
        } catch where domain.isSynced && [.notAuthenticated, .serverUnreachable, .serverBusy].contains(error.code) {
          // The UI opens on it anyway: its first listing asks for the sign-in (or shows why the
          // server cannot answer), and the rest of Folio stays usable meanwhile.
          folder = nil
        }
        return .success(
          Launch(
            paths: paths, configuration: configuration, registry: registry, domain: domain, folder: folder, path: path,
            index: index))
      } catch {
        // The index's own error, if it has one, is the one a person must fix first (as before).
        if case .failure(let indexError) = await index.value { return .failure(indexError) }
        return .failure(error)
      }
    } catch {
      return .failure(error)
    }
  }
}

/// What the launch has first: the start folder's first page, or the index.
///
/// A new index is created and migrated at the first launch (and at every launch of the
/// benchmark's fresh HOME), `fdatasync`s included, while the folder is read. When the page wins,
/// the browser draws it at once (``AppState/showLaunchPage(_:total:isComplete:)``) instead of
/// waiting for the index before its first frame (issue 13: "the first screen never waits for the
/// index"). Neither read is cancelled: the loser still finishes, for the app that starts next.
enum LaunchRace: Sendable {
  case page(ItemPage)
  case index

  /// - Returns: `.page` when the first page was read before the index was open; `.index`
  ///   otherwise, and when the read failed (the app shows why).
  static func first(
    page: FirstPagePrefetch, index: Task<Result<WorkingSetIndex, ProviderError>, Never>
  ) async -> LaunchRace {
    await withCheckedContinuation { (continuation: CheckedContinuation<LaunchRace, Never>) in
      let finish = ResumeOnce(continuation)
      Task.detached {
        _ = await index.value
        finish.resume(.index)
      }
      Task.detached {
        guard let p = await page.peek() else { return }
        finish.resume(.page(p))
      }
    }
  }
}

/// A continuation resumed by whichever of two tasks comes first.
private final class ResumeOnce: @unchecked Sendable {
  private let lock = NSLock()
  private var continuation: CheckedContinuation<LaunchRace, Never>?

  init(_ continuation: CheckedContinuation<LaunchRace, Never>) { self.continuation = continuation }

  func resume(_ value: LaunchRace) {
    let c: CheckedContinuation<LaunchRace, Never>? = lock.withLock {
      defer { continuation = nil }
      return continuation
    }
    c?.resume(returning: value)
  }
}
