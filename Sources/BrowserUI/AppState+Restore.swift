import ProviderAPI

/// Restore when a name is taken where the item was: the question Finder and Files ask, "Keep
/// Both" (the restored item becomes "name 2"), "Replace" (the other one goes to Recently
/// Deleted) or "Cancel" (it stays in Recently Deleted). Asked once for all the items of one
/// Restore whose names were taken; the others went back already.
extension AppState {
  mutating func restoreNameTaken(_ taken: [Item], restored: Int, in d: DomainIdentifier) -> [Effect] {
    guard !taken.isEmpty else { return [] }
    let what = taken.count == 1 ? "“\(taken[0].filename.displayString)”" : "\(taken.count) items"
    message = StatusMessage(
      (restored > 0 ? "Restored \(restored); " : "") + "\(what): \(taken.count == 1 ? "its name is" : "their names are") taken where \(taken.count == 1 ? "it was" : "they were")")
    let title = taken.count == 1 ? "\(what) already exists there" : "\(what): names already taken"
    overlay = .menu(
      MenuState(
        title: title,
        entries: [
          MenuEntry("Keep Both", key: "b", .restoreTaken(.keepBoth)),
          MenuEntry("Replace", key: "r", .restoreTaken(.replace)),
          MenuEntry("Cancel", key: "c", .cancel),
        ], items: taken, domain: d))
    // The list shows what went back meanwhile.
    return restored > 0 ? reload(keeping: currentItem?.identifier) : []
  }
}
