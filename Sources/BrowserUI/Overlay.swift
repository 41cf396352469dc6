import ProviderAPI

/// What a menu entry does.
public enum MenuCommand: Sendable, Equatable {
  case open, openWith, info, rename, moveTo, tags, favorite(Bool), delete
  /// Rename in Editor…: the marked items, or every item of the folder (AppState+BulkRename.swift).
  case bulkRename
  case restore, deleteNow, emptyTrash
  /// Restore again after the name was taken where the items go: Keep Both or Replace.
  case restoreTaken(RestoreChoice)
  /// Closes the menu (its "Cancel" entry).
  case cancel
  case newFolder
  /// Folio's clipboard (AppState+Clipboard.swift): Copy takes the items, Paste puts them here.
  case copy, paste
  /// `x`: the selection on the clipboard as cut (no menu entry: Paste's entry says "Move Here").
  case cut
  case custom(ActionIdentifier)
  // Remote items.
  case download, removeDownload, keepDownloaded(Bool), retry
  /// Stops a download under way or waiting: the partial file goes, the item stays in the cloud.
  case cancelDownload
  /// Opens the choice of "Resolve Conflict…".
  case resolveConflict
  case resolve(ConflictChoice, copy: ItemIdentifier?)
}

/// What Restore does when an item's name is taken where it was, as Finder and Files ask.
public enum RestoreChoice: Sendable, Equatable {
  /// The restored item gets "name 2" (the first number free there).
  case keepBoth
  /// The item that took the name goes to Recently Deleted; this one comes back in its place.
  case replace
}

public struct MenuEntry: Sendable, Equatable {
  public var title: String
  public var key: String?
  public var command: MenuCommand
  public init(_ title: String, key: String? = nil, _ command: MenuCommand) {
    self.title = title
    self.key = key
    self.command = command
  }
}

/// A line editor: the text and the cursor, edited with the keys a shell user expects.
public struct LineEditor: Sendable, Equatable {
  public var text: [Character]
  public var cursor: Int
  /// The text is a proposal, shown selected: the first character typed replaces it (Backspace or
  /// Delete clears it), any other key keeps it. New Folder proposes "untitled folder"; typing a
  /// name appended to it ("untitled folderNew Stuff").
  public var isProposal = false

  public init(_ s: String) {
    text = Array(s)
    cursor = text.count
  }

  /// An editor holding `s` as a proposal (``isProposal``).
  public init(proposing s: String) {
    self.init(s)
    isProposal = true
  }

  public var string: String { String(text) }

  /// Applies an editing key; returns false when the key is not an editing key.
  public mutating func apply(_ key: KeyEvent) -> Bool {
    if isProposal {
      isProposal = false
      switch key {
      case .character:
        text = []
        cursor = 0
      case .backspace, .delete, .control("d"):
        text = []
        cursor = 0
        return true
      default: break
      }
    }
    switch key {
    case .character(let c):
      text.insert(c, at: cursor)
      cursor += 1
    case .backspace:
      if cursor > 0 {
        text.remove(at: cursor - 1)
        cursor -= 1
      }
    case .delete, .control("d"):
      if cursor < text.count { text.remove(at: cursor) }
    case .left, .control("b"): cursor = max(0, cursor - 1)
    case .right, .control("f"): cursor = min(text.count, cursor + 1)
    case .home, .control("a"): cursor = 0
    case .end, .control("e"): cursor = text.count
    case .control("u"):
      text.removeFirst(cursor)
      cursor = 0
    case .control("k"): text.removeLast(text.count - cursor)
    case .control("w"):
      var i = cursor
      while i > 0 && text[i - 1] == " " { i -= 1 }
      while i > 0 && text[i - 1] != " " { i -= 1 }
      text.removeSubrange(i..<cursor)
      cursor = i
    default: return false
    }
    return true
  }
}

extension LineEditor {
  /// The bytes a name shown escaped stands for (``TerminalText/unescape(_:)``).
  public static func unescapedBytes(_ text: String) -> [UInt8] { TerminalText.unescape(text) }
}

public enum PromptPurpose: Sendable, Equatable {
  case rename(Item, DomainIdentifier)
  case newFolder(FolderLocation)
  case newTag([Item], DomainIdentifier)
  case openWith(Item, DomainIdentifier)
  /// `!`: a command for `$SHELL -c`, run in the folder with the paths as its arguments.
  case shellCommand(FolderLocation, arguments: [ItemPath])
  /// `:`: a path to go to (AppState+GoTo.swift).
  case goTo
  case filter
  case search
}

extension PromptPurpose {
  /// Whether `effect` is the operation this prompt asked for (the prompts that stay open until
  /// their operation answers: rename and new folder).
  public func asked(for effect: Effect) -> Bool {
    switch (self, effect) {
    case (.rename(let item, let d), .rename(let other, _, let od)): return item.identifier == other.identifier && d == od
    case (.newFolder(let folder), .makeFolder(_, let parent)): return folder == parent
    default: return false
    }
  }
}

public struct PromptState: Sendable, Equatable {
  public var title: String
  public var purpose: PromptPurpose
  public var editor: LineEditor
  public var error: String?
  /// A line under the field that is not an error: Go to's completion candidates, or what it is
  /// waiting for.
  public var note: String?
  /// Which remembered command the editor shows (Open With…'s Up and Down); nil: the one typed.
  public var historyIndex: Int? = nil
}

public struct ConfirmState: Sendable, Equatable {
  public var message: String
  public var confirmTitle: String
  public var effect: Effect
  /// Whether Enter confirms (else only `y`): false where Enter is likely typed twice by habit —
  /// the question comes after an Enter that opened something.
  public var enterConfirms = true

  public init(message: String, confirmTitle: String, effect: Effect, enterConfirms: Bool = true) {
    self.message = message
    self.confirmTitle = confirmTitle
    self.effect = effect
    self.enterConfirms = enterConfirms
  }
}

/// The tag picker: Finder's colors and every known tag, each on, off or on some of the selection.
public struct TagPickerState: Sendable, Equatable {
  public enum Mark: Sendable, Equatable { case all, some, none }
  public var items: [Item]
  public var domain: DomainIdentifier
  public var tags: [(name: String, mark: Mark)]
  public var cursor = 0

  public static let finderColors = ["Red", "Orange", "Yellow", "Green", "Blue", "Purple", "Gray"]

  public static func == (a: TagPickerState, b: TagPickerState) -> Bool {
    a.items == b.items && a.domain == b.domain && a.tags.map(\.name) == b.tags.map(\.name)
      && a.tags.map(\.mark) == b.tags.map(\.mark) && a.cursor == b.cursor
  }
}

public struct MenuState: Sendable, Equatable {
  public var title: String
  public var entries: [MenuEntry]
  public var cursor = 0
  public var items: [Item]
  public var domain: DomainIdentifier
}

/// The authentication prompt: opens when a provider says it needs credentials; the work that
/// failed waits in `retry` and runs again once the sign-in succeeds.
public struct AuthPromptState: Sendable, Equatable {
  public var domain: DomainIdentifier
  public var locationName: String
  public var user: LineEditor
  public var secret: LineEditor
  /// 0: user name, 1: password, 2: "remember".
  public var field = 0
  public var error: String?
  public var retry: [Effect]
  public var isSigningIn = false
  /// Save the password in the credentials file once the server accepts it (on by default: a
  /// person who signs in expects not to be asked again at the next start).
  public var remember = true
  /// A line from the location (`folio demo` shows its password here).
  public var hint: String?
  /// Whether the secret can be kept for the next start (a remote location's credentials file);
  /// without it there is no "remember" row.
  public var canRemember = false
  /// What the two fields are called: "User" and "Password", or a bucket's "Access key" and
  /// "Secret key" (at most 10 columns each).
  public var labels = LocationEntry.defaultCredentialLabels

  public init(
    domain: DomainIdentifier, locationName: String, retry: [Effect], reason: String?, user: String? = nil,
    hint: String? = nil
  ) {
    self.domain = domain
    self.locationName = locationName
    self.user = LineEditor(user ?? "")
    secret = LineEditor("")
    self.retry = retry
    error = reason
    self.hint = hint
    // The user name is known from the configuration: the password is what is asked for.
    if let user, !user.isEmpty { field = 1 }
  }
}

/// Move To…: a folder picker that browses a location's folders, page by page.
public struct FolderPickerState: Sendable, Equatable {
  public var items: [Item]
  public var domain: DomainIdentifier
  public var folder: FolderLocation
  /// The folders of `folder` loaded so far.
  public var folders: [Item] = []
  public var ticket: UInt64
  public var isLoading = true
  /// Row 0 is "Move here"; folder k is row k + 1.
  public var cursor = 0
  public var error: String?
}

public enum Overlay: Sendable, Equatable {
  case auth(AuthPromptState)
  case folderPicker(FolderPickerState)
  case menu(MenuState)
  case prompt(PromptState)
  case confirm(ConfirmState)
  /// `top`: the first row shown when the fields do not fit the terminal (j/k scroll them).
  case info(Item, location: String, domain: DomainIdentifier? = nil, top: Int = 0)
  case tagPicker(TagPickerState)
  case sortPicker(cursor: Int)
  case help(top: Int)
  /// `W`: the session's status messages, newest first (``MessageLog``); `top` is the first line
  /// shown (j/k scroll).
  case messageLog(top: Int)
}
