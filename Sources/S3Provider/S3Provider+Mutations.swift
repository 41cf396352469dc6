import Foundation
import ProviderAPI
import S3Client

extension S3Provider {
  /// A folder is a `name/` marker; a file a PUT (multipart above the threshold) that never
  /// replaces: `If-None-Match: *` where the store honours it, else a HEAD just before.
  public func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    let parent = try requirePath(template.parentIdentifier)
    let name = try Self.acceptedName(template.filename)
    let target = parent.appending(name)
    defer { listings.forget(parent) }
    if template.contentType == .symlink { throw ProviderError(.featureUnsupported, "S3 has no links") }
    return try await withClient { c in
      if let existing = try? await self.stat(target, c) {
        let replaceable = options.contains(.mayAlreadyExist) && !existing.isFolder && template.contentType != .folder
        if existing.isFolder && template.contentType == .folder && options.contains(.mayAlreadyExist) { return existing }
        guard replaceable else { throw self.collision(target) }
      }
      if template.contentType == .folder {
        _ = try await c.putObject(
          Self.folderPrefix(target), fromFile: "/dev/null", size: 0, sha256: Self.emptySHA256,
          condition: self.conditionalWrites == .honoured ? .ifNoneMatch : .none)
        return self.folderItem(target)
      }
      let local = contents?.path ?? "/dev/null"
      let (size, sha) = try Self.digest(template.contentDigest, local)
      let condition: S3WriteCondition =
        self.conditionalWrites == .honoured && !options.contains(.mayAlreadyExist) ? .ifNoneMatch : .none
      do {
        let written = try await self.upload(c, Self.key(target), local, size: size, sha256: sha, condition: condition, progress)
        return self.fileItem(target, size: size, lastModified: Date(), etag: written.etag, versionID: written.versionID)
      } catch let error as S3Error where error.code == .preconditionFailed {
        throw self.collision(target)
      }
    }
  }

  /// Rename and move are a journaled job of copies and deletes (every key below a folder:
  /// ``S3Provider+Relocation``), its progress reported through `progress`; contents a PUT
  /// conditional on the base version where the store honours `If-Match`, else checked by a HEAD
  /// just before. A stale base keeps both versions: the new bytes go beside the object under a
  /// conflict name and the store's item comes back with `localVersionConflictingWithServer`.
  public func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    guard let identifier = template.identifier else {
      throw ProviderError(.invalidArgument, "a modify needs the item's identifier")
    }
    if changedFields.contains(.tagData) {
      throw ProviderError(.featureUnsupported, "S3 keeps no tags: Folio keeps them on this computer")
    }
    if trashedPath(identifier) != nil {
      // In the trash: Put Back into the new parent (the core's restore comes through restoreItem).
      guard changedFields.contains(.parentItemIdentifier), template.parentIdentifier != .trash else {
        throw ProviderError(.invalidArgument, "an item in the trash can only be put back or deleted")
      }
      return try await restoreItem(identifier, to: template.parentIdentifier)
    }
    var path = try requirePath(identifier)
    defer { listings.forget(path.parent) }
    if changedFields.contains(.parentItemIdentifier) && template.parentIdentifier == .trash && versioned {
      return try await trash(path)
    }
    if changedFields.contains(.contents) {
      if let kept = try await replaceContents(of: path, baseVersion: baseVersion, contents: contents, progress: progress) {
        return kept
      }
    }
    if !changedFields.isDisjoint(with: [.filename, .parentItemIdentifier]) {
      if changedFields.contains(.parentItemIdentifier) && template.parentIdentifier == .trash {
        throw ProviderError(.featureUnsupported, "this bucket keeps no versions, so it has no trash; delete the item instead")
      }
      let newPath = try relocationTarget(of: path, template, changedFields, accept: Self.acceptedName)
      if newPath != path {
        try await relocate(path, to: newPath, progress: progress)
        listings.forget(newPath.parent)
        path = newPath
      }
    }
    return try await item(at: path)
  }

  /// Writes new content over the object at `path`; returns the item to answer with, or nil when
  /// a rename is still to be done by the caller (the content went in).
  private func replaceContents(
    of path: ItemPath, baseVersion: ItemVersion, contents: URL?, progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item? {
    guard path != .root else { throw ProviderError(.invalidArgument, "the top of the location is a folder") }
    let local = contents?.path ?? "/dev/null"
    let base = Self.etag(baseVersion)
    return try await withClient { c -> Item? in
      let (size, sha) = try Self.digest(nil, local)
      let current: S3ObjectInfo
      do {
        current = try await c.headObject(Self.key(path))
      } catch let error as S3Error where error.code == .noSuchKey {
        throw ProviderError.noSuchItem(path.displayString)  // deleted on the store: the core re-creates it
      }
      var stale = current.etag != base
      if !stale {
        do {
          let condition: S3WriteCondition = self.conditionalWrites == .honoured ? .ifMatch(current.etag) : .none
          _ = try await self.upload(c, Self.key(path), local, size: size, sha256: sha, condition: condition, progress)
          return nil
        } catch let error as S3Error where error.code == .preconditionFailed || error.code == .conflict {
          stale = true  // written by someone else between the HEAD and the PUT
        }
      }
      let copy = try await self.keepConflictCopy(of: path, from: local, size: size, sha256: sha, c)
      var kept = try await self.stat(path, c)
      kept.uploadingError = ProviderError(
        .localVersionConflictingWithServer,
        "\(path.lastComponent!.displayString) changed on the store first; your version was kept as '\(copy.displayString)'",
        existingItem: self.identifier(for: path.parent.appending(copy)))
      kept.isMostRecentVersionDownloaded = false
      return kept
    }
  }

  private func keepConflictCopy(of path: ItemPath, from local: String, size: Int64, sha256: String, _ c: S3Client)
    async throws -> ItemName
  {
    for n in 1...100 {
      let name = ConflictCopyName.name(for: path.lastComponent!, at: Date(), attempt: n)
      let target = path.parent.appending(name)
      if try await exists(target, c) { continue }
      do {
        let condition: S3WriteCondition = conditionalWrites == .honoured ? .ifNoneMatch : .none
        _ = try await upload(c, Self.key(target), local, size: size, sha256: sha256, condition: condition, { _ in })
        return name
      } catch let error as S3Error where error.code == .preconditionFailed {
        continue
      }
    }
    throw ProviderError(.cannotSynchronize, "no free name for a conflict copy of \(path.displayString)")
  }

  /// The keys an item is made of: its own, or every key below a folder (markers included).
  func keys(of path: ItemPath, _ c: S3Client) async throws -> [[UInt8]] {
    try await objects(of: path, c).map(\.key)
  }

  /// ``keys(of:_:)`` with each object's size.
  func objects(of path: ItemPath, _ c: S3Client) async throws -> [(key: [UInt8], size: Int64)] {
    if let info = try? await c.headObject(Self.key(path)) { return [(Self.key(path), info.size)] }
    var objects: [(key: [UInt8], size: Int64)] = []
    var token: String?
    repeat {
      let page = try await c.listObjects(prefix: Self.folderPrefix(path), delimiter: nil, continuationToken: token)
      objects += page.objects.map { ($0.key, $0.size) }
      token = page.isTruncated ? page.nextContinuationToken : nil
    } while token != nil
    return objects
  }

  /// Deletes an object, or every key below a folder (with `.recursive`; a folder with keys below
  /// it is refused without). An item that is not there is success.
  public func deleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError) {
    if identifier == .root { throw ProviderError(.deletionRejected, "the top of the location cannot be deleted") }
    if let original = trashedPath(identifier) {
      try await deleteForever(original)
      return
    }
    guard let path = path(for: identifier) else { return }
    defer { listings.forget(path.parent) }
    try await withClient { c in
      let keys = try await self.keys(of: path, c)
      if keys.count > 1 || (keys.count == 1 && keys[0] != Self.key(path) && keys[0] != Self.folderPrefix(path)) {
        guard options.contains(.recursive) else {
          throw ProviderError(.directoryNotEmpty, "\(path.displayString) is not empty")
        }
      }
      for key in keys {
        if self.versioned {
          // For good means every version: a plain DELETE would only leave a marker (the trash).
          try await self.deleteForever(ItemPath(bytes: [0x2F] + key))
        } else {
          _ = try await c.deleteObject(key)
        }
      }
    }
  }

  /// A server-side copy of each key (CopyObject: the bytes never come here), never over a name
  /// that is taken.
  public func copyItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier, name: ItemName?) async throws(ProviderError)
    -> Item
  {
    let source = try requirePath(identifier)
    let folder = try requirePath(parent)
    let target = folder.appending(try Self.acceptedName(name ?? source.lastComponent ?? ItemName(bytes: [0x78])))
    defer { listings.forget(folder) }
    return try await withClient { c in
      if try await self.exists(target, c) { throw self.collision(target) }
      let objects = try await self.objects(of: source, c)
      guard !objects.isEmpty else { throw ProviderError.noSuchItem(source.displayString) }
      try await self.copyAll(objects, from: Self.key(source), to: Self.key(target), c)
      return try await self.stat(target, c)
    }
  }

  public func performAction(_ action: ActionIdentifier, on items: [ItemIdentifier]) async throws(ProviderError) {
    throw ProviderError(.featureUnsupported, "S3 locations declare no actions")
  }

  // MARK: - Helpers

  /// Copies each key from under `old` to under `new` on the server (Copy; a rename is a journaled
  /// job instead). A failure part-way removes the copies already made (best effort) before it is
  /// thrown: a copy tried again must not find half a folder under the new name and call it taken.
  func copyAll(_ objects: [(key: [UInt8], size: Int64)], from old: [UInt8], to new: [UInt8], _ c: S3Client) async throws {
    var made: [[UInt8]] = []
    do {
      for o in objects {
        let target = new + o.key.dropFirst(old.count)
        try await copyObject(o.key, size: o.size, to: target, c)
        made.append(target)
      }
    } catch {
      for key in made { _ = try? await c.deleteObject(key) }
      throw error
    }
  }

  /// One object copied on the server: CopyObject up to ``copyPartThreshold``; above it (S3
  /// refuses CopyObject past 5 GiB) a multipart upload whose parts are UploadPartCopy ranges of the
  /// source, pinned to its ETag, with its metadata (`folio-sha256`) carried over; a failure aborts
  /// the upload, so no half copy is left pending.
  ///
  /// With `overwrite` the target is not required to be free (a resumed rename's own copy).
  func copyObject(_ key: [UInt8], size: Int64, to target: [UInt8], overwrite: Bool = false, _ c: S3Client) async throws {
    let condition: S3WriteCondition = conditionalWrites == .honoured && !overwrite ? .ifNoneMatch : .none
    guard size > copyPartThreshold else {
      _ = try await c.copyObject(from: key, to: target, condition: condition)
      return
    }
    let info = try await c.headObject(key)
    let id = try await c.createMultipartUpload(target, contentType: info.contentType, metadata: info.metadata)
    do {
      var parts: [S3UploadedPart] = []
      var start: Int64 = 0
      while start < info.size {
        let end = min(info.size, start + copyPartSize) - 1
        let etag = try await c.uploadPartCopy(
          target, uploadID: id, partNumber: parts.count + 1, from: key, range: S3ByteRange(start: start, end: end),
          sourceIfMatch: info.etag)
        parts.append(S3UploadedPart(partNumber: parts.count + 1, etag: etag))
        start = end + 1
      }
      _ = try await c.completeMultipartUpload(target, uploadID: id, parts: parts, condition: condition)
    } catch {
      try? await c.abortMultipartUpload(target, uploadID: id)
      throw error
    }
  }

  func upload(
    _ c: S3Client, _ key: [UInt8], _ local: String, size: Int64, sha256: String, condition: S3WriteCondition,
    _ progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws -> S3WriteResult {
    try await S3Upload(
      client: c, key: key, localPath: local, size: size, sha256: sha256, condition: condition,
      threshold: multipartThreshold, partSize: partSize, progress: progress
    ).run()
  }

  /// The size and SHA-256 of the bytes to send: the staged upload's digest when it has one.
  static func digest(_ given: ContentDigest?, _ local: String) throws -> (Int64, String) {
    if let given, given.algorithm == .sha256, local != "/dev/null" { return (given.size, given.value) }
    if local == "/dev/null" { return (0, emptySHA256) }
    return try S3Upload.sha256(of: local)
  }

  static let emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

  func collision(_ path: ItemPath) -> ProviderError {
    ProviderError(.filenameCollision, "\(path.displayString) already exists", existingItem: identifier(for: path))
  }
}
