import Foundation
import ProviderAPI

/// Items of one location copied into a folder of another (or the same): the browser's Paste and
/// `folio cp`/`folio mv` across locations run this one job. What happens to each item depends on
/// where it comes from and where it goes:
///
/// - the same location: the provider copies it (`ItemService.copy`; a provider that picks a free
///   name does, else the collision is that item's error);
/// - into a remote location: files are staged and their uploads journaled (`SyncEngine.put`), a
///   remote file being downloaded first; the queue sends them and its events draw `↑ n%`;
/// - into a local folder: files are written with `ContentStore.export` (never replacing: a taken
///   name becomes "name 2"), a remote file being downloaded first;
/// - folders, across locations: made on the other side, then their contents the same way, down
///   to `maxDepth` levels and at most `maxEntries` entries per paste (the rest is counted, and
///   said, not silently dropped).
///
/// Each item's failure is recorded and the others go on; `notAuthenticated` stops the paste so the
/// sign-in prompt can run the rest again.
///
/// A server location that cannot be reached still takes files, as `folio put` does: the folder is
/// the one this computer last saw (`ItemService.itemAllowingOffline`, or the folder on screen), a
/// name is not checked against the server (the queue picks "name 2" if it is taken when it
/// sends), and the uploads wait in the journal until the server is back. Only folders, which
/// nothing journals, fail.
public struct CrossLocationCopy: Sendable {
  public static let maxDepth = 16
  public static let maxEntries = 1000
  /// "name 2" … "name 99": a folder holding all of them is not a place to invent more.
  static let maxNameTries = 99

  let service: ItemService
  let sync: SyncEngine?
  let source: Domain
  let target: Domain

  public init(items: ItemService, sync: SyncEngine?, source: Domain, target: Domain) {
    self.service = items
    self.sync = sync
    self.source = source
    self.target = target
  }

  /// The folder copied into: its path, its identifier when known (an upload needs only that
  /// when the server cannot be reached), and its name for messages.
  public struct Destination: Sendable {
    public var path: ItemPath
    public var identifier: ItemIdentifier?
    public var name: String
    public init(path: ItemPath, identifier: ItemIdentifier?, name: String) {
      self.path = path
      self.identifier = identifier
      self.name = name
    }
  }

  /// A failure, with the location whose provider raised it (the one to sign in to).
  struct Failure: Error {
    var domain: DomainIdentifier
    var error: ProviderError
  }

  public struct Tally: Sendable {
    public var copied = 0
    public var uploads = 0
    public var written = 0
    public var folders = 0
    public var skipped = 0
    /// Names (display-safe) and what went wrong.
    public var failures: [(name: String, error: ProviderError)] = []
    public var entries = 0
    /// The journaled uploads (transfer ids), for a command that waits for them to be sent.
    public var queued: [Int64] = []
    /// The top-level items copied whole (every entry below a folder too), by identifier: what
    /// a move may remove from the source once the copies are safe.
    public var whole: [ItemIdentifier] = []
    /// Why the destination could not be reached, if it could not: the uploads wait for it.
    public var unreachable: ProviderError?
    public var offline: Bool { unreachable != nil }
  }

  public enum Outcome: Sendable {
    case done(Tally)
    /// A location asked for credentials: sign in, then paste `remaining` again.
    case signIn(DomainIdentifier, ProviderError, remaining: [Item], Tally)
  }

  public func run(_ items: [Item], into folder: Destination) async -> Outcome {
    var tally = Tally()
    let parent: Item
    do throws(Failure) {
      (parent, tally.unreachable) = try await on(target) { () async throws(ProviderError) -> (Item, ProviderError?) in
        try await destination(folder)
      }
    } catch {
      if error.error.code == .notAuthenticated { return .signIn(error.domain, error.error, remaining: items, tally) }
      tally.failures.append((folder.name, error.error))
      return .done(tally)
    }
    for (i, item) in items.enumerated() {
      do throws(Failure) {
        let failuresBefore = tally.failures.count
        let skippedBefore = tally.skipped
        try await paste(item, into: parent, depth: 0, tally: &tally)
        if tally.failures.count == failuresBefore && tally.skipped == skippedBefore { tally.whole.append(item.identifier) }
      } catch {
        if error.error.code == .notAuthenticated {
          return .signIn(error.domain, error.error, remaining: Array(items[i...]), tally)
        }
        tally.failures.append((item.filename.displayString, error.error))
      }
    }
    return .done(tally)
  }

  /// One item; a folder's children each fail on their own (only a sign-in stops everything).
  private func paste(_ item: Item, into parent: Item, depth: Int, tally: inout Tally) async throws(Failure) {
    guard tally.entries < Self.maxEntries else {
      tally.skipped += 1
      return
    }
    tally.entries += 1
    if source.identifier == target.identifier {
      _ = try await on(target) { () async throws(ProviderError) -> Item in
        try await service.copy(item, to: parent, in: target)
      }
      tally.copied += 1
      return
    }
    guard item.isFolder else {
      try await transfer(item, into: parent, tally: &tally)
      return
    }
    if tally.offline {
      throw Failure(
        domain: target.identifier,
        error: ProviderError(
          .serverUnreachable, "\(target.displayName) cannot be reached: files are queued, but a folder is made only on the server"))
    }
    let name = try await freeName(item.filename, in: parent)
    let made = try await on(target) { () async throws(ProviderError) -> Item in
      try await service.makeFolder(named: name, in: parent, in: target)
    }
    tally.folders += 1
    guard depth < Self.maxDepth else {
      tally.failures.append(
        (item.filename.displayString, ProviderError(.featureUnsupported, "its contents are more than \(Self.maxDepth) folders deep: not pasted")))
      return
    }
    for child in try await children(of: item) {
      do throws(Failure) {
        try await paste(child, into: made, depth: depth + 1, tally: &tally)
      } catch {
        if error.error.code == .notAuthenticated { throw error }
        tally.failures.append((child.filename.displayString, error.error))
      }
    }
  }

  /// The folder pasted into, and why it is only as this computer last saw it, if it is (its
  /// server cannot be reached: uploads into it are journaled all the same).
  private func destination(_ folder: Destination) async throws(ProviderError) -> (Item, ProviderError?) {
    do throws(ProviderError) {
      return (try await target.provider.item(at: folder.path), nil)
    } catch where error.code == .serverUnreachable && target.isSynced {
      let unreachable = error
      do throws(ProviderError) {
        return (try await service.itemAllowingOffline(at: folder.path, in: target), unreachable)
      } catch where error.code == .serverUnreachable {
        // Not in the index (browsed, never used): the folder on screen names itself. Only its
        // identifier matters to an upload.
        guard let id = folder.identifier else { throw error }
        return (
          Item(
            identifier: id, parentIdentifier: id, filename: ItemName(folder.name), path: folder.path, contentType: .folder),
          unreachable
        )
      }
    }
  }

  /// A file across locations: read here (downloaded first when remote), then uploaded or written.
  private func transfer(_ item: Item, into parent: Item, tally: inout Tally) async throws(Failure) {
    // Only a file written into a folder of this computer goes through URLs (ContentStore.export),
    // which cannot hold bytes that are not UTF-8: there such a name is refused, before anything
    // is downloaded. An upload takes a local file's exact path as bytes, and a download's copy
    // has a cache name, so any name crosses to a server (as `folio put` takes it).
    if target.hasDirectContent, !(parent.path.appending(item.filename).isValidUTF8 && (!source.hasDirectContent || item.path.isValidUTF8)) {
      throw Failure(
        domain: target.identifier,
        error: ProviderError(
          .featureUnsupported, "a name that is not UTF-8 is written into this computer only by `folio get` (exact bytes)"))
    }
    let content: ItemPath
    if source.hasDirectContent {
      content = item.path
    } else {
      guard let engine = sync else {
        throw Failure(domain: source.identifier, error: ProviderError(.featureUnsupported, "\(source.displayName) has no sync engine to download from"))
      }
      let copy = try await on(source) { () async throws(ProviderError) -> URL in try await engine.materialize(item, in: source) }
      content = ItemPath(copy.path)
    }
    // Offline, no name can be checked (each try would wait for the server): the queue does it.
    let name = tally.offline ? item.filename : try await freeName(item.filename, in: parent)
    if target.hasDirectContent {
      let from = URL(fileURLWithPath: content.lossyString)
      let destination = URL(fileURLWithPath: parent.path.appending(name).lossyString)
      try await on(target) { () async throws(ProviderError) in try await ContentStore.export(from, to: destination) }
      tally.written += 1
    } else {
      guard let engine = sync else {
        throw Failure(domain: target.identifier, error: ProviderError(.featureUnsupported, "\(target.displayName) has no sync engine to upload with"))
      }
      let id = try await on(target) { () async throws(ProviderError) -> Int64 in
        try await engine.put(content, as: name, into: parent, in: target)
      }
      tally.queued.append(id)
      tally.uploads += 1
    }
  }

  /// `name`, else "name 2", "name 3", … (before the extension): the first one `parent` does not
  /// hold. An upload queued but not sent yet is not seen here; the queue deals with that name.
  private func freeName(_ name: ItemName, in parent: Item) async throws(Failure) -> ItemName {
    for n in 1...Self.maxNameTries {
      let candidate = n == 1 ? name : Self.numbered(name, n)
      do throws(ProviderError) {
        _ = try await target.provider.item(at: parent.path.appending(candidate))
      } catch {
        if error.code == .noSuchItem { return candidate }
        // Offline: the queue finds a free name when it sends (a collision becomes "name 2").
        if error.code == .serverUnreachable && target.isSynced { return candidate }
        throw Failure(domain: target.identifier, error: error)
      }
    }
    throw Failure(
      domain: target.identifier,
      error: ProviderError(.filenameCollision, "\(parent.path.displayString) already holds \(name.displayString) and \(Self.maxNameTries - 1) numbered copies"))
  }

  /// "report.txt" → "report 2.txt"; "archive" → "archive 2"; ".profile" → ".profile 2".
  public static func numbered(_ name: ItemName, _ n: Int) -> ItemName {
    var stem = name.bytes
    var ext: [UInt8] = []
    if let dot = stem.lastIndex(of: 0x2E), dot > 0 {
      ext = Array(stem[dot...])
      stem = Array(stem[..<dot])
    }
    return ItemName(bytes: stem + Array(" \(n)".utf8) + ext)
  }

  /// Every child of a folder of the source location, all pages, hidden ones too (a copy is whole).
  private func children(of folder: Item) async throws(Failure) -> [Item] {
    try await on(source) { () async throws(ProviderError) -> [Item] in
      var all: [Item] = []
      var page: Page? = nil
      repeat {
        let result = try await source.provider.enumerate(
          EnumerationRequest(container: folder.identifier, includeHidden: true, suggestedPageSize: 500), page: page,
          progress: { _ in })
        all += result.items
        page = result.nextPage
      } while page != nil && all.count <= Self.maxEntries
      return all
    }
  }

  /// Runs `body`, naming the location whose provider failed.
  private func on<T>(_ domain: Domain, _ body: () async throws(ProviderError) -> T) async throws(Failure) -> T {
    do throws(ProviderError) {
      return try await body()
    } catch {
      throw Failure(domain: domain.identifier, error: error)
    }
  }
}

extension CrossLocationCopy.Tally {
  /// What was done, for the status line ("Queued 3 uploads, made 1 folder").
  public var summary: String {
    var parts: [String] = []
    func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
    if copied > 0 { parts.append("copied \(count(copied, "item", "items"))") }
    if written > 0 { parts.append("copied \(count(written, "file", "files")) here") }
    if uploads > 0 {
      parts.append("queued \(count(uploads, "upload", "uploads"))" + (offline ? " (the server cannot be reached: they go when it is back)" : ""))
    }
    if folders > 0 { parts.append("made \(count(folders, "folder", "folders"))") }
    if skipped > 0 { parts.append("left \(skipped) out (at most \(CrossLocationCopy.maxEntries) entries per paste)") }
    guard let first = parts.first else { return "Nothing pasted" }
    return ([first.prefix(1).uppercased() + first.dropFirst()] + parts.dropFirst()).joined(separator: ", ")
  }

  /// The first failure (escaped for the terminal) and how many more.
  public var failureText: String? {
    guard let (name, error) = failures.first else { return nil }
    let more = failures.count > 1 ? " (and \(failures.count - 1) more)" : ""
    return "Could not paste \(name): \(TerminalText.escapeMessage(error.message))\(more)"
  }
}
