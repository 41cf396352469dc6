import Foundation
import ProviderAPI

extension LocalProvider {
  /// The synthetic "Recently Deleted" container.
  func trashContainerItem() -> Item {
    Item(
      identifier: .trash, parentIdentifier: .root, filename: ItemName("Recently Deleted"),
      path: trash.homeTrash ?? ItemPath("/"), contentType: .folder, capabilities: [.reading, .deleting])
  }

  /// The trash entry an identifier names (trashing keeps the inode, hence the identifier).
  func trashEntry(for id: ItemIdentifier) throws(ProviderError) -> TrashEntry {
    guard let (dev, ino) = Self.deviceAndInode(of: id) else { throw ProviderError.noSuchItem(id.rawValue) }
    guard let e = try trash.list().first(where: { $0.device == dev && $0.inode == ino }) else {
      throw ProviderError.noSuchItem(id.rawValue)
    }
    return e
  }

  func makeTrashedItem(_ e: TrashEntry) -> Item {
    let id = Self.identifier(device: e.device, inode: e.inode)
    remember(id, at: e.filePath)
    let type: ContentType =
      e.isDirectory ? .folder : e.isSymbolicLink ? .symlink : ContentType.forExtension(e.originalName.pathExtension)
    return Item(
      identifier: id, parentIdentifier: .trash, filename: e.originalName, path: e.filePath, contentType: type,
      capabilities: [.reading, .deleting, .reparenting], documentSize: e.isDirectory ? nil : e.size,
      contentModificationDate: e.modificationDate, originalPath: e.originalPath, trashedDate: e.deletionDate)
  }

  func enumerateTrash(_ request: EnumerationRequest) async throws(ProviderError) -> ItemPage {
    try await BlockingIO.run { _ throws(ProviderError) in
      var items = try self.trash.list().map(self.makeTrashedItem)
      if !request.includeHidden { items.removeAll { $0.filename.isHidden } }
      // Equal keys (folders by size, one deletion time) in name order either way; `!less` made
      // equal items "before" each other, which is no ordering at all.
      items.sort { a, b in
        let byName = NameOrdering.compare(a.filename.bytes, b.filename.bytes)
        let key: (Double, Double)
        switch request.sort.key {
        case .date:
          key = ((a.trashedDate ?? .distantPast).timeIntervalSince1970, (b.trashedDate ?? .distantPast).timeIntervalSince1970)
        case .size: key = (Double(a.documentSize ?? 0), Double(b.documentSize ?? 0))
        case .name, .kind: return request.sort.ascending ? byName < 0 : byName > 0
        }
        if key.0 != key.1 { return request.sort.ascending ? key.0 < key.1 : key.0 > key.1 }
        return byName < 0
      }
      return ItemPage(items: items, nextPage: nil, totalCount: items.count)
    }
  }

  /// Moves an item to the freedesktop Trash, where trash-cli and desktop file managers see it.
  func trashItem(_ id: ItemIdentifier) async throws(ProviderError) -> Item {
    try await BlockingIO.run { _ throws(ProviderError) in
      let path = try self.path(of: id)
      guard path != self.rootPath else { throw ProviderError(.noPermission, "the root of a location cannot be deleted") }
      let entry = try self.trash.trash(path)
      self.invalidateSnapshots(of: path.parent)
      return self.makeTrashedItem(entry)
    }
  }

  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?) async throws(ProviderError) -> Item {
    try await restoreItem(identifier, to: parent, as: nil)
  }

  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?, as name: ItemName?) async throws(ProviderError)
    -> Item
  {
    try await BlockingIO.run { _ throws(ProviderError) in
      let entry = try self.trashEntry(for: identifier)
      var destination: ItemPath? = nil
      if let parent { destination = try self.path(of: parent).appending(name ?? entry.originalName) }
      // Keep Both: beside the item that took its name, under the new one.
      else if let name, let original = entry.originalPath { destination = original.parent.appending(name) }
      let restored = try self.trash.restore(entry, to: destination)
      self.invalidateSnapshots(of: restored.parent)
      return try self.makeItem(at: restored)
    }
  }

  /// Deletes everything in the trash forever.
  public func emptyTrash() async throws(ProviderError) {
    try await BlockingIO.run { _ throws(ProviderError) in try self.trash.empty() }
  }
}
