import Foundation
import ProviderAPI
import Synchronization
import WebDAVClient

/// Recently Deleted on Nextcloud (NC trashbin.rst): a DELETE moves an item into the user's trash
/// bin, listed at `remote.php/dav/trashbin/USER/trash/` with its name, where it was and when it was
/// deleted; a MOVE of an entry to `…/restore/` puts it back where it was; a DELETE there removes it
/// for good. A location below the user's top shows the items deleted below it.
///
/// A trashed item's identifier is `wt:` + base64url of its name in the bin (`report.pdf.d1700000000`,
/// unique there); its path is that name under `/#trash`, a path no live item of the location has.
extension WebDAVProvider {
  static let trashIdentifiers = PathIdentifiers(scheme: "wt:")
  static let trashRoot = ItemPath("/#trash")

  /// The name in the bin a trashed item's identifier names.
  func trashName(_ identifier: ItemIdentifier) -> [UInt8]? {
    guard identifier.rawValue.hasPrefix("wt:"), let path = Self.trashIdentifiers.path(for: identifier) else { return nil }
    return Array(path.bytes.dropFirst())
  }

  func requireTrash() throws(ProviderError) -> (url: URL, within: [UInt8]) {
    guard let trashbin else {
      throw ProviderError(.featureUnsupported, "this WebDAV server has no trash Folio can reach: delete is for good")
    }
    return trashbin
  }

  /// A client of the bin, signed in as the location's client is.
  func trashClient(_ c: WebDAVClient) throws -> WebDAVClient {
    let bin = try requireTrash()
    return WebDAVClient(try configuration(url: bin.url, user: c.configuration.user, password: c.configuration.password))
  }

  /// One entry of the bin that belongs to this location: its name there and where it was.
  struct Trashed {
    var name: [UInt8]
    var entry: WebDAVEntry
    var original: ItemPath
  }

  /// The bin's entries deleted from inside this location.
  func trashed(_ c: WebDAVClient) async throws -> [Trashed] {
    let bin = try requireTrash()
    let tc = try trashClient(c)
    let found = Mutex<[Trashed]>([])
    let within = bin.within
    let listing = try await tc.list(
      try WebDAVPath("trash"), properties: [.resourceType, .contentLength, .lastModified, .etag, .trashbin]
    ) { batch in
      let kept = batch.compactMap { e -> Trashed? in
        guard let location = e.trashOriginalLocation, let original = Self.originalPath(location, within: within) else { return nil }
        return Trashed(name: e.name, entry: e, original: original)
      }
      found.withLock { $0 += kept }
    }
    guard listing.isComplete else {
      throw ProviderError(.serverBusy, "\(domain.rawValue): the server could not describe every item of its trash bin")
    }
    return found.withLock { $0 }.sorted { ($0.entry.trashDeletionTime ?? .distantPast) > ($1.entry.trashDeletionTime ?? .distantPast) }
  }

  /// A bin location ("Docs/a.txt", relative to the user's top) as a path of this location, or nil
  /// when it was outside it.
  static func originalPath(_ location: String, within: [UInt8]) -> ItemPath? {
    let bytes = Array(location.utf8).drop { $0 == 0x2F }
    var relative = Array(bytes)
    if !within.isEmpty {
      let prefix = within + [0x2F]
      guard relative.starts(with: prefix) else { return nil }
      relative = Array(relative.dropFirst(prefix.count))
    }
    let path = ItemPath(bytes: [0x2F] + relative)
    return PathIdentifiers.isInside(path) ? path : nil
  }

  func trashedItem(_ t: Trashed) -> Item {
    let name = t.entry.trashFilename.map { ItemName($0) } ?? t.original.lastComponent ?? ItemName(bytes: t.name)
    let binName = ItemName(bytes: t.name)
    return Item(
      identifier: Self.trashIdentifiers.identifier(for: ItemPath(bytes: [0x2F] + t.name)), parentIdentifier: .trash,
      filename: name, path: Self.trashRoot.appending(binName),
      contentType: t.entry.isCollection ? .folder : ContentType.forExtension(name.pathExtension),
      capabilities: [.reading, .deleting, .reparenting], version: Self.itemVersion(WebDAVVersion.of(t.entry)),
      documentSize: t.entry.isCollection ? nil : t.entry.size, contentModificationDate: t.entry.lastModified,
      originalPath: t.original, trashedDate: t.entry.trashDeletionTime, isDownloaded: false,
      isMostRecentVersionDownloaded: false)
  }

  /// The bin's items, newest deletion first, in pages of the request's size.
  func enumerateTrash(_ request: EnumerationRequest, page: Page?) async throws(ProviderError) -> ItemPage {
    _ = try requireTrash()
    let entries = try await withClient { c in try await self.trashed(c) }
    let window = Self.trashWindow(page, count: entries.count, pageSize: request.suggestedPageSize)
    let end = window.upperBound
    let items = entries[window].map(trashedItem)
    let next = end < entries.count ? try Page(Data(String(end).utf8)) : nil
    return ItemPage(items: items, nextPage: next, totalCount: entries.count)
  }

  /// The entries a bin page shows: its token is the offset, in decimal.
  package static func trashWindow(_ page: Page?, count: Int, pageSize: Int) -> Range<Int> {
    // Clamped: a token is bytes from the index and may be anything ("-1" gave a negative slice,
    // Int.max an overflow: both traps, found by folio-fuzz).
    let asked = page.flatMap { Int(String(decoding: $0.data, as: UTF8.self)) } ?? 0
    let offset = min(max(0, asked), count)
    return offset..<(offset + min(max(1, pageSize), count - offset))
  }

  func trashedItem(named name: [UInt8]) async throws(ProviderError) -> Item {
    try await withClient { c in
      guard let t = try await self.trashed(c).first(where: { $0.name == name }) else {
        throw ProviderError.noSuchItem("\(TerminalText.escape(bytes: name)) in the trash")
      }
      return self.trashedItem(t)
    }
  }

  /// Moves an item to the bin (a DELETE: the server keeps it) and answers with it as it is there.
  func trash(_ path: ItemPath) async throws(ProviderError) -> Item {
    _ = try requireTrash()
    return try await withClient { c in
      guard let entry = try await self.existing(path, c) else { throw ProviderError.noSuchItem(path.displayString) }
      try await c.delete(try Self.davPath(path), isCollection: entry.isCollection)
      guard let t = try await self.trashed(c).first(where: { $0.original == path }) else {
        throw ProviderError(
          .cannotSynchronize, "\(path.displayString) was deleted, but the server's trash bin does not show it (is its trash app off?)")
      }
      return self.trashedItem(t)
    }
  }

  /// Put Back: a MOVE to the bin's `restore/` puts the item back where it was; into another
  /// folder, it is then moved there. A name taken where it goes is a collision, and it stays in
  /// the bin.
  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?) async throws(ProviderError) -> Item {
    try await restoreItem(identifier, to: parent, as: nil)
  }

  /// Put Back under another name ("Keep Both"): the bin puts it back where it was only under
  /// its own name, so it goes through a name no one has there, then is moved to `name`.
  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?, as newName: ItemName?) async throws(ProviderError)
    -> Item
  {
    _ = try requireTrash()
    guard let name = trashName(identifier) else {
      throw ProviderError(.invalidArgument, "\(identifier.rawValue) is not in the trash")
    }
    let destination = try parent.map { (p: ItemIdentifier) throws(ProviderError) -> ItemPath in try requirePath(p) }
    return try await withClient { c in
      guard let t = try await self.trashed(c).first(where: { $0.name == name }) else {
        throw ProviderError.noSuchItem("\(TerminalText.escape(bytes: name)) in the trash")
      }
      let target = (destination ?? t.original.parent).appending(newName ?? t.original.lastComponent!)
      if target != t.original, try await self.existing(target, c) != nil { throw self.collision(target) }
      // The bin puts back only where it was, under its own name: an item that took that name
      // (Keep Both) steps aside under a name no one has, and comes back once it went through.
      var aside: (path: ItemPath, isCollection: Bool)? = nil
      if let occupant = try await self.existing(t.original, c) {
        guard newName != nil, target != t.original else { throw self.collision(t.original) }
        let temporary = t.original.parent.appending(ItemName(".folio-restoring-\(UInt32.random(in: 0...UInt32.max))"))
        try await c.move(try Self.davPath(t.original), to: try Self.davPath(temporary), isCollection: occupant.isCollection)
        aside = (temporary, occupant.isCollection)
      }
      defer { self.listings.forget(t.original.parent) }
      do {
        try await self.putBack(t, to: target, c)
      } catch {
        if let aside { _ = try? await c.move(try Self.davPath(aside.path), to: try Self.davPath(t.original), isCollection: aside.isCollection) }
        throw error
      }
      if let aside {
        try await c.move(try Self.davPath(aside.path), to: try Self.davPath(t.original), isCollection: aside.isCollection)
      }
      return try await self.stat(target, c)
    }
  }

  /// The bin's restore (to where it was), then a move to `target` when it goes elsewhere.
  private func putBack(_ t: Trashed, to target: ItemPath, _ c: WebDAVClient) async throws {
    let tc = try trashClient(c)
    try await tc.move(
      try WebDAVPath("trash").appending(t.name), to: try WebDAVPath("restore").appending(t.name), isCollection: t.entry.isCollection)
    listings.forget(t.original.parent)
    if target != t.original {
      try await c.move(try Self.davPath(t.original), to: try Self.davPath(target), isCollection: t.entry.isCollection)
      listings.forget(target.parent)
    }
  }

  /// Delete Forever of an item in the bin.
  func deleteForever(_ name: [UInt8]) async throws(ProviderError) {
    try await withClient { c in
      let tc = try self.trashClient(c)
      do {
        let entry = try await tc.stat(try WebDAVPath("trash").appending(name), properties: [.resourceType])
        try await tc.delete(try WebDAVPath("trash").appending(name), isCollection: entry.isCollection)
      } catch let error as WebDAVError where error.code == .notFound {
        return
      }
    }
  }

  /// After a DELETE meant for good on a server with a bin: the entry it made there goes too.
  func purgeFromTrash(_ path: ItemPath, _ c: WebDAVClient) async throws {
    guard trashbin != nil, let t = try await trashed(c).first(where: { $0.original == path }) else { return }
    let tc = try trashClient(c)
    try await tc.delete(try WebDAVPath("trash").appending(t.name), isCollection: t.entry.isCollection)
  }
}
