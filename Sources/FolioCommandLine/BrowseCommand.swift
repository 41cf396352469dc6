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
  let folder: Item
  let index: Task<Result<WorkingSetIndex, ProviderError>, Never>
}

/// `folio [PATH]`: the full-screen Files app.
struct BrowseCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "browse",
    abstract: "Open the terminal UI at PATH (the default command: `folio [PATH]`).",
    discussion: """
      Keys: arrows or hjkl move, Enter opens, Backspace goes up, Tab switches Browse/Recents,
      m opens the context menu, ? lists every key, q quits. Bindings: [keys] in config.toml.
      Themes: default-dark, light, high-contrast, monochrome (Themes/*.toml; see the README).
      """)

  @Argument(help: "The folder to open (default: the current one), or NAME:/path.") var path: String = "."
  @Option(help: "The theme to use (overrides config.toml's theme).") var theme: String?
  @Flag(help: "Only ASCII glyphs (automatic when the locale is not UTF-8).") var ascii = false
  @Flag(help: "No colors (as NO_COLOR does).") var noColor = false
  @Flag(help: "Enable the mouse: right click opens the menu, the wheel scrolls.") var mouse = false

  /// The launch runs what the first screen waits for side by side (docs/BENCHMARKS.md, cause 1):
  /// the start folder's first page is asked for as soon as the folder is known, and the index
  /// opens, the theme loads and the terminal starts while the provider reads it.
  @MainActor
  func run() async throws {
    let utf8 = DisplayWidth.setUp()
    let launch: Launch
    switch await prepare() {
    case .success(let l): launch = l
    case .failure(let error):
      Console.err(error.message)
      throw ExitCode(Console.exitCode(for: error))
    }
    let (domain, folder) = (launch.domain, launch.folder)
    var state = AppState(
      width: 80, height: 24,
      start: FolderLocation(domain: domain.identifier, identifier: folder.identifier, path: folder.path, name: folder.filename.displayString),
      locations: launch.registry.domains.map { d in
        LocationEntry(
          domain: d.identifier, name: d.displayName,
          root: FolderLocation(domain: d.identifier, identifier: .root, path: d.localRoot ?? .root, name: d.displayName))
      })
    // The first page of the start folder, exactly as the app's first enumeration will ask for it.
    let firstPage = FirstPagePrefetch(
      EnumerationRequest(
        container: folder.identifier, sort: state.sort, includeHidden: state.showHidden,
        suggestedPageSize: state.browse.list.pageSize),
      on: domain.provider)
    let themeName = theme ?? launch.configuration.theme
    let loaded: Theme
    do {
      loaded = try Theme.load(named: noColor ? "monochrome" : themeName, searchPaths: Theme.defaultSearchPaths())
    } catch {
      firstPage.cancel()
      Console.err(TerminalText.escape(error.description))
      throw ExitCode(3)
    }
    let index: WorkingSetIndex
    switch await launch.index.value {
    case .success(let i): index = i
    case .failure(let error):
      firstPage.cancel()
      Console.err(error.message)
      throw ExitCode(Console.exitCode(for: error))
    }
    let context = FolioContext.make(
      paths: launch.paths, configuration: launch.configuration, registry: launch.registry, index: index)
    let terminal: NCursesTerminal
    do {
      terminal = try NCursesTerminal(theme: loaded, colorMode: noColor ? .none : .auto, mouse: mouse)
    } catch {
      firstPage.cancel()
      Console.err(error.description)
      throw ExitCode(1)
    }
    defer { terminal.shutdown() }
    let size = terminal.size
    state.width = size.width
    state.height = size.height
    state.ascii = ascii || !utf8
    state.customActions = context.registry.domains.flatMap { d in
      context.actions.declaredActions(for: d).map { a -> CustomActionEntry in
        let isProvider: Bool = { if case .provider = a.source { return true } else { return false } }()
        return CustomActionEntry(identifier: a.identifier, name: a.name, rule: a.rule, domain: isProvider ? d.identifier : nil)
      }
    }
    var seen = Set<ActionIdentifier>()
    state.customActions = state.customActions.filter { seen.insert($0.identifier).inserted }
    let (keyMap, problems) = KeyMap.standard.overridden(by: context.configuration.keyBindings)
    state.keyMap = keyMap
    if let p = problems.first { state.message = StatusMessage("config.toml: " + TerminalText.escape(p), isError: true) }
    let app = BrowserApp(
      state: state, terminal: terminal,
      services: AppServices(
        registry: context.registry, items: context.items, index: context.index, actions: context.actions,
        openers: context.openers),
      prefetched: (domain.identifier, firstPage))
    await app.run()
  }

  /// The configuration, the domains and the folder to start in (a file's folder when PATH is a
  /// file), found through the provider alone; the index starts opening first, on its own thread.
  func prepare() async -> Result<Launch, ProviderError> {
    do throws(ProviderError) {
      let paths = FolioPaths.current
      let configuration = try FolioConfiguration.load(paths: paths)
      let index = Task.detached { () -> Result<WorkingSetIndex, ProviderError> in
        do throws(ProviderError) { return .success(try WorkingSetIndex.open(at: paths.indexFile)) } catch {
          return .failure(error)
        }
      }
      do throws(ProviderError) {
        let registry = try FolioContext.makeRegistry(configuration)
        let address = try ItemAddress.parse(RawArguments.bytes(of: path), currentDirectory: ItemAddress.currentDirectory)
        let domain = try FolioContext.domain(for: address, registry: registry, configuration: configuration)
        var folder = try await domain.provider.item(at: FolioContext.path(for: address, in: domain))
        if !folder.isFolder { folder = try await domain.provider.item(at: folder.path.parent) }
        return .success(
          Launch(paths: paths, configuration: configuration, registry: registry, domain: domain, folder: folder, index: index))
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
