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
