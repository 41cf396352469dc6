import ProviderAPI

/// Picker mode (`folio --chooser-file FILE`), as editors use yazi and ranger to pick files: Enter
/// on a file chooses it, Enter with marked items chooses them all, and Folio quits; folders
/// still open. `q` quits choosing nothing, and FILE is left untouched (yazi's way).
extension AppState {
  /// What opening these files does: in picker mode they are chosen, else each is opened.
  mutating func openFiles(_ items: [Item], in domain: DomainIdentifier) -> [Effect] {
    if isPicker { return choose(items, in: domain) }
    return items.map { .open($0, domain) }
  }

  /// Chooses `items` and quits, or says why they cannot be chosen and stays.
  ///
  /// Only items of this computer can be chosen: the program that asked reads the paths as files
  /// (an editor opens them), and a remote item has no file here until it is downloaded.
  mutating func choose(_ items: [Item], in domain: DomainIdentifier) -> [Effect] {
    guard !items.isEmpty else { return [] }
    if isRemote(domain) {
      message = StatusMessage("The picker chooses files on this computer: these are on a remote location", isError: true)
      return []
    }
    if tab == .browse, case .trash = browse.location {
      message = StatusMessage("Restore it first: items in Recently Deleted cannot be chosen", isError: true)
      return []
    }
    chosen = items.map(\.path)
    isQuitting = true
    return [.quit]
  }
}
