import ProviderAPI

extension ItemService {
  /// Puts an item in `folder` under `name` in one change of the provider (a move and a rename
  /// together): what Undo does to take a move or a rename back, and what a cut and paste does
  /// when the name is taken in the folder and both are kept ("name 2"). The index follows it
  /// as it follows a rename (`recordMoved`): tags, favorite and Recents stay with the item.
  public func relocate(_ item: Item, to folder: Item, named name: ItemName, in domain: Domain) async throws(ProviderError) -> Item {
    let item = try await current(item, in: domain)
    let valid = try ItemName.validated(name.bytes)
    var fields: ItemFields = []
    var template = ItemTemplate(item)
    if item.parentIdentifier != folder.identifier {
      guard folder.isFolder else { throw ProviderError(.invalidArgument, "\(folder.path.displayString) is not a folder") }
      template.parentIdentifier = folder.identifier
      fields.insert(.parentItemIdentifier)
    }
    if valid != item.filename {
      template.filename = valid
      fields.insert(.filename)
    }
    guard !fields.isEmpty else { return item }
    let moved = try await domain.provider.modifyItem(template, baseVersion: item.version, changedFields: fields, contents: nil)
    try recordMoved(item, to: moved, in: domain)
    return annotate([moved], domain: domain.identifier)[0]
  }
}
