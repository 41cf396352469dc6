import ArgumentParser
import BrowserApp
import BrowserUI
import FolioConfig
import Foundation
import ProviderAPI
import ProviderCore
import TerminalBackend

struct Prepared: Sendable {
  let context: FolioContext
  let domain: Domain
  let folder: Item
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

  @MainActor
  func run() async throws {
    let utf8 = DisplayWidth.setUp()
    let prepared: Prepared
    switch await prepare() {
    case .success(let p): prepared = p
    case .failure(let error):
      Console.err(error.message)
      throw ExitCode(Console.exitCode(for: error))
    }
    let context = prepared.context
    let start = (prepared.domain, prepared.folder)
    let themeName = theme ?? context.configuration.theme
    let loaded: Theme
    do {
      loaded = try Theme.load(named: noColor ? "monochrome" : themeName, searchPaths: Theme.defaultSearchPaths())
    } catch {
      Console.err(TerminalText.escape(error.description))
      throw ExitCode(3)
    }
    let terminal: NCursesTerminal
    do {
      terminal = try NCursesTerminal(theme: loaded, colorMode: noColor ? .none : .auto, mouse: mouse)
    } catch {
      Console.err(error.description)
      throw ExitCode(1)
    }
    defer { terminal.shutdown() }
    let size = terminal.size
    let (domain, folder) = start
    var state = AppState(
      width: size.width, height: size.height,
      start: FolderLocation(domain: domain.identifier, identifier: folder.identifier, path: folder.path, name: folder.filename.displayString),
      locations: context.registry.domains.map { d in
        LocationEntry(
          domain: d.identifier, name: d.displayName,
          root: FolderLocation(domain: d.identifier, identifier: .root, path: d.localRoot ?? .root, name: d.displayName))
      })
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
        openers: context.openers))
    await app.run()
  }

  /// The context and the folder to start in (a file's folder when PATH is a file).
  func prepare() async -> Result<Prepared, ProviderError> {
    do throws(ProviderError) {
      let context = try FolioContext.make()
      let (domain, item) = try await context.resolve(path)
      if item.isFolder { return .success(Prepared(context: context, domain: domain, folder: item)) }
      let folder = try await context.items.item(at: item.path.parent, in: domain)
      return .success(Prepared(context: context, domain: domain, folder: folder))
    } catch {
      return .failure(error)
    }
  }
}
