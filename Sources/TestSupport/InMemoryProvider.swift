import Foundation
import ProviderAPI

/// A provider that keeps a tree in memory: the deterministic double of a real storage, for tests.
///
/// Like swift-nio's EmbeddedChannel it is driven by the test: every call first passes through
/// `hook`, which a test uses to delay a call (await a ``Gate``), make it fail, or stall it until it
/// is cancelled. It keeps a real change log (each mutation takes the next rank; deletions leave
/// tombstones), real versions (a stale base version is a conflict), and real paging.
public actor InMemoryProvider: Provider {
  public enum Call: Sendable, Equatable {
    case item, enumerate, anchor, changes, fetch, create, modify, delete, copy, action, restore
    /// The working set's listing (a sync engine reconciling), apart from folder listings so a
    /// test that counts or stalls a folder's pages is not disturbed by a sync starting.
    case enumerateWorkingSet
  }

  public nonisolated let domain: DomainIdentifier
  public nonisolated let actionDeclarations: [ActionDeclaration]
  public nonisolated let decorationDeclarations: [DecorationDeclaration]

  /// Runs before every call; throw to fail the call, await to delay it.
  public var hook: @Sendable (Call) async throws(ProviderError) -> Void = { _ throws(ProviderError) in }
  /// Every call, in order, for assertions.
  public private(set) var calls: [Call] = []
  public private(set) var performedActions: [(ActionIdentifier, [ItemIdentifier])] = []

  struct Node {
    var item: Item
    var content: Data
    var deletedAtRank: Int64?
    var rank: Int64
  }

  private var nodes: [ItemIdentifier: Node] = [:]
  private var rank: Int64 = 0
  private var nextID = 1

  /// What it says it can do: by default remote storage like Folio's server; a test that stands
  /// it in for This Computer passes `.localFilesystem`.
  public nonisolated let traits: ProviderTraits

  public init(
    domain: DomainIdentifier = DomainIdentifier(unchecked: "memory"), rootName: String = "Memory",
    actions: [ActionDeclaration] = [], decorations: [DecorationDeclaration] = [], traits: ProviderTraits = .inMemory
  ) {
    self.domain = domain
    self.traits = traits
    self.actionDeclarations = actions
    self.decorationDeclarations = decorations
    let root = Item(
      identifier: .root, parentIdentifier: .root, filename: ItemName(rootName), path: .root, contentType: .folder)
    nodes[.root] = Node(item: root, content: Data(), deletedAtRank: nil, rank: 0)
  }

  public func setHook(_ hook: @escaping @Sendable (Call) async throws(ProviderError) -> Void) { self.hook = hook }

  /// An upload (a create, new content) reports its progress every `uploadStep` bytes (and at the end), as a storage
  /// acknowledging writes would, so a test sees the steps reach the browser's `↑ n%`.
  public var uploadStep: Int64 = 64 * 1024
  public func setUploadStep(_ step: Int64) { uploadStep = max(1, step) }

  private func reportUpload(of data: Data, _ progress: @Sendable (TransferProgress) -> Void) {
    let total = Int64(data.count)
    var done: Int64 = 0
    repeat {
      done = min(total, done + uploadStep)
      progress(TransferProgress(completedBytes: done, totalBytes: total))
    } while done < total
  }

  // MARK: - Building trees in tests

  /// Adds a folder or file under `parent` and returns it. Names are bytes, so tests can use any.
  @discardableResult
  public func add(
    _ name: ItemName, in parent: ItemIdentifier = .root, folder: Bool = false, content: Data = Data(),
    modified: Date = Date(timeIntervalSince1970: 1_700_000_000), userInfo: [String: UserInfoValue] = [:],
    decorations: [DecorationIdentifier] = [], capabilities: ItemCapabilities = .all
  ) -> Item {
    rank += 1
    let id = ItemIdentifier("m\(nextID)")
    nextID += 1
    let parentPath = path(ofFolder: parent)
    let item = Item(
      identifier: id, parentIdentifier: parent, filename: name, path: parentPath.appending(name),
      contentType: folder ? .folder : ContentType.forExtension(name.pathExtension), capabilities: capabilities,
      version: try! ItemVersion(content: "c\(rank)", metadata: "m\(rank)"),
      documentSize: folder ? nil : Int64(content.count), contentModificationDate: modified, userInfo: userInfo,
      decorations: decorations)
    nodes[id] = Node(item: item, content: content, deletedAtRank: nil, rank: rank)
    return item
  }

  /// Adds `count` files named with a zero-padded counter, for paging tests.
  public func addFiles(count: Int, in parent: ItemIdentifier = .root, prefix: String = "file") {
    let width = String(count).count
    for i in 0..<count {
      let n = String(i)
      add(ItemName(prefix + String(repeating: "0", count: width - n.count) + n), in: parent)
    }
  }

  public func content(of id: ItemIdentifier) -> Data? { nodes[id]?.content }

  /// What a folder's entries are (their identifiers and names), as a short stamp that moves
  /// when one comes, goes or is renamed — not when a file is rewritten: a directory's mtime, for
  /// doubles of storage whose folders have one. Not a call (nothing is recorded or hooked).
  public func entriesStamp(of folder: ItemIdentifier) -> String {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for item in children(of: folder).sorted(by: { $0.identifier.rawValue < $1.identifier.rawValue }) {
      for b in Array(item.identifier.rawValue.utf8) + [0] + item.filename.bytes + [0] {
        h ^= UInt64(b)
        h = h &* 0x100_0000_01b3
      }
    }
    return "entries:" + String(h, radix: 16)
  }

  private func live(_ id: ItemIdentifier) throws(ProviderError) -> Node {
    guard let n = nodes[id], n.deletedAtRank == nil else { throw ProviderError.noSuchItem(id.rawValue) }
    return n
  }

  private func enter(_ call: Call) async throws(ProviderError) {
    calls.append(call)
    try await hook(call)
    if Task.isCancelled { throw ProviderError.cancelledError }
  }

  private func children(of parent: ItemIdentifier) -> [Item] {
    nodes.values.filter { $0.deletedAtRank == nil && $0.item.parentIdentifier == parent && $0.item.identifier != .root }
      .map(\.item)
  }

  /// Where the trash keeps its items: a path no live item has, as a real trash folder would be.
  public static let trashPath = ItemPath("/#trash")

  /// The path of a folder, for building its children's paths.
  private func path(ofFolder id: ItemIdentifier) -> ItemPath {
    id == .trash ? Self.trashPath : nodes[id]?.item.path ?? .root
  }

  /// True for an item in the trash or inside a trashed folder.
  private func isInTrash(_ id: ItemIdentifier) -> Bool {
    var current = id
    for _ in 0...nodes.count {
      guard current != .root, let n = nodes[current] else { return false }
      if n.item.parentIdentifier == .trash { return true }
      current = n.item.parentIdentifier
    }
    return false
  }

  /// True when `id` is somewhere below `folder`.
  private func isDescendant(_ id: ItemIdentifier, of folder: ItemIdentifier) -> Bool {
    var current = id
    for _ in 0...nodes.count {
      guard current != .root, current != .trash, let n = nodes[current] else { return false }
      if n.item.parentIdentifier == folder { return true }
      current = n.item.parentIdentifier
    }
    return false
  }

  /// Rewrites the paths of a folder's live descendants after it moved or was renamed.
  private func updateDescendantPaths(of id: ItemIdentifier) {
    guard let folder = nodes[id]?.item.path else { return }
    for child in children(of: id) {
      let path = folder.appending(child.filename)
      nodes[child.identifier]?.item.path = path
      updateDescendantPaths(of: child.identifier)
    }
  }

  // MARK: - Provider

  public func item(for identifier: ItemIdentifier, pathHint: ItemPath?) async throws(ProviderError) -> Item {
    try await enter(.item)
    return try live(identifier).item
  }

  public func item(at path: ItemPath) async throws(ProviderError) -> Item {
    try await enter(.item)
    if path == .root { return try live(.root).item }
    guard let n = nodes.values.first(where: { $0.deletedAtRank == nil && $0.item.path == path }) else {
      throw ProviderError.noSuchItem(path.displayString)
    }
    return n.item
  }

  public func enumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    try await enter(request.container == .workingSet ? .enumerateWorkingSet : .enumerate)
    var list: [Item]
    if request.container == .workingSet {
      list = nodes.values.filter { $0.deletedAtRank == nil && $0.item.identifier != .root }.map(\.item)
    } else if request.container == .trash {
      list = children(of: .trash)
    } else {
      let container = try live(request.container)
      guard container.item.isFolder else { throw ProviderError(.invalidArgument, "not a folder") }
      list = children(of: request.container)
    }
    if !request.includeHidden { list.removeAll { $0.filename.isHidden } }
    list.sort { a, b in
      if request.sort.foldersFirst && a.isFolder != b.isFolder { return a.isFolder }
      let less: Bool
      switch request.sort.key {
      case .name, .kind: less = a.filename.lossyString.lowercased() < b.filename.lossyString.lowercased()
      case .date: less = (a.contentModificationDate ?? .distantPast) < (b.contentModificationDate ?? .distantPast)
      case .size: less = (a.documentSize ?? 0) < (b.documentSize ?? 0)
      }
      return request.sort.ascending ? less : !less
    }
    var offset = 0
    if let page {
      guard let s = String(data: page.data, encoding: .utf8), let o = Int(s) else {
        throw ProviderError(.pageExpired, "unknown page token")
      }
      offset = o
    }
    let size = max(1, request.suggestedPageSize)
    let end = min(list.count, offset + size)
    let slice = offset < end ? Array(list[offset..<end]) : []
    let next = end < list.count ? try Page(Data(String(end).utf8)) : nil
    return ItemPage(items: slice, nextPage: next, totalCount: list.count)
  }

  public func currentSyncAnchor(for container: ItemIdentifier) async throws(ProviderError) -> SyncAnchor {
    try await enter(.anchor)
    return try SyncAnchor(Data(String(rank).utf8))
  }

  public func changes(in container: ItemIdentifier, since anchor: SyncAnchor) async throws(ProviderError) -> ChangeBatch {
    try await enter(.changes)
    guard let s = String(data: anchor.data, encoding: .utf8), let from = Int64(s), from <= rank else {
      throw ProviderError(.syncAnchorExpired, "unknown anchor")
    }
    let changed = nodes.values.filter { $0.rank > from && $0.item.identifier != .root }.sorted { $0.rank < $1.rank }
    let batch = changed.prefix(200)
    let newAnchor = batch.last?.rank ?? rank
    return ChangeBatch(
      updatedItems: batch.filter { $0.deletedAtRank == nil }.map(\.item),
      deletedIdentifiers: batch.filter { $0.deletedAtRank != nil }.map(\.item.identifier),
      anchor: try SyncAnchor(Data(String(newAnchor).utf8)), moreComing: changed.count > batch.count)
  }

  public func fetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await enter(.fetch)
    let n = try live(identifier)
    if let version, version != n.item.version {
      throw ProviderError(.versionNoLongerAvailable, "the requested version is gone")
    }
    do { try n.content.write(to: destination) } catch {
      throw ProviderError(.ioError, "cannot write \(destination.path)")
    }
    progress(TransferProgress(completedBytes: Int64(n.content.count), totalBytes: Int64(n.content.count)))
    return n.item
  }

  public func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await enter(.create)
    _ = try live(template.parentIdentifier)
    if let clash = children(of: template.parentIdentifier).first(where: { $0.filename == template.filename }) {
      if options.contains(.mayAlreadyExist) { return clash }
      throw ProviderError(.filenameCollision, "an item named \(template.filename.displayString) already exists", existingItem: clash.identifier)
    }
    var data = Data()
    if let contents {
      guard let d = try? Data(contentsOf: contents) else { throw ProviderError(.ioError, "cannot read \(contents.path)") }
      data = d
      reportUpload(of: d, progress)
    }
    var item = add(template.filename, in: template.parentIdentifier, folder: template.contentType == .folder, content: data)
    item.tags = template.tags
    nodes[item.identifier]?.item.tags = template.tags
    return item
  }

  public func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await enter(.modify)
    guard let id = template.identifier else { throw ProviderError(.invalidArgument, "no identifier") }
    var n = try live(id)
    if changedFields.contains(.contents) && n.item.version.content != baseVersion.content {
      throw ProviderError(.cannotSynchronize, "conflict: the item changed since version \(baseVersion.displayString)")
    }
    if changedFields.contains(.filename) || changedFields.contains(.parentItemIdentifier) {
      let parent = changedFields.contains(.parentItemIdentifier) ? template.parentIdentifier : n.item.parentIdentifier
      // A folder never goes into itself or below itself, as no real server lets it (folio-sim
      // found the double recursing for ever on such a move).
      if n.item.isFolder && parent != .trash && (parent == id || isDescendant(parent, of: id)) {
        throw ProviderError(.invalidArgument, "\(n.item.filename.displayString) cannot go into itself")
      }
      // The trash takes any number of items with the same name, as a real trash does.
      if parent != .trash,
        let clash = children(of: parent).first(where: { $0.filename == template.filename && $0.identifier != id })
      {
        throw ProviderError(.filenameCollision, "an item named \(template.filename.displayString) already exists", existingItem: clash.identifier)
      }
      if parent == .trash && !n.item.isTrashed {
        n.item.originalPath = n.item.path
        n.item.trashedDate = Date()
      } else if parent != .trash {
        n.item.originalPath = nil
        n.item.trashedDate = nil
      }
      n.item.parentIdentifier = parent
      n.item.filename = template.filename
      let oldPath = n.item.path
      n.item.path = path(ofFolder: parent).appending(template.filename)
      // A folder's descendants move with it: their paths follow.
      if n.item.isFolder, oldPath != n.item.path {
        for (id, child) in nodes {
          guard let moved = child.item.path.relocated(from: oldPath, to: n.item.path), id != n.item.identifier else { continue }
          nodes[id]?.item.path = moved
        }
      }
    }
    if changedFields.contains(.tagData) { n.item.tags = template.tags }
    if changedFields.contains(.favoriteRank) { n.item.favoriteRank = template.favoriteRank }
    if changedFields.contains(.lastUsedDate) { n.item.lastUsedDate = template.lastUsedDate }
    if changedFields.contains(.contents), let contents {
      guard let d = try? Data(contentsOf: contents) else { throw ProviderError(.ioError, "cannot read \(contents.path)") }
      reportUpload(of: d, progress)
      n.content = d
      n.item.documentSize = Int64(d.count)
    }
    rank += 1
    n.rank = rank
    n.item.version = try ItemVersion(
      content: changedFields.contains(.contents) ? "c\(rank)" : String(decoding: n.item.version.content, as: UTF8.self),
      metadata: "m\(rank)")
    nodes[id] = n
    updateDescendantPaths(of: id)
    return n.item
  }

  /// Takes an item out of the trash: into `parent`, or back into the live folder at the parent of
  /// its original path. Nothing is recreated: a folder that is gone (or itself in the trash) is
  /// `noSuchItem`; a name already taken there is `filenameCollision`, and nothing moves.
  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?) async throws(ProviderError) -> Item {
    try await restoreItem(identifier, to: parent, as: nil)
  }

  /// As ``restoreItem(_:to:)``, under `name` when one is given (Keep Both).
  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?, as name: ItemName?) async throws(ProviderError)
    -> Item
  {
    try await enter(.restore)
    var n = try live(identifier)
    guard n.item.isTrashed else {
      throw ProviderError(.invalidArgument, "\(n.item.filename.displayString) is not in the trash")
    }
    let destination: ItemIdentifier
    if let parent {
      let folder = try live(parent)
      guard folder.item.isFolder, !isInTrash(parent) else {
        throw ProviderError(.invalidArgument, "\(folder.item.path.displayString) is not a folder outside the trash")
      }
      destination = parent
    } else {
      guard let original = n.item.originalPath else {
        throw ProviderError(
          .invalidArgument, "cannot restore \(n.item.filename.displayString): its original location is unknown")
      }
      let folderPath = original.parent
      if folderPath == .root {
        destination = .root
      } else if let folder = nodes.values.first(where: {
        $0.deletedAtRank == nil && $0.item.isFolder && $0.item.path == folderPath && !isInTrash($0.item.identifier)
      }) {
        destination = folder.item.identifier
      } else {
        throw ProviderError(
          .noSuchItem,
          "cannot restore \(n.item.filename.displayString): its folder \(folderPath.displayString) is gone")
      }
    }
    if let name { n.item.filename = name }
    if let clash = children(of: destination).first(where: { $0.filename == n.item.filename }) {
      throw ProviderError(
        .filenameCollision, "an item named \(n.item.filename.displayString) already exists",
        existingItem: clash.identifier)
    }
    rank += 1
    n.rank = rank
    n.item.parentIdentifier = destination
    n.item.path = path(ofFolder: destination).appending(n.item.filename)
    n.item.originalPath = nil
    n.item.trashedDate = nil
    n.item.version = try ItemVersion(
      content: String(decoding: n.item.version.content, as: UTF8.self), metadata: "m\(rank)")
    nodes[identifier] = n
    updateDescendantPaths(of: identifier)
    return n.item
  }

  public func deleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError) {
    try await enter(.delete)
    guard let n = nodes[identifier], n.deletedAtRank == nil else { return }
    let kids = children(of: identifier)
    if !kids.isEmpty && !options.contains(.recursive) {
      throw ProviderError(.directoryNotEmpty, "the folder is not empty")
    }
    for k in kids { try await deleteItem(k.identifier, baseVersion: nil, options: .recursive) }
    rank += 1
    nodes[identifier]?.deletedAtRank = rank
    nodes[identifier]?.rank = rank
  }

  public func performAction(_ action: ActionIdentifier, on items: [ItemIdentifier]) async throws(ProviderError) {
    try await enter(.action)
    guard actionDeclarations.contains(where: { $0.identifier == action }) else {
      throw ProviderError(.featureUnsupported, "no action \(action)")
    }
    performedActions.append((action, items))
  }
}
