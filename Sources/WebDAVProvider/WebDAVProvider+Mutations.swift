import Foundation
import ProviderAPI
import WebDAVClient

extension WebDAVProvider {
  /// A folder is a MKCOL; a file a PUT that never replaces: `If-None-Match: *` where the server
  /// honours it, else a PROPFIND just before (and, on a server that writes in place, a MOVE with
  /// `Overwrite: F` from a temporary name, which every server honours).
  public func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    let parent = try requirePath(template.parentIdentifier)
    let name = try Self.acceptedName(template.filename)
    let target = parent.appending(name)
    defer { listings.forget(parent) }
    if template.contentType == .symlink { throw ProviderError(.featureUnsupported, "WebDAV has no links") }
    return try await withClient { c in
      var replacing = false
      if let existing = try await self.existing(target, c) {
        let isFolder = existing.isCollection
        if isFolder && template.contentType == .folder && options.contains(.mayAlreadyExist) { return self.folderItem(target) }
        guard options.contains(.mayAlreadyExist) && !isFolder && template.contentType != .folder else {
          throw self.collision(target)
        }
        replacing = true
      }
      do {
        if template.contentType == .folder {
          try await c.makeCollection(try Self.davPath(target))
          return self.folderItem(target)
        }
        try await self.send(
          c, contents?.path ?? "/dev/null", to: target, creating: !replacing, ifMatch: nil, token: template.uploadToken, progress)
      } catch let error as WebDAVError where error.code == .preconditionFailed || error.code == .conflict {
        throw self.collision(target)
      }
      return try await self.stat(target, c)
    }
  }

  /// Contents: a PUT conditional on the base version where the server honours `If-Match`, else
  /// checked by a PROPFIND just before. A stale base keeps both versions: the new bytes go beside
  /// the file under a conflict name and the server's item comes back with
  /// `localVersionConflictingWithServer`. Rename and move: MOVE with `Overwrite: F`. Favorite
  /// (Nextcloud only): PROPPATCH of `oc:favorite`.
  public func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    guard let identifier = template.identifier else {
      throw ProviderError(.invalidArgument, "a modify needs the item's identifier")
    }
    if changedFields.contains(.tagData) {
      // An item in Nextcloud's trash bin has no tags there to set: the index keeps them.
      guard davRoot != nil, trashName(identifier) == nil else {
        throw ProviderError(.featureUnsupported, "this WebDAV server keeps no tags: Folio keeps them on this computer")
      }
      let path = try requirePath(identifier)
      try await setSystemTags(template.tags, of: path)
      if changedFields == .tagData { return try await item(at: path) }
    }
    if trashName(identifier) != nil {
      // In the trash: Put Back into the new parent (the core's restore comes through restoreItem).
      guard changedFields.contains(.parentItemIdentifier), template.parentIdentifier != .trash else {
        throw ProviderError(.invalidArgument, "an item in the trash can only be put back or deleted")
      }
      return try await restoreItem(identifier, to: template.parentIdentifier)
    }
    var path = try requirePath(identifier)
    defer { listings.forget(path.parent) }
    if changedFields.contains(.parentItemIdentifier) && template.parentIdentifier == .trash {
      guard trashbin != nil else {
        throw ProviderError(.featureUnsupported, "this WebDAV server has no trash Folio can reach; delete the item instead")
      }
      return try await trash(path)
    }
    if changedFields.contains(.contents) {
      if let kept = try await replaceContents(
        of: path, baseVersion: baseVersion, contents: contents, token: template.uploadToken, progress: progress)
      {
        return kept
      }
    }
    if !changedFields.isDisjoint(with: [.filename, .parentItemIdentifier]) {
      let newPath = try relocationTarget(of: path, template, changedFields, accept: Self.acceptedName)
      if newPath != path {
        try await withClient { c in
          let isFolder = try await c.stat(try Self.davPath(path), properties: [.resourceType]).isCollection
          do {
            try await c.move(try Self.davPath(path), to: try Self.davPath(newPath), isCollection: isFolder, overwrite: false)
          } catch let error as WebDAVError where error.code == .preconditionFailed || error.code == .conflict {
            throw self.collision(newPath)
          }
        }
        listings.forget(newPath.parent)
        path = newPath
      }
    }
    if changedFields.contains(.favoriteRank) {
      // Only the Nextcloud dialect stores favorites (the traits say so): the core asks no other.
      guard dialect.storesFavorites else {
        throw ProviderError(.featureUnsupported, "this WebDAV server keeps no favorites: Folio keeps them on this computer")
      }
      let target = try Self.davPath(path)
      let isFolder = template.contentType == .folder || path == .root
      try await withClient { c in try await c.setFavorite(template.favoriteRank != nil, target, isCollection: isFolder) }
    }
    return try await item(at: path)
  }

  /// Writes new content over the file at `path`; returns the item to answer with when a conflict
  /// kept both versions, or nil when the content went in (the caller goes on with a rename).
  private func replaceContents(
    of path: ItemPath, baseVersion: ItemVersion, contents: URL?, token: String?, progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item? {
    guard path != .root else { throw ProviderError(.invalidArgument, "the top of the location is a folder") }
    let local = contents?.path ?? "/dev/null"
    let base = WebDAVVersion.text(baseVersion)
    return try await withClient { c -> Item? in
      guard var current = try await self.existing(path, c) else {
        throw ProviderError.noSuchItem(path.displayString)  // deleted on the server: the core re-creates it
      }
      if current.isCollection { throw ProviderError(.invalidArgument, "\(path.displayString) is a folder") }
      var stale = WebDAVVersion.of(current) != base
      if !stale && current.isETagWeak && self.conditionalWrites == .honoured {
        // Apache's ETag of a file younger than a second is weak, and If-Match compares strongly:
        // it would refuse the right version. A second later the same ETag is strong.
        try await Task.sleep(for: .milliseconds(1100))
        current = try await self.existing(path, c) ?? current
        stale = WebDAVVersion.of(current) != base
      }
      if !stale {
        do {
          try await self.send(
            c, local, to: path, creating: false, ifMatch: WebDAVVersion.strong(current.etag), token: token, progress)
          return nil
        } catch let error as WebDAVError where error.code == .preconditionFailed {
          stale = true  // written by someone else between the PROPFIND and the PUT
        }
      }
      let copy = try await self.keepConflictCopy(of: path, from: local, c)
      var kept = try await self.stat(path, c)
      kept.uploadingError = ProviderError(
        .localVersionConflictingWithServer,
        "\(path.lastComponent!.displayString) changed on the server first; your version was kept as '\(copy.displayString)'",
        existingItem: self.identifier(for: path.parent.appending(copy)))
      kept.isMostRecentVersionDownloaded = false
      return kept
    }
  }

  private func keepConflictCopy(of path: ItemPath, from local: String, _ c: WebDAVClient) async throws -> ItemName {
    for n in 1...100 {
      let name = ConflictCopyName.name(for: path.lastComponent!, at: Date(), attempt: n)
      let target = path.parent.appending(name)
      if try await existing(target, c) != nil { continue }
      do {
        try await send(c, local, to: target, creating: true, ifMatch: nil, { _ in })
        return name
      } catch let error as WebDAVError where error.code == .preconditionFailed {
        continue
      }
    }
    throw ProviderError(.cannotSynchronize, "no free name for a conflict copy of \(path.displayString)")
  }

  /// Sends the file at `local` as the content of `target`.
  ///
  /// On a server that replaces a file only once its upload is complete (Apache, nginx), one PUT:
  /// `If-None-Match: *` for a new file, `If-Match` of the base for a replace, where the server
  /// honours them. On one that writes in place (rclone's, wsgidav), or one not probed, the bytes
  /// go to a temporary name beside the target, then a MOVE puts them under the real name
  /// (`Overwrite: F` for a new file; for a replace, after the target's version was read again),
  /// so an interrupted upload leaves the old file whole. The temporary is removed on failure.
  ///
  /// - Throws: `WebDAVError.preconditionFailed` when the name is taken (a create) or the target
  ///   is no longer at `ifMatch` (a replace).
  func send(
    _ c: WebDAVClient, _ local: String, to target: ItemPath, creating: Bool, ifMatch: String?, token: String? = nil,
    _ progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws {
    let total = (try? FileManager.default.attributesOfItem(atPath: local)[.size] as? Int64) ?? nil
    let report: @Sendable (Int64) -> Void = { progress(TransferProgress(completedBytes: $0, totalBytes: total)) }
    let destination = try Self.davPath(target)
    let honoured = conditionalWrites == .honoured
    if let uploadsURL, let total, total > chunking.threshold {
      try await sendInChunks(
        c, local, size: total, to: target, uploadsURL: uploadsURL, creating: creating, ifMatch: ifMatch, token: token, report)
      return
    }
    guard replacesInPlace != false else {
      let condition: WebDAVWriteCondition =
        creating ? (honoured ? .ifNoneMatch : .none) : (honoured ? ifMatch.map { .ifMatch($0) } ?? .none : .none)
      if !honoured && creating, try await existing(target, c) != nil {
        throw WebDAVError(.preconditionFailed, "\(target.displayString) already exists")
      }
      _ = try await c.upload(file: local, to: destination, condition: condition, progress: report)
      return
    }
    let temporary = try Self.davPath(target.parent.appending(Self.temporaryName(token)))
    do {
      try await Self.putOwnTemporary(c, local, temporary, report)
      if !creating, let ifMatch {
        let now = try await c.stat(destination)
        if WebDAVVersion.strong(now.etag) != ifMatch {
          throw WebDAVError(.preconditionFailed, "\(target.displayString) changed on the server")
        }
      }
      try await c.move(temporary, to: destination, overwrite: !creating)
    } catch {
      Self.remove(temporary, c)
      throw error
    }
  }

  /// The PUT of an upload's own temporary. A 423 (Locked) there meets an earlier attempt of the
  /// same upload that the server is still reading: rclone holds the file while the handler of a
  /// killed client's PUT drains what the kernel had buffered, which on a slow link takes seconds.
  /// Nobody else writes that name, so it is tried again for about a minute, and then reported
  /// `serverBusy` (transient: the journal tries later), never "locked by another user".
  private static func putOwnTemporary(
    _ c: WebDAVClient, _ local: String, _ temporary: WebDAVPath, _ report: @escaping @Sendable (Int64) -> Void
  ) async throws {
    var pause: Duration = .milliseconds(250)
    var attempts = 0
    while true {
      do {
        _ = try await c.upload(file: local, to: temporary, condition: .none, progress: report)
        return
      } catch {
        guard error.code == .locked else { throw error }
        attempts += 1
        if attempts > 20 {
          throw ProviderError(.serverBusy, "the server still holds an earlier attempt of this upload", retryAfter: 10)
        }
      }
      try await Task.sleep(for: pause)
      pause = pause < .seconds(2) ? pause * 2 : .seconds(4)
    }
  }

  /// A big file to Nextcloud: chunked upload v2 (``NextcloudUpload``), resumable by its token.
  /// The assembling MOVE carries the condition: `Overwrite: F` for a new file (every server
  /// honours it), the base's ETag for a replace where the server honours conditions; elsewhere
  /// the target's version is read again just before.
  private func sendInChunks(
    _ c: WebDAVClient, _ local: String, size: Int64, to target: ItemPath, uploadsURL: URL, creating: Bool, ifMatch: String?,
    token: String?, _ report: @escaping @Sendable (Int64) -> Void
  ) async throws {
    let destination = try Self.davPath(target)
    var condition: WebDAVWriteCondition = creating ? .ifNoneMatch : .none
    if !creating, let ifMatch {
      if conditionalWrites == .honoured {
        condition = .ifMatch(ifMatch)
      } else if WebDAVVersion.strong(try await c.stat(destination).etag) != ifMatch {
        throw WebDAVError(.preconditionFailed, "\(target.displayString) changed on the server")
      }
    }
    let uploads = WebDAVClient(
      try WebDAVConfiguration(url: uploadsURL, user: c.configuration.user, password: c.configuration.password, caFile: caFile))
    _ = try await NextcloudUpload(
      uploads: uploads, folder: try WebDAVPath(NextcloudUpload.folderName(token)), destination: try c.absoluteURL(destination),
      localPath: local, size: size, chunking: chunking, condition: condition, progress: report
    ).run()
  }

  /// The temporary an upload owns beside its target: `.folio-upload-TOKEN.part`, named from the
  /// upload's journal token so that every attempt of one upload writes the same name (a retry
  /// after a `kill -9` replaces what the killed one left), or a random one without a token.
  static func temporaryName(_ token: String?) -> ItemName {
    let tag = token.map { String($0.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }.prefix(40)) }
    return ItemName(".folio-upload-\(tag.flatMap { $0.isEmpty ? nil : $0 } ?? UUID().uuidString.lowercased()).part")
  }

  /// Removes a failed upload's temporary, outside the (perhaps cancelled) task and without making
  /// it wait: a server may still be writing the file when the upload is given up (rclone answers
  /// 423 to its DELETE while the PUT's handler holds it, until that connection is gone), so the
  /// removal is checked and tried again, for about five minutes. Only a server that cannot be
  /// reached ends it early; any other answer (423, a 5xx, a PROPFIND refused while the file is
  /// being written, a slow reply on a loaded machine) is tried again. What is still left then is
  /// the upload's own name: its next attempt writes it again and moves it over the file.
  static func remove(_ temporary: WebDAVPath, _ c: WebDAVClient) {
    Task.detached {
      var pause = Duration.milliseconds(100)
      for _ in 0..<80 {
        try? await c.delete(temporary)
        do {
          _ = try await c.stat(temporary, properties: [.resourceType])
        } catch let error as WebDAVError where error.code == .notFound {
          return
        } catch let error as WebDAVError where error.code == .unreachable || error.code == .needsSignIn {
          return  // the server is gone, or will not hear us: nothing more to do now
        } catch {}
        try? await Task.sleep(for: pause)
        pause = min(pause * 2, .seconds(4))
      }
    }
  }

  /// Deletes a file, or a folder with everything below it (with `.recursive`; a folder with
  /// children is refused without). An item that is not there is success. WebDAV keeps no trash
  /// Folio can reach: this is for good, and the browser and `folio rm` say so before.
  public func deleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError) {
    if identifier == .root { throw ProviderError(.deletionRejected, "the top of the location cannot be deleted") }
    if let name = trashName(identifier) {
      try await deleteForever(name)
      return
    }
    guard let path = path(for: identifier) else { return }
    defer { listings.forget(path.parent) }
    try await withClient { c in
      guard let entry = try await self.existing(path, c) else { return }
      let davPath = try Self.davPath(path)
      if entry.isCollection && !options.contains(.recursive) {
        let listing = try await c.list(davPath, properties: [.resourceType], batchSize: 1) { _ in }
        if listing.childCount > 0 { throw ProviderError(.directoryNotEmpty, "\(path.displayString) is not empty") }
      }
      do {
        try await c.delete(davPath, isCollection: entry.isCollection)
      } catch let error as WebDAVError where error.code == .notFound {
        return
      }
      // For good: where the server keeps what is deleted in its bin, that entry goes too.
      try await self.purgeFromTrash(path, c)
    }
  }

  /// A server-side COPY (the bytes never come here), never over a name that is taken.
  public func copyItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier, name: ItemName?) async throws(ProviderError)
    -> Item
  {
    let source = try requirePath(identifier)
    let folder = try requirePath(parent)
    let target = folder.appending(try Self.acceptedName(name ?? source.lastComponent ?? ItemName(bytes: [0x78])))
    defer { listings.forget(folder) }
    return try await withClient { c in
      guard let entry = try await self.existing(source, c) else { throw ProviderError.noSuchItem(source.displayString) }
      if try await self.existing(target, c) != nil { throw self.collision(target) }
      do {
        try await c.copy(try Self.davPath(source), to: try Self.davPath(target), isCollection: entry.isCollection, overwrite: false)
      } catch let error as WebDAVError where error.code == .preconditionFailed {
        throw self.collision(target)
      }
      return try await self.stat(target, c)
    }
  }

  public func performAction(_ action: ActionIdentifier, on items: [ItemIdentifier]) async throws(ProviderError) {
    throw ProviderError(.featureUnsupported, "WebDAV locations declare no actions")
  }

  func collision(_ path: ItemPath) -> ProviderError {
    ProviderError(.filenameCollision, "\(path.displayString) already exists", existingItem: identifier(for: path))
  }
}
