import ProviderAPI

/// What the reducer asks the app to do: every piece of I/O, named. The app performs it off the
/// loop and answers with Actions.
public enum Effect: Sendable, Equatable {
  case enumerate(ticket: UInt64, location: BrowseLocation, sort: ItemSort, includeHidden: Bool, pageSize: Int)
  case requestPages(ticket: UInt64, pages: ClosedRange<Int>)
  case closeEnumeration(ticket: UInt64)
  case open(Item, DomainIdentifier)
  case rename(Item, ItemName, DomainIdentifier)
  /// Rename in Editor: `items` (the marked ones, in list order) or, when nil, every item of the
  /// folder as listed with this sort and hidden setting, written one name a line for `$EDITOR`;
  /// answered with `bulkRenameEnded`.
  case bulkRename([Item]?, in: FolderLocation, sort: ItemSort, includeHidden: Bool)
  case setTags([Item], add: [String], remove: [String], DomainIdentifier)
  case setFavorite(Item, Bool, DomainIdentifier)
  case trash([Item], DomainIdentifier)
  case restore([Item], DomainIdentifier)
  /// Restore again, the name being taken where they go (``RestoreChoice``).
  case restoreTaken([Item], RestoreChoice, DomainIdentifier)
  case deleteForever([Item], DomainIdentifier)
  case emptyTrash(DomainIdentifier)
  case makeFolder(ItemName, in: FolderLocation)
  case runAction(ActionIdentifier, [Item], DomainIdentifier)
  /// Resolve an entry of the working set (Recents, Tags, search, a favorite) to the item it names,
  /// then open it or show the folder: `entryFound`, or `entryGone` when it cannot be found.
  case openEntry(IndexedRow)
  /// Remove a gone entry from the working set (its row in the index).
  case forgetEntry(IndexedRow)
  /// Ctrl-R on a folder of storage without a change feed: list it against the index now (its
  /// poller), so what changed there reaches Recents, badges and the cache. The app ignores it for
  /// storage with a feed.
  case listFolderNow(FolderLocation)
  /// Resolve these entries (Ctrl-R in Recents): moved ones are followed in the index, gone ones
  /// reported with `entriesChecked`.
  case checkEntries([IndexedRow])
  case loadRecents(tag: String?)
  case search(String)
  case refreshSidebar
  /// Sign in; `remember` saves the secret in the credentials file once it is accepted.
  case authenticate(DomainIdentifier, user: String, secret: String, remember: Bool)
  /// The person's answer to a location's question (the connection waiting on it goes on). A
  /// refusal also keeps the location's background work from asking again.
  case answerSignInQuestion(id: UInt64, SignInAnswer)
  /// List the folders of a folder for the Move To picker (folders first, so the app stops at the first file).
  case enumerateFolders(ticket: UInt64, FolderLocation)
  case move([Item], to: FolderLocation, DomainIdentifier)
  /// Paste the clipboard's items (from their domain) into a folder, of the same domain or another:
  /// a copy, an upload, a download, or both (BrowserApp+Paste.swift).
  case paste([Item], from: DomainIdentifier, into: FolderLocation)
  case openWith(Item, program: String, DomainIdentifier)
  /// `!`: runs `$SHELL -c COMMAND folio PATH…` in `folder` (the paths are the shell's `"$@"`,
  /// never part of the command's text), the terminal handed over; its output stays on screen
  /// until a key.
  case runShellCommand(String, arguments: [ItemPath], in: ItemPath)
  /// `S`: an interactive `$SHELL` in `folder`; Folio comes back when it exits.
  case openShell(in: ItemPath)
  /// `Y`: puts these bytes on the system clipboard, through the terminal (OSC 52).
  case copyToSystemClipboard([UInt8])
  case quit
  // Remote items (the sync engine).
  /// Download now (materialize), without opening.
  case download([Item], DomainIdentifier)
  /// Remove the downloaded content, leaving the items in the cloud.
  case removeDownload([Item], DomainIdentifier)
  /// Pin ("Keep Downloaded") or unpin.
  case keepDownloaded([Item], Bool, DomainIdentifier)
  /// Try the items' failed or waiting transfers again now.
  case retryTransfers([Item], DomainIdentifier)
  /// Cancel the items' downloads (running or waiting): their partial files are removed, and they
  /// stay not downloaded.
  case cancelDownload([Item], DomainIdentifier)
  /// Resolve the conflict `item` is part of; `copy` is the conflict copy when the item is the
  /// original and its copy was found next to it.
  case resolveConflict(Item, copy: ItemIdentifier?, ConflictChoice, DomainIdentifier)
  /// Ask the remote locations how they are (the sidebar's states).
  case checkLocations([DomainIdentifier])
  /// The folder's server cannot be reached: list what this computer knows of it instead
  /// (answered with ``Action/knownItemsListed(ticket:items:)``).
  case listKnownItems(ticket: UInt64, FolderLocation, sort: ItemSort, includeHidden: Bool)
  /// Ask the journal which of these transfers it still holds (the rows of new files shown in the
  /// folder); the gone ones come back as `.uploadsGone`.
  case checkUploads(DomainIdentifier, transferIDs: [Int64])
  /// Make the preview of the item under the cursor for the pane (answered with `previewed` under
  /// the same ticket); the job of any earlier ticket is cancelled, its helper killed.
  case preview(ticket: UInt64, PreviewSubject)
  /// The pane shows nothing now: cancel its job.
  case cancelPreview
  /// Go to (`:`, `~`): look the path up, answered with ``Action/goToResolved(_:_:)``.
  case resolveGoTo(GoToRequest)
  /// The names of a folder's subfolders, for the Go to prompt's Tab (answered with
  /// ``Action/completionsListed(ticket:domain:folder:_:)``).
  case listCompletions(ticket: UInt64, domain: DomainIdentifier, folder: ItemPath)
  /// The sort and hidden-files choice changed: kept for the next run (off the loop).
  case saveViewChoices(ViewChoices)
  /// `x` then `p`: move the items into the folder (the provider's move within a location; a copy,
  /// verified, then the sources removed across locations). Answered like a paste.
  case movePasted([Item], from: DomainIdentifier, into: FolderLocation)
  /// `u` / `U`: check that the world is as the record left it, then take it back
  /// (BrowserApp+Undo.swift); answered with `undoEnded`.
  case undo(UndoRecord, redo: Bool)
  /// `z` in Info: walk the folder and count its items and bytes (answered with `folderCounted`
  /// under the same ticket).
  case countFolder(ticket: UInt64, Item, DomainIdentifier)
  /// Stop the walk of this ticket (Esc, Info closed).
  case cancelFolderCount(ticket: UInt64)
  /// The Open With… prompt's commands changed: kept for the next run (off the loop).
  case saveOpenWithHistory(OpenWithHistory)
}
