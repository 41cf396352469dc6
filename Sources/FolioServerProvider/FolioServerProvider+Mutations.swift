import AsyncHTTPClient
import FolioProtocol
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI

extension FolioServerProvider {
  /// Creates a folder, or a file from `contents` (an empty file when nil).
  ///
  /// A file is uploaded with `POST /v1/uploads`: its size and SHA-256 are computed first, then
  /// the body streams from disk; the server stores nothing unless both match. With
  /// `.mayAlreadyExist`, a folder whose name is taken by a folder is that folder (a re-import
  /// merges). Tags, favorite rank and last-used date named in `fields` follow in one change.
  /// `progress` counts the body's bytes handed to the connection (``FileBodySequence``).
  public func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    let parent = try WireItemMapper.wireID(template.parentIdentifier)
    let name = try wireName(template.filename)
    var created: Item
    switch template.contentType {
    case .folder:
      do {
        let wire = try await connection.json(
          ServerRequest(.POST, ["items"], body: try jsonBody(CreateFolderRequest(parent: parent, name: name))),
          as: WireItem.self, what: "the new folder")
        created = try mapper.item(wire)
      } catch {
        guard error.code == .filenameCollision, options.contains(.mayAlreadyExist), let existing = error.existingItem,
          let found = try? await item(for: existing, pathHint: nil), found.isFolder
        else { throw error }
        created = found
      }
    case .symlink, .special:
      throw ProviderError(.featureUnsupported, "a Folio server stores files and folders only")
    default:
      created = try await upload(
        ServerRequest(.POST, ["uploads"], query: [("parent", parent), ("name", name)]), contents: contents,
        digest: template.contentDigest, progress: progress
      ).item
    }
    let patch = metadataPatch(template, fields: fields.intersection([.tagData, .favoriteRank, .lastUsedDate]))
    if let patch { created = try await apply(patch, to: created.identifier, base: created.version) }
    return created
  }

  /// Changes content and metadata. Content goes first (`PUT …/content?base=`), then the other
  /// fields in one `PATCH`. A stale content base is not an error: see the type's documentation
  /// ("Conflicts") for how the returned item shows it. Fields a Folio server does not store
  /// (dates it sets itself, xattrs) are ignored.
  public func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    guard let identifier = template.identifier else {
      throw ProviderError(.invalidArgument, "a modification needs the item's identifier")
    }
    let id = try WireItemMapper.wireID(identifier)
    var result: Item?
    var conflictCopy: Item?
    var base = baseVersion
    if changedFields.contains(.contents) {
      guard let contents else { throw ProviderError(.invalidArgument, "new content was announced but not given") }
      guard let revision = WireItemMapper.contentRevision(baseVersion) else {
        throw ProviderError(.invalidArgument, "the base version did not come from this Folio server")
      }
      let answer = try await upload(
        ServerRequest(.PUT, ["items", id, "content"], query: [("base", String(revision))]), contents: contents,
        digest: template.contentDigest, progress: progress)
      result = answer.item
      conflictCopy = answer.conflictCopy
      base = answer.item.version
    }
    if let patch = metadataPatch(template, fields: changedFields) {
      result = try await apply(patch, to: identifier, base: base)
    }
    var item: Item
    if let result { item = result } else { item = try await self.item(for: identifier, pathHint: nil) }
    if let conflictCopy { Self.markConflict(&item, copy: conflictCopy) }
    return item
  }

  /// Deletes forever (with everything inside). An identifier the server does not know is success.
  ///
  /// With a `baseVersion`, an item whose content changed since is not deleted
  /// (`deletionRejected`: an edit beats a delete); without `.recursive`, a folder with children is
  /// `directoryNotEmpty`. Both checks read the item first, so they narrow the race rather than
  /// close it (the protocol's DELETE takes no base).
  public func deleteItem(
    _ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions
  ) async throws(ProviderError) {
    let id = try WireItemMapper.wireID(identifier)
    guard identifier != .root, identifier != .trash else {
      throw ProviderError(.noPermission, "the \(identifier == .root ? "root folder" : "trash") cannot be deleted")
    }
    let checkBase = baseVersion.map { !$0.content.isEmpty } ?? false
    if checkBase || !options.contains(.recursive) {
      let current: Item
      do {
        current = try await item(for: identifier, pathHint: nil)
      } catch where error.code == .noSuchItem {
        return
      }
      if let baseVersion, checkBase, current.version.content != baseVersion.content {
        throw ProviderError(
          .deletionRejected, "\(current.path.displayString) changed on the server since it was read; it was not deleted")
      }
      if !options.contains(.recursive), current.isFolder, (current.childItemCount ?? 1) > 0 {
        throw ProviderError(.directoryNotEmpty, "\(current.path.displayString) is not empty")
      }
    }
    do {
      try await connection.perform(ServerRequest(.DELETE, ["items", id]))
    } catch where error.code == .noSuchItem {
      return
    }
  }

  /// Out of the trash: into `parent`, or where it was (the server recreates a missing folder).
  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?) async throws(ProviderError) -> Item {
    try await restoreItem(identifier, to: parent, as: nil)
  }

  /// Out of the trash under another name ("Keep Both"): the server checks it as any name.
  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?, as name: ItemName?) async throws(ProviderError)
    -> Item
  {
    let id = try WireItemMapper.wireID(identifier)
    let target = try parent.map { (p: ItemIdentifier) throws(ProviderError) -> String in try WireItemMapper.wireID(p) }
    let newName = try name.map { (n: ItemName) throws(ProviderError) -> String in try wireName(n) }
    let wire = try await connection.json(
      ServerRequest(.POST, ["items", id, "restore"], body: try jsonBody(RestoreRequest(parent: target, name: newName))),
      as: WireItem.self, what: "the restored item")
    return try mapper.item(wire)
  }

  /// A copy (of a folder: with everything inside) in `parent`, named `name` or like the original.
  public func copyItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier, name: ItemName?) async throws(ProviderError)
    -> Item
  {
    let id = try WireItemMapper.wireID(identifier)
    let body = CopyRequest(
      parent: try WireItemMapper.wireID(parent),
      name: try name.map { (n: ItemName) throws(ProviderError) -> String in try wireName(n) })
    let wire = try await connection.json(
      ServerRequest(.POST, ["items", id, "copy"], body: try jsonBody(body)), as: WireItem.self, what: "the copy")
    return try mapper.item(wire)
  }

  /// Settles a conflict copy (`POST /v1/conflicts/{copy}/resolve`): keep the copy's bytes as the
  /// original's content (`.copy`), keep the original (`.original`, the copy goes to the trash), or
  /// keep both as two items (`.both`). Returns the original as it is afterwards.
  public func resolveConflict(copy: ItemIdentifier, keep: ResolveConflictRequest.Keep) async throws(ProviderError) -> Item {
    let wire = try await connection.json(
      ServerRequest(
        .POST, ["conflicts", try WireItemMapper.wireID(copy), "resolve"], body: try jsonBody(ResolveConflictRequest(keep: keep))),
      as: WireItem.self, what: "the resolved item")
    return try mapper.item(wire)
  }

  // MARK: Helpers

  /// The `PATCH` body for the metadata fields of `fields`, or nil when there is none to send.
  private func metadataPatch(_ template: ItemTemplate, fields: ItemFields) -> ModifyRequest? {
    var patch = ModifyRequest()
    var any = false
    if fields.contains(.filename) {
      patch.name = template.filename.utf8String ?? template.filename.lossyString
      any = true
    }
    if fields.contains(.parentItemIdentifier) {
      patch.parent = (try? WireItemMapper.wireID(template.parentIdentifier)) ?? template.parentIdentifier.rawValue
      any = true
    }
    if fields.contains(.tagData) {
      patch.tags = template.tags
      any = true
    }
    if fields.contains(.favoriteRank) {
      // 0 removes the favorite on the server; ranks start at 1.
      patch.favoriteRank = template.favoriteRank.map { max($0, 1) } ?? 0
      any = true
    }
    if fields.contains(.lastUsedDate), let date = template.lastUsedDate {
      patch.lastUsed = date.timeIntervalSince1970
      any = true
    }
    return any ? patch : nil
  }

  private func apply(_ patch: ModifyRequest, to identifier: ItemIdentifier, base: ItemVersion) async throws(ProviderError)
    -> Item
  {
    if let name = patch.name { _ = try wireName(ItemName(name)) }
    var patch = patch
    patch.baseMetadata = WireItemMapper.metadataRevision(base)
    let wire = try await connection.json(
      ServerRequest(.PATCH, ["items", try WireItemMapper.wireID(identifier)], body: try jsonBody(patch)),
      as: WireItem.self, what: "the changed item")
    return try mapper.item(wire)
  }

  /// Uploads `contents` (an empty body when nil) with its length and SHA-256: the caller's
  /// `digest` when it gives one (a staged snapshot, hashed as it was copied: reading 1 GiB again
  /// costs about half a second of CPU before the first byte goes), else computed here. The server
  /// stores nothing unless both match the bytes it receives.
  private func upload(
    _ request: ServerRequest, contents: URL?, digest: ContentDigest?,
    progress: (@Sendable (TransferProgress) -> Void)? = nil
  ) async throws(ProviderError) -> (item: Item, conflictCopy: Item?) {
    var request = request
    request.uploadProgress = progress
    var length: Int64 = 0
    if let contents {
      let (size, sha): (Int64, String)
      if let digest, digest.size >= 0, let given = digest.sha256, Self.isHexSHA256(given) {
        (size, sha) = (digest.size, given.lowercased())
      } else {
        (size, sha) = try await FileDigest.of(contents)
      }
      length = size
      request.body = .file(contents, size: size, sha256: sha)
    } else {
      request.body = .file(URL(fileURLWithPath: "/dev/null"), size: 0, sha256: Self.emptySHA256)
    }
    // The answer's head comes once the whole body is on the server: the idle timeouts guard the
    // transfer, not a first-byte deadline.
    request.timeout = .hours(24)
    let answer = try await connection.json(request, as: UploadResponse.self, what: "an upload answer")
    // The answer comes once the whole body is on the server.
    progress?(TransferProgress(completedBytes: length, totalBytes: length))
    let item = try mapper.item(answer.item)
    guard answer.contentAccepted || answer.conflictCopy != nil else {
      throw ProviderError(.cannotSynchronize, "\(connection.serverName) neither accepted the content nor kept a copy")
    }
    let copy = try answer.conflictCopy.map { (w: WireItem) throws(ProviderError) -> Item in try mapper.item(w) }
    return (item, answer.contentAccepted ? nil : copy)
  }

  static let emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

  /// Marks the server's item as the loser of a content conflict (see the type's documentation).
  static func markConflict(_ item: inout Item, copy: Item) {
    item.uploadingError = ProviderError(
      .localVersionConflictingWithServer,
      "\(item.filename.displayString) changed on the server first; your version was kept as '\(copy.filename.displayString)'",
      existingItem: copy.identifier)
    if !item.decorations.contains(conflictDecoration) { item.decorations.append(conflictDecoration) }
    item.isMostRecentVersionDownloaded = false
  }
}
