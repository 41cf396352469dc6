import Foundation
import ProviderAPI

/// Path-keyed storage for tests (how SFTP, S3 and WebDAV without file ids behave): an
/// InMemoryProvider whose identifiers are shown to callers as `p:` + the path, so a rename or a
/// move gives the item — and everything below a folder — new identifiers. No change feed, no trash.
/// A folder's content version moves when an entry comes, goes or is renamed, and not when a file
/// is rewritten in place, as a directory's mtime does on SFTP; a listing states its folder so
/// (`ItemPage.container`).
public struct PathKeyedMemoryProvider: PathKeyedProvider {
  public let base: InMemoryProvider

  public init(base: InMemoryProvider) { self.base = base }

  public var domain: DomainIdentifier { base.domain }

  public var traits: ProviderTraits {
    ProviderTraits(
      content: .synced, changeFeed: .none, identity: .pathKeyed, hasTrash: false, rangedReads: true,
      conditionalWrites: .honoured, contentHash: .none, storesFavorites: false)
  }

  public func identifier(for path: ItemPath) -> ItemIdentifier {
    path == .root ? .root : ItemIdentifier("p:" + path.base64)
  }

  public func path(for identifier: ItemIdentifier) -> ItemPath? {
    if identifier == .root { return .root }
    guard identifier.rawValue.hasPrefix("p:"), let data = Data(base64Encoded: String(identifier.rawValue.dropFirst(2)))
    else { return nil }
    return ItemPath(bytes: Array(data))
  }

  /// The base's item as this provider shows it.
  func outward(_ item: Item) -> Item {
    var i = item
    i.identifier = identifier(for: item.path)
    i.parentIdentifier = identifier(for: item.path.parent)
    return i
  }

  /// The base's identifier of an identifier this provider gave.
  func inward(_ id: ItemIdentifier) async throws(ProviderError) -> ItemIdentifier {
    if id == .root || id == .trash || id == .workingSet { return id }
    guard let path = path(for: id) else { throw ProviderError.noSuchItem(id.rawValue) }
    return try await base.item(at: path).identifier
  }

  func inward(_ template: ItemTemplate) async throws(ProviderError) -> ItemTemplate {
    var t = template
    if let id = t.identifier { t.identifier = try await inward(id) }
    t.parentIdentifier = try await inward(t.parentIdentifier)
    return t
  }

  public func item(for identifier: ItemIdentifier, pathHint: ItemPath?) async throws(ProviderError) -> Item {
    guard let path = path(for: identifier) else { throw ProviderError.noSuchItem(identifier.rawValue) }
    return try await item(at: path)
  }

  public func item(at path: ItemPath) async throws(ProviderError) -> Item {
    await stamped(outward(try await base.item(at: path)))
  }

  /// A folder with its entries' stamp as its content version (a directory's mtime).
  func stamped(_ item: Item) async -> Item {
    guard item.isFolder, let inner = try? await inward(item.identifier) else { return item }
    var i = item
    let stamp = Data(await base.entriesStamp(of: inner).utf8)
    i.version = (try? ItemVersion(content: stamp, metadata: item.version.metadata)) ?? item.version
    return i
  }

  public func enumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    var r = request
    r.container = try await inward(request.container)
    var result = try await base.enumerate(r, page: page, progress: progress)
    var items: [Item] = []
    for item in result.items { items.append(await stamped(outward(item))) }
    result.items = items
    if request.container != .trash && request.container != .workingSet {
      result.container = try? await item(for: request.container, pathHint: nil)
    }
    return result
  }

  public func currentSyncAnchor(for container: ItemIdentifier) async throws(ProviderError) -> SyncAnchor {
    throw ProviderError(.featureUnsupported, "no change feed: folders are listed and compared")
  }

  public func changes(in container: ItemIdentifier, since anchor: SyncAnchor) async throws(ProviderError) -> ChangeBatch {
    throw ProviderError(.featureUnsupported, "no change feed: folders are listed and compared")
  }

  public func fetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    outward(try await base.fetchContents(try await inward(identifier), version: version, to: destination, progress: progress))
  }

  public func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    let inner = try await inward(template)
    do throws(ProviderError) {
      return outward(try await base.createItem(inner, fields: fields, contents: contents, options: options, progress: progress))
    } catch {
      throw await outward(error)
    }
  }

  public func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    let inner = try await inward(template)
    do throws(ProviderError) {
      return outward(
        try await base.modifyItem(
          inner, baseVersion: baseVersion, changedFields: changedFields, contents: contents, progress: progress))
    } catch {
      throw await outward(error)
    }
  }

  /// A collision names the item in the way: by this provider's identifier, as a caller asks for it.
  func outward(_ error: ProviderError) async -> ProviderError {
    guard let inner = error.existingItem, let item = try? await base.item(for: inner, pathHint: nil) else { return error }
    return ProviderError(
      error.code, error.message, existingItem: identifier(for: item.path), underlying: error.underlying, retryAfter: error.retryAfter)
  }

  public func deleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError) {
    let inner: ItemIdentifier
    do throws(ProviderError) { inner = try await inward(identifier) } catch where error.code == .noSuchItem { return }
    try await base.deleteItem(inner, baseVersion: baseVersion, options: options)
  }
}
