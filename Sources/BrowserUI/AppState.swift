import Foundation
import ProviderAPI

public enum Tab: Int, Sendable, Equatable, CaseIterable {
  case browse, recents

  public var title: String { self == .browse ? "Browse" : "Recents" }
}

/// What a sign-in form calls its two fields.
public struct CredentialLabels: Sendable, Equatable {
  public var user: String
  public var secret: String
  public init(user: String, secret: String) {
    self.user = user
    self.secret = secret
  }
}

/// A location in the sidebar: This Computer and each configured domain.
public struct LocationEntry: Sendable, Equatable {
  public var domain: DomainIdentifier
  public var name: String
  public var root: FolderLocation
  /// "online", "offline", "needs sign-in", … (local domains are always available). For a remote
  /// location the reducer writes it from `status` and `syncing`.
  public var state: String?
  /// A location whose files live on a server: opened through the sync engine, with its state.
  public var isRemote: Bool
  /// The last known state of a remote location (nil: local, or not known).
  public var status: LocationStatus?
  /// Its transfers not done yet (queued, running or waiting).
  public var syncing = 0
  /// The sync engine holds its uploads for want of space (from its throttle to its release). A
  /// server can answer a status check, and be under its quota, while a file still does not fit:
  /// the sidebar then keeps "over quota" instead of going back to "online".
  public var isHeldOverQuota = false
  /// The user the location signs in as (prefilled in the sign-in prompt).
  public var userName: String?
  /// A line the sign-in prompt shows (`folio demo` prints its password there).
  public var signInHint: String?
  /// Whether deleting moves to a trash there (an SSH host has none: delete is for good, asked first).
  public var hasTrash = true
  /// Whether a write there is refused when the item changed elsewhere since it was read. False for
  /// a server that ignores conditional writes (nginx, `rclone serve`, some S3 stores: issue 11
  /// §1): Info says it cannot detect conflicting edits. A fact of the location's configuration (its
  /// probe), not a state that comes and goes like `status`.
  public var detectsConflictingEdits = true
  /// What the sign-in form calls its two fields (a bucket: "Access key", "Secret key").
  public var credentialLabels = Self.defaultCredentialLabels
  public static let defaultCredentialLabels = CredentialLabels(user: "User", secret: "Password")
  /// The location signs in by asking questions while it connects (an SSH host: ssh asks for a
  /// password, a passphrase or a host key, answered in the question box): a refused sign-in
  /// opens no user-and-password form, it says ssh's reason.
  public var signsInByQuestions = false

  public init(
    domain: DomainIdentifier, name: String, root: FolderLocation, state: String? = nil, isRemote: Bool = false,
    userName: String? = nil, signInHint: String? = nil, hasTrash: Bool = true
  ) {
    self.hasTrash = hasTrash
    self.domain = domain
    self.name = name
    self.root = root
    self.state = state
    self.isRemote = isRemote
    self.userName = userName
    self.signInHint = signInHint
  }
}

/// A folder being shown: which domain, which item, where.
public struct FolderLocation: Sendable, Equatable, Hashable {
  public var domain: DomainIdentifier
  /// nil when only the path is known (the parent of a folder): the app resolves it.
  public var identifier: ItemIdentifier?
  public var path: ItemPath
  public var name: String

  public init(domain: DomainIdentifier, identifier: ItemIdentifier?, path: ItemPath, name: String) {
    self.domain = domain
    self.identifier = identifier
    self.path = path
    self.name = name
  }
}

/// What the Browse list shows.
public enum BrowseLocation: Sendable, Equatable {
  case folder(FolderLocation)
  /// Recently Deleted of a domain.
  case trash(DomainIdentifier)

  public var domain: DomainIdentifier {
    switch self {
    case .folder(let f): return f.domain
    case .trash(let d): return d
    }
  }
}

/// An item from the index, with its location (Recents, Favorites, search results).
public struct IndexedRow: Sendable, Equatable {
  public var item: Item
  public var domain: DomainIdentifier
  public var isDeleted: Bool

  public init(item: Item, domain: DomainIdentifier, isDeleted: Bool = false) {
    self.item = item
    self.domain = domain
    self.isDeleted = isDeleted
  }
}

/// A custom action the reducer can offer: its rule is evaluated on the items at hand, never by
/// calling a provider.
public struct CustomActionEntry: Sendable, Equatable {
  public var identifier: ActionIdentifier
  public var name: String
  public var rule: ActivationRule
  /// nil for actions from config (any domain); a domain for provider-declared ones.
  public var domain: DomainIdentifier?

  public init(identifier: ActionIdentifier, name: String, rule: ActivationRule, domain: DomainIdentifier?) {
    self.identifier = identifier
    self.name = name
    self.rule = rule
    self.domain = domain
  }
}

public struct BrowseState: Sendable, Equatable {
  public var location: BrowseLocation
  public var list: PagedList
  /// The enumeration whose pages are merged; older tickets' pages are dropped.
  public var ticket: UInt64 = 0
  public var cursor = 0
  public var top = 0
  public var marked: Set<ItemIdentifier> = [] {
    didSet { if markedItems.count != marked.count { markedItems = markedItems.filter { marked.contains($0.key) } } }
  }
  /// The marked items themselves: their pages may be evicted before the selection is used.
  public var markedItems: [ItemIdentifier: Item] = [:]
  /// Filter-as-you-type over the loaded rows (nil: no filter).
  public var filter: String?
  /// What the filter matches, derived from `filter`, `uploads` and `list` and kept up to date by
  /// the reducer (left out of `==`: it is those fields again).
  public var filterMatches = FilterMatches()
  public var loading: EnumerationProgress?
  public var isLoading = true
  public var error: ProviderError?
  /// Folders visited, for Backspace to return with the cursor where it was.
  public var back: [FolderLocation] = []
  /// The item the cursor was on in each folder visited, to put it back on return.
  public var cursorMemory: [ItemPath: ItemIdentifier] = [:]
  /// The item to put the cursor on once its page arrives.
  public var pendingSelection: ItemIdentifier?
  /// The same by path, for a folder whose identifier is not known (reached by Backspace).
  public var pendingSelectionPath: ItemPath?
  /// G on a list of unknown length: the cursor goes to the last row once the end is known.
  public var pendingBottom = false
  /// The pages a filter asked for last (``AppState/readForFilter()``): the next chunk is asked for
  /// once they are here.
  public var filterChunk: ClosedRange<Int>?
  /// A reload of the folder on screen keeps showing its rows until the new listing's first page
  /// comes, then replaces them: a remote folder reloads after every change and every finished
  /// upload, and blanking it for a round trip each time made it flicker.
  public var replaceOnFirstPage = false
  /// New files on their way into this folder, listed above the provider's rows
  /// (AppState+Uploads.swift).
  public var uploads: [UploadRow] = []
  /// The list shows only what this computer knows of the folder (the index's working-set and
  /// downloaded items), because its server cannot be reached: this is why.
  public var offline: ProviderError?
  /// `A` or `*` reading the rest of the folder to mark it (AppState+Marks.swift).
  public var bulkMarking: BulkMarking?
  /// The item marked last: `M` marks from it to the cursor.
  public var lastMarked: ItemIdentifier?

  public static func == (a: BrowseState, b: BrowseState) -> Bool {
    a.location == b.location && a.list == b.list && a.ticket == b.ticket && a.cursor == b.cursor && a.top == b.top
      && a.marked == b.marked && a.filter == b.filter && a.loading == b.loading && a.isLoading == b.isLoading
      && a.error == b.error && a.back == b.back && a.cursorMemory == b.cursorMemory
      && a.pendingSelection == b.pendingSelection && a.pendingSelectionPath == b.pendingSelectionPath
      && a.pendingBottom == b.pendingBottom && a.markedItems == b.markedItems && a.uploads == b.uploads
      && a.offline == b.offline && a.bulkMarking == b.bulkMarking && a.lastMarked == b.lastMarked
  }
}

public struct RecentsState: Sendable, Equatable {
  public var rows: [IndexedRow] = []
  public var cursor = 0
  public var top = 0
  public var tagFilter: String?
  /// A search over the index (from `/` in Recents).
  public var search: String?
  public var searchResults: [IndexedRow]?
  /// Entries whose item could not be found when last checked (Ctrl-R, or Enter on one): shown
  /// "(missing)"; Enter offers to remove them.
  public var missing: Set<ItemKey> = []
}

/// A sidebar entry and what choosing it does.
public enum SidebarEntry: Sendable, Equatable {
  case heading(String)
  case location(LocationEntry)
  case favorite(IndexedRow)
  case tag(name: String, count: Int)
  case trash(DomainIdentifier)
}

public struct SidebarState: Sendable, Equatable {
  public var locations: [LocationEntry] = []
  public var favorites: [IndexedRow] = []
  public var tags: [(name: String, count: Int)] = []
  public var focused = false
  public var cursor = 1

  public static func == (a: SidebarState, b: SidebarState) -> Bool {
    a.locations == b.locations && a.favorites == b.favorites && a.tags.map(\.name) == b.tags.map(\.name)
      && a.tags.map(\.count) == b.tags.map(\.count) && a.focused == b.focused && a.cursor == b.cursor
  }

  /// The entries in display order.
  public var entries: [SidebarEntry] {
    var e: [SidebarEntry] = [.heading("Locations")]
    e += locations.map { .location($0) }
    if !favorites.isEmpty {
      e.append(.heading("Favorites"))
      e += favorites.map { .favorite($0) }
    }
    if !tags.isEmpty {
      e.append(.heading("Tags"))
      e += tags.map { .tag(name: $0.name, count: $0.count) }
    }
    // Each location has its own Recently Deleted (a server keeps what was deleted there): with
    // several, one entry each under a heading, so what was deleted on a server can be found and
    // restored here too (only this computer's was listed).
    if locations.count > 1 {
      e.append(.heading("Recently Deleted"))
      e += locations.filter(\.hasTrash).map { .trash($0.domain) }
    } else {
      e.append(.heading(""))
      e.append(.trash(locations.first?.domain ?? .local))
    }
    return e
  }
}

/// What a symbolic link leads to, its links followed.
public enum LinkTarget: Sendable, Equatable {
  case folder
  /// A file, or anything else that is there.
  case other
  /// Nothing: the target is missing.
  case broken
  /// Links that lead back to themselves.
  case loop
}

/// Everything the UI shows, as a value. Only the reducer changes it.
public struct AppState: Sendable, Equatable {
  public var width: Int
  public var height: Int
  public var tab: Tab = .browse
  public var browse: BrowseState
  public var recents = RecentsState()
  public var sidebar = SidebarState()
  public var overlay: Overlay?
  public var message: StatusMessage?
  public var sort = ItemSort()
  public var showHidden = false
  public var ascii = false
  public var customActions: [CustomActionEntry] = []
  public var keyMap: KeyMap = .standard
  /// What each symbolic link listed leads to, by the link's identifier: found off the loop once
  /// its page is shown (`Action.linkTargetsResolved`), since `stat` through a link into a dead
  /// mount hangs.
  public var linkTargets: [ItemIdentifier: LinkTarget] = [:]
  /// A key waiting for its second half ("g" of "gg").
  public var pendingKey: String?
  public var nextTicket: UInt64 = 1
  public var isQuitting = false
  public var spinnerPhase = 0
  /// Dates are shown in this zone (tests fix it); nil is the system's local time (``LocalTime``),
  /// which needs no ICU before the first frame.
  public var timeZone: TimeZone?
  /// Transfers of remote items, live from the sync engine (the `↓ 42%` badges). Kept beside the
  /// items, not in them: the list's pages are the provider's answers, the percent moves on.
  public var transfers: [ItemKey: TransferState] = [:]
  /// Each remote domain's declared decorations (Locked, Shared by …), made safe to draw.
  public var decorations: [DomainIdentifier: [DecorationStyle]] = [:]
  /// A remote file being made available to open (downloaded first): the status line says so.
  public var opening: Opening?
  /// What `y` copied, for `p` to paste (AppState+Clipboard.swift).
  public var clipboard: Clipboard?
  /// The questions locations ask while they connect (AppState+SignInQuestions.swift): the first
  /// is in the box, drawn above any other; the others wait their turn.
  public var signInQuestions: [SignInQuestionState] = []
  /// Locations whose question the person refused: their background work (the poller, status
  /// checks) is not allowed to ask again until a key of theirs opens or reloads the location.
  public var signInDeclined: Set<DomainIdentifier> = []
  /// The preview pane (AppState+Preview.swift).
  public var preview = PreviewPaneState()
  /// Picker mode (`folio --chooser-file`, AppState+Picker.swift): Enter on a file, or with marks,
  /// chooses instead of opening, and Folio quits.
  public var isPicker = false
  /// What the picker chose, set as it quits; nil when it quit without choosing (q, Ctrl-C).
  public var chosen: [ItemPath]?
  /// The last command run with `!`, proposed the next time (Enter runs it again, typing replaces it).
  public var lastShellCommand: String?
  /// The folders shown before and after this one (`H` / `L`, NavigationHistory.swift).
  public var history = NavigationHistory()
  /// The Go to prompt's completion and lookup (AppState+GoTo.swift).
  public var goTo: GoToState?
  /// The home folder on this computer (`~`, and `~/…` in Go to); nil when not known.
  public var homeFolder: ItemPath?
  /// What `u` and `U` take back and do again (AppState+Undo.swift).
  public var undo = UndoHistory()
  /// The last commands of Open With…, newest first (Up and Down in its prompt).
  public var openWithHistory: [String] = []
  /// The size of the folder in Info, counted on demand (AppState+FolderSize.swift).
  public var folderSize: FolderSizeState?
  /// Downloads cancelled from the menu: their last progress events, still on their way, must not
  /// bring the badge back (AppState+Remote.swift).
  public var cancelledDownloads: Set<Int64> = []
  /// Every status message of the session (`W` lists them: MessageLog.swift).
  public var messageLog = MessageLog()

  public init(width: Int, height: Int, start: FolderLocation, locations: [LocationEntry]) {
    self.width = width
    self.height = height
    browse = BrowseState(location: .folder(start), list: PagedList(pageSize: 200))
    sidebar.locations = locations
  }

  /// Where everything is on this screen (``Layout``): the reducer scrolls by its rows, the views
  /// draw in its rectangles.
  public var layout: Layout {
    Layout(
      width: width, height: height, sidebar: tab == .browse, pane: isPreviewShown,
      paneFull: isPreviewShown && preview.full)
  }

  /// Whether the preview pane is on screen: as the person chose, else from 120 columns.
  public var isPreviewShown: Bool {
    switch preview.visibility {
    case .shown: return true
    case .hidden: return false
    case .automatic: return width >= Layout.paneAutomaticWidth
    }
  }

  /// Columns of the sidebar (0 when collapsed on narrow terminals).
  public var sidebarWidth: Int { layout.sidebar.width }
}

/// A remote file on its way to its opener: downloaded first when it is not here.
public struct Opening: Sendable, Equatable {
  public var key: ItemKey
  public var name: String
  public init(key: ItemKey, name: String) {
    self.key = key
    self.name = name
  }
}

public struct StatusMessage: Sendable, Equatable {
  public var text: String
  public var isError: Bool
  public init(_ text: String, isError: Bool = false) {
    self.text = text
    self.isError = isError
  }
}
