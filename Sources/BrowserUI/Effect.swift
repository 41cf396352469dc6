import ProviderAPI

/// What the reducer asks the app to do: every piece of I/O, named. The app performs it off the
/// loop and answers with Actions.
public enum Effect: Sendable, Equatable {
  case enumerate(ticket: UInt64, location: BrowseLocation, sort: ItemSort, includeHidden: Bool, pageSize: Int)
  case requestPages(ticket: UInt64, pages: ClosedRange<Int>)
  case closeEnumeration(ticket: UInt64)
  case open(Item, DomainIdentifier)
  case rename(Item, ItemName, DomainIdentifier)
  case setTags([Item], add: [String], remove: [String], DomainIdentifier)
  case setFavorite(Item, Bool, DomainIdentifier)
  case trash([Item], DomainIdentifier)
  case restore([Item], DomainIdentifier)
  case deleteForever([Item], DomainIdentifier)
  case emptyTrash(DomainIdentifier)
  case makeFolder(ItemName, in: FolderLocation)
  case runAction(ActionIdentifier, [Item], DomainIdentifier)
  case openFavorite(IndexedRow)
  case loadRecents(tag: String?)
  case search(String)
  case refreshSidebar
  case authenticate(DomainIdentifier, user: String, secret: String)
  /// List the folders of a folder for the Move To picker (folders first, so the app stops at the first file).
  case enumerateFolders(ticket: UInt64, FolderLocation)
  case move([Item], to: FolderLocation, DomainIdentifier)
  case openWith(Item, program: String, DomainIdentifier)
  case quit
}
