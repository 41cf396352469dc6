extension ItemPath {
  /// Where this path is once the item at `old` has moved to `new`: `new` itself, `new/rest` for a
  /// path below `old`, nil for any other path (`/ab` is not below `/a`). Bytes, no decoding.
  public func relocated(from old: ItemPath, to new: ItemPath) -> ItemPath? {
    if self == old { return new }
    let prefix = old.bytes.last == 0x2F ? old.bytes : old.bytes + [0x2F]
    guard bytes.count > prefix.count, bytes.starts(with: prefix) else { return nil }
    let newPrefix = new.bytes.last == 0x2F ? new.bytes : new.bytes + [0x2F]
    return ItemPath(bytes: newPrefix + bytes[prefix.count...])
  }
}

/// A provider whose identifiers are paths (`ProviderTraits.Identity.pathKeyed`: SFTP, S3, WebDAV
/// without file ids). It says how a path becomes an identifier and back, so that after a rename
/// the core can re-key what it keeps about the item and everything below it
/// (`WorkingSetIndex.rekey`, `ContentStore.rekey`).
public protocol PathKeyedProvider: Provider {
  /// The identifier of the item at `path` (`.root` for `/`). No I/O.
  func identifier(for path: ItemPath) -> ItemIdentifier
  /// The path an identifier names, or nil for one that is no path of this provider. No I/O.
  func path(for identifier: ItemIdentifier) -> ItemPath?
}

extension PathKeyedProvider {
  /// Where a modify's `.filename` and `.parentItemIdentifier` changes take the item at `path`
  /// (itself when they name where it is already), checked before anything is sent: the top does
  /// not move, a folder does not go into itself (servers answer that with a bare failure), and a
  /// new name passes `accept` (the storage's rules: any bytes, or UTF-8 text).
  public func relocationTarget(
    of path: ItemPath, _ template: ItemTemplate, _ changedFields: ItemFields,
    accept: (ItemName) throws(ProviderError) -> ItemName
  ) throws(ProviderError) -> ItemPath {
    guard path != .root else { throw ProviderError(.invalidArgument, "the top of the location cannot be moved") }
    var parent = path.parent
    if changedFields.contains(.parentItemIdentifier) {
      guard let p = self.path(for: template.parentIdentifier) else {
        throw ProviderError.noSuchItem(template.parentIdentifier.rawValue)
      }
      parent = p
    }
    let name = changedFields.contains(.filename) ? try accept(template.filename) : path.lastComponent!
    let target = parent.appending(name)
    if target != path, target.relocated(from: path, to: path) != nil {
      throw ProviderError(.invalidArgument, "cannot move \(path.displayString) into itself")
    }
    return target
  }
}
