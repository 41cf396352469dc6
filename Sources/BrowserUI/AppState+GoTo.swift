import ProviderAPI

/// Where a Go to asks to go: a path in a location, as typed. The app looks it up (off the loop)
/// and answers with ``Action/goToResolved(_:_:)``: a folder is shown, a file's folder is shown
/// with the cursor on it, and a path that is not there leaves everything as it was.
public struct GoToRequest: Sendable, Equatable {
  /// What was typed (`~` for the home key): said back when it cannot be reached.
  public var text: String
  public var domain: DomainIdentifier
  public var path: ItemPath

  public init(text: String, domain: DomainIdentifier, path: ItemPath) {
    self.text = text
    self.domain = domain
    self.path = path
  }
}

/// The Go to prompt's state beside its line editor: the folder names Tab completes from, and the
/// lookup under way.
public struct GoToState: Sendable, Equatable {
  /// The folder names of one folder, as last listed for completion.
  public struct Listing: Sendable, Equatable {
    public var domain: DomainIdentifier
    public var folder: ItemPath
    public var names: [String]
  }
  public var listing: Listing?
  /// The listing asked for (`Effect.listCompletions`); an answer under another ticket is stale.
  public var listingTicket: UInt64 = 0
  /// A Tab waits for that listing: it completes when the listing comes.
  public var tabWaits = false
  /// The Go to being looked up; nil once answered or given up (Esc).
  public var resolving: GoToRequest?
}

/// Go to a path (`:`), the home folder (`~`), and Tab completion of folder names.
///
/// What is typed is read as every `folio` command reads its arguments (``ItemAddress``): an
/// absolute path is on this computer, `NAME:/path` is in the location NAME, and anything else is
/// relative to the folder on screen. `~` and `~/…` are the home folder. Completion never waits on
/// a folder: the names come from the rows already listed when the folder is on screen and whole,
/// else from a listing the app makes off the loop (`Effect.listCompletions`), and the Tab that
/// asked completes when it comes.
extension AppState {
  /// `:`: the Go to prompt.
  mutating func promptForGoTo() -> [Effect] {
    overlay = .prompt(PromptState(title: "Go to:", purpose: .goTo, editor: LineEditor("")))
    goTo = GoToState()
    return []
  }

  /// `~`: the home folder.
  mutating func goHome() -> [Effect] {
    guard let home = homeFolder else {
      message = StatusMessage("The home folder is not known ($HOME is not set)", isError: true)
      return []
    }
    let request = GoToRequest(text: "~", domain: .local, path: home)
    goTo = GoToState(resolving: request)
    return [.resolveGoTo(request)]
  }

  /// Where `text` points, or why it points nowhere.
  func goToTarget(_ text: String) -> Result<(domain: DomainIdentifier, path: ItemPath), GoToProblem> {
    var typed = text
    if typed == "~" || typed.hasPrefix("~/") {
      guard let home = homeFolder else { return .failure(GoToProblem("the home folder is not known ($HOME is not set)")) }
      typed = String(decoding: home.bytes, as: UTF8.self) + typed.dropFirst()
    }
    let here: FolderLocation? = { if case .folder(let f) = browse.location { return f } else { return nil } }()
    let address: ItemAddress
    do throws(ProviderError) {
      address = try ItemAddress.parse(Array(typed.utf8), currentDirectory: here?.path ?? .root)
    } catch {
      return .failure(GoToProblem(error.message))
    }
    if let name = address.domain {
      guard let location = sidebar.locations.first(where: { $0.domain == name }) else {
        let known = sidebar.locations.map(\.domain.rawValue).joined(separator: ", ")
        return .failure(
          GoToProblem(
            "no location named '\(TerminalText.escape(name.rawValue))' (known: \(TerminalText.escape(known)));"
              + " for a file with a colon in its name write ./\(TerminalText.escape(name.rawValue)):…"))
      }
      // A local location's paths are under its root, as on the command line.
      let root = location.root.path
      let path = address.path == .root ? root : ItemPath(bytes: (root == .root ? [] : root.bytes) + address.path.bytes)
      return .success((name, path))
    }
    // A relative path stays in the location on screen (a remote folder's subfolder); an absolute
    // one is on this computer.
    if typed.hasPrefix("/") || here == nil { return .success((.local, address.path)) }
    return .success((here!.domain, address.path))
  }

  /// Enter in the Go to prompt: the lookup starts; the prompt stays open until it answers, so a
  /// path that is not there can be fixed in place.
  mutating func submitGoTo(_ p: PromptState) -> [Effect] {
    let text = p.editor.string
    guard text.contains(where: { $0 != " " }) else {
      overlay = nil
      goTo = nil
      return []
    }
    var p = p
    switch goToTarget(text) {
    case .failure(let problem):
      p.error = problem.message
      overlay = .prompt(p)
      return []
    case .success(let target):
      let request = GoToRequest(text: text, domain: target.domain, path: target.path)
      var state = goTo ?? GoToState()
      state.resolving = request
      goTo = state
      p.error = nil
      p.note = "Looking for it…"
      overlay = .prompt(p)
      return [.resolveGoTo(request)]
    }
  }

  /// The answer to a Go to: the folder (or the file's folder, the cursor on the file), or the
  /// reason in the prompt (or the status line, for `~`), nothing else changed.
  mutating func goToResolved(_ request: GoToRequest, _ result: Result<Item, ProviderError>) -> [Effect] {
    guard goTo?.resolving == request else { return [] }
    goTo?.resolving = nil
    let prompt: PromptState? = { if case .prompt(let p) = overlay, p.purpose == .goTo { return p } else { return nil } }()
    switch result {
    case .failure(let error):
      let text = TerminalText.escapeMessage("Cannot go to \(request.text): \(error.message)")
      if var p = prompt {
        p.error = text
        p.note = nil
        overlay = .prompt(p)
      } else {
        message = StatusMessage(text, isError: true)
      }
      return []
    case .success(let item):
      if prompt != nil { overlay = nil }
      goTo = nil
      tab = .browse
      sidebar.focused = false
      let name = locationName(of: request.domain, path: item.path)
      if item.isFolder {
        return go(
          to: .folder(FolderLocation(domain: request.domain, identifier: item.identifier, path: item.path, name: name)),
          pushBack: true)
      }
      let folder = item.path.parent
      return go(
        to: .folder(
          FolderLocation(
            domain: request.domain, identifier: nil, path: folder,
            name: locationName(of: request.domain, path: folder))),
        select: item.identifier, pushBack: true)
    }
  }

  /// What the path bar calls a folder: its name, or its location's at the root.
  func locationName(of domain: DomainIdentifier, path: ItemPath) -> String {
    if let last = path.lastComponent { return last.displayString }
    return sidebar.locations.first { $0.domain == domain }?.name ?? "/"
  }

  // MARK: - Completion

  /// Tab in the Go to prompt: completes the last component to the longest prefix the folder names
  /// share; when there is nothing to add, the candidates are listed under the line.
  mutating func completeGoTo(_ p: PromptState) -> [Effect] {
    var p = p
    let text = p.editor.string
    // "NAME:" is that location's root.
    if !text.contains("/"), text.hasSuffix(":"), DomainIdentifier.isValid(String(text.dropLast())) {
      p.editor = LineEditor(text + "/")
      overlay = .prompt(p)
      return []
    }
    if text == "~" {
      p.editor = LineEditor("~/")
      overlay = .prompt(p)
      return []
    }
    let slash = text.lastIndex(of: "/")
    let dirText = slash.map { String(text[...$0]) } ?? ""
    let prefix = slash.map { String(text[text.index(after: $0)...]) } ?? text
    let folderTarget: Result<(domain: DomainIdentifier, path: ItemPath), GoToProblem> =
      dirText.isEmpty ? goToTarget(".") : goToTarget(dirText)
    guard case .success(let folder) = folderTarget else {
      if case .failure(let problem) = folderTarget { p.error = problem.message }
      overlay = .prompt(p)
      return []
    }
    var state = goTo ?? GoToState()
    if let listing = state.listing, listing.domain == folder.domain, listing.folder == folder.path {
      state.tabWaits = false
      goTo = state
      complete(&p, dirText: dirText, prefix: prefix, names: listing.names)
      overlay = .prompt(p)
      return []
    }
    // The folder on screen, whole: its rows are the names, nothing to ask.
    if case .folder(let here) = browse.location, here.domain == folder.domain, here.path == folder.path,
      browse.list.complete || browse.list.total != nil, browse.list.pages.values.reduce(0, { $0 + $1.count }) >= browse.list.count
    {
      let names = browse.list.loadedItems.filter(\.isFolder).map(\.filename)
        .filter { $0.utf8String == $0.displayString }.map(\.displayString)
      state.listing = GoToState.Listing(domain: folder.domain, folder: folder.path, names: names)
      state.tabWaits = false
      goTo = state
      complete(&p, dirText: dirText, prefix: prefix, names: names)
      overlay = .prompt(p)
      return []
    }
    state.listingTicket = nextTicket
    nextTicket += 1
    state.tabWaits = true
    state.listing = nil
    goTo = state
    p.note = "Listing the folders…"
    overlay = .prompt(p)
    return [.listCompletions(ticket: state.listingTicket, domain: folder.domain, folder: folder.path)]
  }

  /// A folder's names for completion arrived: a Tab waiting on them completes now.
  mutating func completionsListed(ticket: UInt64, domain: DomainIdentifier, folder: ItemPath, _ result: Result<[ItemName], ProviderError>) -> [Effect] {
    guard var state = goTo, state.listingTicket == ticket, case .prompt(var p) = overlay, p.purpose == .goTo else { return [] }
    switch result {
    case .failure(let error):
      state.tabWaits = false
      goTo = state
      p.note = nil
      p.error = TerminalText.escapeMessage("Cannot list \(folder.displayString): \(error.message)")
      overlay = .prompt(p)
      return []
    case .success(let names):
      // Only names that can be typed back as they are shown: one shown escaped would not be
      // found under its escapes.
      let typeable = names.filter { $0.utf8String == $0.displayString }.map(\.displayString)
      state.listing = GoToState.Listing(domain: domain, folder: folder, names: typeable)
      let waits = state.tabWaits
      state.tabWaits = false
      goTo = state
      p.note = nil
      overlay = .prompt(p)
      return waits ? completeGoTo(p) : []
    }
  }

  /// Completes `prefix` among `names` in the editor, or lists the candidates in the note.
  func complete(_ p: inout PromptState, dirText: String, prefix: String, names: [String]) {
    p.error = nil
    p.note = nil
    // Hidden folders only when asked for with a leading dot, as a shell completes.
    let matches = names.filter { $0.hasPrefix(prefix) && (prefix.hasPrefix(".") || !$0.hasPrefix(".")) }.sorted()
    guard let first = matches.first else {
      p.note = prefix.isEmpty ? "No folders here" : "No folder starts with \u{201C}\(TerminalText.escape(prefix))\u{201D}"
      return
    }
    if matches.count == 1 {
      p.editor = LineEditor(dirText + first + "/")
      return
    }
    let common = matches.dropFirst().reduce(first) { a, b in String(zip(a, b).prefix { $0 == $1 }.map(\.0)) }
    if common.count > prefix.count {
      p.editor = LineEditor(dirText + common)
      return
    }
    let shown = matches.prefix(Self.goToCandidatesShown)
    p.note = shown.joined(separator: " · ") + (matches.count > shown.count ? " · … \(matches.count - shown.count) more" : "")
  }

  /// Candidates listed at most under the Go to line.
  static let goToCandidatesShown = 40
}

/// Why a Go to cannot be: said in its prompt.
public struct GoToProblem: Error, Sendable, Equatable {
  public var message: String
  public init(_ message: String) { self.message = message }
}
