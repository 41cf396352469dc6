import Foundation

/// Options of a create.
public struct CreateOptions: OptionSet, Sendable, Hashable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }
  /// The item may already exist (a re-import): merge rather than fail.
  public static let mayAlreadyExist = CreateOptions(rawValue: 1 << 0)
  /// A remotely deleted item with local edits is re-created.
  public static let deletionConflicted = CreateOptions(rawValue: 1 << 1)
}

/// Options of a delete.
public struct DeleteOptions: OptionSet, Sendable, Hashable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }
  public static let recursive = DeleteOptions(rawValue: 1 << 0)
}

/// One kind of storage, answering small, paged, asynchronous questions.
///
/// Modelled on `NSFileProviderReplicatedExtension`. A provider knows nothing of the index, the
/// core or the UI: everything it knows reaches them through these types. Calls arrive concurrently;
/// cancellation is Swift task cancellation, answered with `ProviderError.cancelled`.
///
/// Trash follows macOS: trashing is a modify whose new parent is `.trash`; restoring is a modify
/// back to a real parent; deleting an item in the trash deletes it forever.
public protocol Provider: Sendable {
  /// The domain this provider serves.
  var domain: DomainIdentifier { get }

  /// What this storage can do: the core, the browser and the commands ask this, never the
  /// provider's type.
  var traits: ProviderTraits { get }

  /// Custom actions the provider declares, with their activation rules.
  var actionDeclarations: [ActionDeclaration] { get }
  /// Decorations the provider may put on items.
  var decorationDeclarations: [DecorationDeclaration] { get }

  /// The item with this identifier. `pathHint` is where the caller last saw it, which lets a
  /// provider whose identifiers cannot be resolved directly (inode numbers) find it cheaply.
  func item(for identifier: ItemIdentifier, pathHint: ItemPath?) async throws(ProviderError) -> Item

  /// The item at a path inside the domain.
  func item(at path: ItemPath) async throws(ProviderError) -> Item

  /// One page of a container: `page == nil` asks for the first page in the request's sort.
  /// `progress` reports work done before the page can be answered.
  func enumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage

  /// A token for the page of `request` that starts at item `offset`, made from `known`, a page
  /// token this provider returned for the same enumeration; nil when pages can only be reached one
  /// after another (the default). A provider whose tokens are positions (a sorted snapshot, an SQL
  /// offset) lets a reader jump — End on a million entries — without fetching every page before
  /// the one it wants. No I/O: the page itself is fetched with `enumerate` as usual.
  func pageToken(at offset: Int, from known: Page, in request: EnumerationRequest) -> Page?

  /// The container's current position in its change history.
  func currentSyncAnchor(for container: ItemIdentifier) async throws(ProviderError) -> SyncAnchor

  /// Changes since an anchor, in batches. `syncAnchorExpired` means: re-enumerate from scratch.
  func changes(in container: ItemIdentifier, since anchor: SyncAnchor) async throws(ProviderError) -> ChangeBatch

  /// A signal each time something in the container may have changed (inotify, push). Providers
  /// without push return a stream that finishes at once.
  func changeSignals(for container: ItemIdentifier) -> AsyncStream<Void>

  /// Writes the item's content to `destination` (a new file the caller owns).
  func fetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item

  /// `fetchContents`, and the digest the provider checked the bytes written against, when its
  /// storage stated one (nil when it did not): a SHA-256 the caller can record instead of reading
  /// the whole file once more to compute it; any other algorithm is only the provider's own check.
  /// The file is durable on return when a digest is given.
  func fetchVerifiedContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> (item: Item, digest: ContentDigest?)

  /// Writes at least `range` of the content to `destination`; returns the range actually written.
  func fetchPartialContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, range: Range<Int64>, to destination: URL
  ) async throws(ProviderError) -> (item: Item, range: Range<Int64>)

  /// Creates an item (a folder, or a file whose content is at `contents`).
  ///
  /// `template.uploadToken` is the idempotency key: every attempt of one journaled upload carries
  /// the same token, and only that upload's. A provider that stages bytes under a name of its own
  /// (SFTP's temporary beside the target) derives that name from the token, so a retry after a
  /// crash or a cut link finds and removes what the earlier attempt left; nil means an upload
  /// nobody will retry (a command, a demo) and any fresh name will do.
  ///
  /// `progress` reports the bytes of `contents` the storage holds so far (for SFTP: writes the
  /// server acknowledged), increasing and ending at the file's size, so a new file shows `↑ n%`
  /// whichever provider takes it. A folder reports nothing. Callers that do not show progress use
  /// the overload without it.
  func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item

  /// Changes the fields named in `changedFields`. A stale `baseVersion` is a conflict the provider
  /// resolves without losing either side. `template.uploadToken` and `progress` are as for
  /// ``createItem(_:fields:contents:options:progress:)``: new content shows `↑ n%` as a new file
  /// does; a change without content reports nothing.
  func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item

  /// Deletes an item forever. An unknown identifier is success.
  func deleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError)

  /// Takes an item out of the trash: into `parent`, or back where it was when `parent` is nil
  /// (recreating the folders on the way if they are gone). A name already taken there is a
  /// `filenameCollision` and nothing moves.
  func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?) async throws(ProviderError) -> Item

  /// As ``restoreItem(_:to:)``, under `name` instead of its own when one is given: "Keep Both"
  /// when its name is taken where it goes (the restored item becomes "name 2", as in Finder). A
  /// location that cannot rename while restoring says `featureUnsupported` for a name.
  func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?, as name: ItemName?) async throws(ProviderError) -> Item

  /// Copies an item (recursively for a folder) into a folder.
  func copyItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier, name: ItemName?) async throws(ProviderError) -> Item

  /// Runs a custom action the provider declared.
  func performAction(_ action: ActionIdentifier, on items: [ItemIdentifier]) async throws(ProviderError)

  /// Signs in with credentials a person typed after the provider said `notAuthenticated`. A wrong
  /// password is `notAuthenticated` again; success lets every throttled operation resume.
  func authenticate(_ credentials: Credentials) async throws(ProviderError)
}

/// What an authentication prompt collects. The secret is never logged nor stored in the index.
public struct Credentials: Sendable, Equatable {
  public var user: String
  public var secret: String
  public init(user: String, secret: String) {
    self.user = user
    self.secret = secret
  }
}

extension Provider {
  public var actionDeclarations: [ActionDeclaration] { [] }
  public var decorationDeclarations: [DecorationDeclaration] { [] }

  public func item(for identifier: ItemIdentifier) async throws(ProviderError) -> Item {
    try await item(for: identifier, pathHint: nil)
  }

  public func changeSignals(for container: ItemIdentifier) -> AsyncStream<Void> {
    AsyncStream { $0.finish() }
  }

  public func pageToken(at offset: Int, from known: Page, in request: EnumerationRequest) -> Page? { nil }

  /// `createItem` for a caller that shows no progress (a folder, a command, a test).
  public func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions
  ) async throws(ProviderError) -> Item {
    try await createItem(template, fields: fields, contents: contents, options: options, progress: { _ in })
  }

  /// `modifyItem` for a caller that shows no progress (a rename, a move, tags, a command).
  public func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?
  ) async throws(ProviderError) -> Item {
    try await modifyItem(template, baseVersion: baseVersion, changedFields: changedFields, contents: contents, progress: { _ in })
  }

  public func fetchVerifiedContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> (item: Item, digest: ContentDigest?) {
    (try await fetchContents(identifier, version: version, to: destination, progress: progress), nil)
  }

  public func copyItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier, name: ItemName?) async throws(ProviderError) -> Item {
    throw ProviderError(.featureUnsupported, "this location cannot copy items")
  }

  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?) async throws(ProviderError) -> Item {
    let item = try await item(for: identifier)
    guard let parent else {
      throw ProviderError(.featureUnsupported, "this location cannot restore items to their original place")
    }
    var t = ItemTemplate(item)
    t.parentIdentifier = parent
    return try await modifyItem(t, baseVersion: item.version, changedFields: .parentItemIdentifier, contents: nil)
  }

  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?, as name: ItemName?) async throws(ProviderError)
    -> Item
  {
    guard name == nil else { throw ProviderError(.featureUnsupported, "this location cannot restore an item under another name") }
    return try await restoreItem(identifier, to: parent)
  }

  public func authenticate(_ credentials: Credentials) async throws(ProviderError) {
    throw ProviderError(.featureUnsupported, "this location does not sign in")
  }

  public func performAction(_ action: ActionIdentifier, on items: [ItemIdentifier]) async throws(ProviderError) {
    throw ProviderError(.featureUnsupported, "this location has no action '\(action.rawValue)'")
  }

  public func fetchPartialContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, range: Range<Int64>, to destination: URL
  ) async throws(ProviderError) -> (item: Item, range: Range<Int64>) {
    let item = try await fetchContents(identifier, version: version, to: destination, progress: { _ in })
    return (item, 0..<(item.documentSize ?? 0))
  }
}
