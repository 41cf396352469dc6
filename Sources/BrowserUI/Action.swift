import ProviderAPI
import PreviewKit

/// Everything that can happen to the UI: keys, sizes, and what the engine reports back.
public enum Action: Sendable {
  case key(KeyEvent)
  /// A preview made for the pane's ticket (older tickets' are dropped).
  case previewed(ticket: UInt64, Preview)
  /// The preview of this ticket is taking long (100 ms): "loading…" replaces the previous one.
  case previewLate(ticket: UInt64)
  case resized(width: Int, height: Int)
  case loadProgress(ticket: UInt64, EnumerationProgress)
  case pageLoaded(ticket: UInt64, offset: Int, items: [Item], total: Int?, isComplete: Bool)
  case loadRestarted(ticket: UInt64)
  case loadFailed(ticket: UInt64, ProviderError)
  case folderChanged(ticket: UInt64)
  case recentsChanged([IndexedRow])
  case searchResults(query: String, [IndexedRow])
  case sidebarChanged(favorites: [IndexedRow], tags: [(name: String, count: Int)])
  /// Another `folio` process wrote the index (a `folio tag` in another terminal): Recents and the
  /// sidebar are read again.
  case indexChangedElsewhere
  /// An operation finished: a message, and whether the list should be reloaded. `from` is the
  /// effect that asked for it: a prompt closes (or shows the error) only for its own operation.
  case operationSucceeded(message: String?, reload: Bool, select: ItemIdentifier?, from: Effect? = nil)
  case operationFailed(ProviderError, from: Effect? = nil)
  /// A Rename in Editor ended: what to say, and whether any item was renamed (the list is
  /// reloaded and the marks cleared only then, so a failed editor keeps the selection).
  case bulkRenameEnded(StatusMessage, renamedAny: Bool)
  /// A Restore found the names of `taken` in use where they were (`restored` others went back):
  /// the person chooses Keep Both, Replace or Cancel.
  case restoreNameTaken([Item], restored: Int, DomainIdentifier)
  /// An entry of the working set was resolved to its item (`Effect.openEntry`): where it is now,
  /// which differs from the entry's path when it was moved behind Folio's back (the index has
  /// followed it).
  case entryFound(IndexedRow, Item)
  /// An entry's item cannot be found: the person is told and offered to remove the entry.
  case entryGone(IndexedRow, ProviderError)
  /// Entries were checked (`Effect.checkEntries`): how many were followed to where they are now,
  /// and which can no longer be found.
  case entriesChecked(followed: Int, missing: [ItemKey])
  /// Opening a folder from elsewhere (a favorite): show it.
  case showFolder(FolderLocation, select: ItemIdentifier?)
  /// A provider said notAuthenticated: ask for credentials, then run `retry`.
  case authenticationRequired(DomainIdentifier, retry: [Effect], reason: String)
  case authenticated(DomainIdentifier)
  case authenticationFailed(DomainIdentifier, ProviderError)
  /// A location asks something while it connects (ssh's password, passphrase, host key): the
  /// question box shows it; the connection waits for `Effect.answerSignInQuestion`.
  case signInQuestion(SignInQuestion)
  case foldersLoaded(ticket: UInt64, folders: [Item], isComplete: Bool)
  case foldersFailed(ticket: UInt64, ProviderError)
  case tick
  // Remote locations: what the sync engine and the status checks report (AppState+Remote.swift).
  /// A transfer of an item changed (nil: it is over or gone).
  case transfer(ItemKey, TransferState?)
  /// What the journal held at launch, in one action: thousands of queued files cost one refresh of
  /// the pending rows, not one each.
  case transfersRestored([ItemKey: TransferState])
  /// A transfer finished and was verified; `item` is the provider's item afterwards.
  case transferFinished(ItemKey, TransferState.Direction, transferID: Int64, item: Item?)
  /// A status check answered.
  case locationStatus(DomainIdentifier, LocationStatus)
  /// How many of a location's transfers are not done.
  case locationSyncing(DomainIdentifier, Int)
  /// A location's transfers wait on a condition a person can resolve (sign in, quota, network).
  case locationThrottled(DomainIdentifier, ProviderError)
  /// It was resolved: they run again.
  case locationResumed(DomainIdentifier)
  /// The location answers again after failing (its changes could be read): ask how it is, and
  /// read a folder that could not be listed again.
  case locationReachable(DomainIdentifier)
  /// What this computer knows of a folder whose server cannot be reached (the index's items).
  case knownItemsListed(ticket: UInt64, items: [Item])
  /// Remote changes reached the index: the visible folder of that location reloads.
  case remoteItemsChanged(DomainIdentifier)
  /// A domain's declared custom actions and decorations (a server sends them when it signs in).
  case declarationsLoaded(DomainIdentifier, actions: [CustomActionEntry], decorations: [DecorationDeclaration])
  /// A remote file is being downloaded to open it (nil: the opener has it, or it failed).
  case opening(Opening?)
  /// Something the sync engine wants a person to know (a conflict kept both versions).
  case notice(StatusMessage)
  /// The folder of this enumeration, reached by its path, has this identifier (its new files'
  /// uploads name their folder by identifier).
  case folderResolved(ticket: UInt64, ItemIdentifier)
  /// What listed symbolic links lead to (see `AppState.linkTargets`).
  case linkTargetsResolved([ItemIdentifier: LinkTarget])
  /// These transfers of a location are no longer in the journal (finished or dropped elsewhere).
  case uploadsGone(DomainIdentifier, transferIDs: [Int64])
  /// A Go to's path, looked up: its item, or why it cannot be reached.
  case goToResolved(GoToRequest, Result<Item, ProviderError>)
  /// A folder's subfolder names, for Go to's completion.
  case completionsListed(ticket: UInt64, domain: DomainIdentifier, folder: ItemPath, Result<[ItemName], ProviderError>)
  /// An action that can be undone was done (a rename, a move, a deletion): `u` takes it back.
  case undoRecorded(UndoRecord)
  /// An undo or redo ended.
  case undoEnded(UndoOutcome)
  /// How far the walk of a folder (`Effect.countFolder`) has counted; `finished` once it is whole.
  case folderCounted(ticket: UInt64, FolderTally, finished: Bool)
}
