import Foundation
import ProviderAPI
import SFTPClient

extension SFTPProvider {
  /// A folder is MKDIR; a file is uploaded to a temporary name beside the target, fsynced and
  /// renamed in with plain RENAME, which refuses a name taken meanwhile (`filenameCollision`).
  /// `progress` counts the writes the server acknowledged (SFTPClient's pipelined WRITE loop).
  public func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    let parent = try requirePath(template.parentIdentifier)
    let name = try ItemName.validated(template.filename.bytes)
    let target = parent.appending(name)
    return try await withConnection { c in
      let remote = c.remote(target)
      if template.contentType == .folder {
        do {
          try await c.client.makeDirectory(remote)
        } catch let error as SFTPError where error.code == .failure {
          guard let existing = try? await self.stat(target, c) else { throw error }
          if options.contains(.mayAlreadyExist) && existing.isFolder { return existing }
          throw self.collision(target)
        }
        return try await self.stat(target, c)
      }
      if template.contentType == .symlink {
        throw ProviderError(.featureUnsupported, "Folio cannot make links on an SFTP server")
      }
      let local = contents?.path ?? "/dev/null"
      let temporary = Self.temporary(for: remote, template)
      let written: SFTPProgress = { done, total in
        progress(TransferProgress(completedBytes: Int64(clamping: done), totalBytes: total.map { Int64(clamping: $0) }))
      }
      do {
        let attributes = try await c.client.replace(remote, from: local, expecting: nil, temporary: temporary, progress: written)
        return self.makeItem(target, attributes, linkTarget: nil, root: c.root)
      } catch let error as SFTPError where error.code == .conflict {
        // The name is taken: a re-import may write over a file, never over a folder.
        guard options.contains(.mayAlreadyExist), let existing = try? await c.client.lstat(remote),
          existing.fileType == .regular
        else { throw self.collision(target) }
        let attributes = try await c.client.replace(
          remote, from: local, expecting: existing.version, temporary: temporary, progress: written)
        return self.makeItem(target, attributes, linkTarget: nil, root: c.root)
      }
    }
  }

  /// Rename and move with RENAME, which never replaces an existing item; contents with a safe
  /// replace checked against `baseVersion` (a stale base keeps both versions: see the type).
  /// The returned item's identifier is its new path's. `progress` counts the acknowledged writes
  /// of new content (not of a conflict copy's, which follows a refused replace).
  public func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    guard let identifier = template.identifier else {
      throw ProviderError(.invalidArgument, "a modify needs the item's identifier")
    }
    // An SSH host has no place for tags: saying so makes the index keep them (for this computer)
    // and merge them into listings, as on a filesystem without user xattrs.
    if changedFields.contains(.tagData) {
      throw ProviderError(.featureUnsupported, "an SFTP server keeps no tags: Folio keeps them on this computer")
    }
    var path = try requirePath(identifier)
    var newPath = path
    if !changedFields.isDisjoint(with: [.filename, .parentItemIdentifier]) {
      if changedFields.contains(.parentItemIdentifier) && template.parentIdentifier == .trash {
        throw ProviderError(.featureUnsupported, "this SFTP location has no trash; delete the item instead")
      }
      // Into itself (or below) is refused there: the server's answer is a bare "Bad message".
      newPath = try relocationTarget(of: path, template, changedFields) { (name) throws(ProviderError) in
        try ItemName.validated(name.bytes)
      }
    }
    let (from, to) = (path, newPath)
    if from != to {
      try await withConnection { c in
        do {
          try await c.client.rename(c.remote(from), to: c.remote(to))
        } catch let error as SFTPError where error.code == .failure {
          if (try? await c.client.lstat(c.remote(to))) != nil { throw self.collision(to) }
          throw error
        }
      }
      path = newPath
    }
    guard changedFields.contains(.contents) else { return try await item(at: path) }
    let target = path
    let local = contents?.path ?? "/dev/null"
    // A version that is not "mtime:size" (another provider's) cannot match: the upload is kept
    // beside the file, never over it.
    let base = Self.sftpVersion(baseVersion) ?? SFTPVersion(size: .max, modificationTime: 0)
    return try await withConnection { c in
      let temporary = Self.temporary(for: c.remote(target), template)
      let written: SFTPProgress = { done, total in
        progress(TransferProgress(completedBytes: Int64(clamping: done), totalBytes: total.map { Int64(clamping: $0) }))
      }
      do {
        let attributes = try await c.client.replace(
          c.remote(target), from: local, expecting: base, temporary: temporary, progress: written)
        return self.makeItem(target, attributes, linkTarget: nil, root: c.root)
      } catch let error as SFTPError where error.code == .conflict {
        guard var current = try? await self.stat(target, c) else {
          throw ProviderError.noSuchItem(target.displayString)  // deleted on the server: the core re-creates it
        }
        let copy = try await self.keepConflictCopy(of: target, from: local, temporary: temporary, c)
        current.uploadingError = ProviderError(
          .localVersionConflictingWithServer,
          "\(current.filename.displayString) changed on the server first; your version was kept as '\(copy.displayString)'",
          existingItem: self.identifier(for: target.parent.appending(copy)))
        current.isMostRecentVersionDownloaded = false
        return current
      }
    }
  }

  /// The temporary name an upload with a token owns beside `remote` (nil: a fresh random one).
  /// See ``SFTPClient/replace(_:from:expecting:temporary:progress:)``.
  static func temporary(for remote: [UInt8], _ template: ItemTemplate) -> [UInt8]? {
    template.uploadToken.map { SFTPClient.temporaryName(for: remote, token: $0) }
  }

  /// Uploads `local` beside `target` as "stem (conflict, DATE).ext" (numbered when taken), as
  /// the sync engine names its conflict copies. Returns the name used. The bytes wait under the
  /// target's own temporary name: the copy's name holds a date, and a retry in another minute
  /// would not find a temporary named after it.
  private func keepConflictCopy(
    of target: ItemPath, from local: String, temporary: [UInt8]?, _ c: SFTPSession.Connection
  ) async throws -> ItemName {
    let base = Self.conflictName(target.lastComponent!, at: Date())
    for n in 1...100 {
      let name = n == 1 ? base : Self.numbered(base, n)
      do {
        try await c.client.replace(c.remote(target.parent.appending(name)), from: local, expecting: nil, temporary: temporary)
        return name
      } catch let error as SFTPError where error.code == .conflict {
        continue
      }
    }
    throw ProviderError(.cannotSynchronize, "no free name for a conflict copy of \(target.displayString)")
  }

  static func conflictName(_ name: ItemName, at date: Date) -> ItemName {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.dateFormat = "yyyy-MM-dd HH.mm"
    let (stem, ext) = split(name)
    return ItemName(bytes: stem + Array(" (conflict, \(f.string(from: date)))".utf8) + ext)
  }

  static func numbered(_ name: ItemName, _ n: Int) -> ItemName {
    let (stem, ext) = split(name)
    return ItemName(bytes: stem + Array(" \(n)".utf8) + ext)
  }

  private static func split(_ name: ItemName) -> (stem: [UInt8], ext: [UInt8]) {
    let b = name.bytes
    guard let dot = b.lastIndex(of: 0x2E), dot > 0, dot < b.count - 1 else { return (b, []) }
    return (Array(b[..<dot]), Array(b[dot...]))
  }

  func collision(_ path: ItemPath) -> ProviderError {
    ProviderError(.filenameCollision, "\(path.displayString) already exists", existingItem: identifier(for: path))
  }

  /// REMOVE, or RMDIR (recursively with `.recursive`). An item that is not there is success.
  public func deleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError) {
    if identifier == .root { throw ProviderError(.deletionRejected, "the top of the location cannot be deleted") }
    guard let path = path(for: identifier) else { return }
    try await withConnection { c in
      let remote = c.remote(path)
      let attributes: SFTPAttributes
      do {
        attributes = try await c.client.lstat(remote)
      } catch let error as SFTPError where error.code == .noSuchFile {
        return
      }
      if attributes.fileType == .directory {
        if options.contains(.recursive) {
          try await Self.removeTree(remote, c.client)
        } else {
          do {
            try await c.client.removeDirectory(remote)
          } catch let error as SFTPError where error.code == .failure {
            if let entries = try? await c.client.listDirectory(remote), !entries.isEmpty {
              throw ProviderError(.directoryNotEmpty, "\(path.displayString) is not empty")
            }
            throw error
          }
        }
      } else {
        try await Self.ignoringGone { try await c.client.remove(remote) }
      }
    }
  }

  /// Depth first: RMDIR fails on a folder that is not empty (draft §6.6). Items that vanish
  /// meanwhile are not an error.
  static func removeTree(_ remote: [UInt8], _ client: SFTPClient) async throws {
    let entries: [SFTPDirectoryEntry]
    do {
      entries = try await client.listDirectory(remote)
    } catch let error as SFTPError where error.code == .noSuchFile {
      return
    }
    for entry in entries {
      let child = remote + [0x2F] + entry.name
      if entry.attributes.fileType == .directory {
        try await removeTree(child, client)
      } else {
        try await ignoringGone { try await client.remove(child) }
      }
    }
    try await ignoringGone { try await client.removeDirectory(remote) }
  }

  static func ignoringGone(_ body: () async throws -> Void) async throws {
    do {
      try await body()
    } catch let error as SFTPError where error.code == .noSuchFile {}
  }

  /// Copies a file with the server's copy-data when offered (no bytes cross the network), else
  /// through a temporary local file; a folder recursively; a link as a link.
  public func copyItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier, name: ItemName?) async throws(ProviderError)
    -> Item
  {
    let source = try requirePath(identifier)
    guard source != .root else { throw ProviderError(.invalidArgument, "the top of the location cannot be copied") }
    let folder = try requirePath(parent)
    let target = folder.appending(try ItemName.validated((name ?? source.lastComponent!).bytes))
    guard target.relocated(from: source, to: source) == nil else {
      throw ProviderError(.invalidArgument, "\(source.displayString) cannot be copied into itself")
    }
    return try await withConnection { c in
      if (try? await c.client.lstat(c.remote(target))) != nil { throw self.collision(target) }
      try await self.copyTree(c.remote(source), to: c.remote(target), c.client)
      return try await self.stat(target, c)
    }
  }

  private func copyTree(_ source: [UInt8], to target: [UInt8], _ client: SFTPClient) async throws {
    let attributes = try await client.lstat(source)
    switch attributes.fileType {
    case .directory:
      // Listed before the copy is made, so a copy can never list itself.
      let entries = try await client.listDirectory(source)
      try await client.makeDirectory(target, attributes: SFTPAttributes(permissions: (attributes.permissions ?? 0o755) & 0o7777))
      for entry in entries {
        try await copyTree(source + [0x2F] + entry.name, to: target + [0x2F] + entry.name, client)
      }
    case .symbolicLink:
      try await client.symlink(target, pointingTo: try await client.readLink(source))
    case .regular, nil:
      try await copyFile(source, to: target, permissions: (attributes.permissions ?? 0o644) & 0o7777, client)
    case .other:
      throw ProviderError(.featureUnsupported, "“\(DisplayText.escape(source))” is a special file and cannot be copied")
    }
  }

  private func copyFile(_ source: [UInt8], to target: [UInt8], permissions: UInt32, _ client: SFTPClient) async throws {
    if client.offers("copy-data") {
      let from = try await client.open(source, flags: .read)
      do {
        let to = try await client.open(
          target, flags: [.write, .create, .exclusive], attributes: SFTPAttributes(permissions: permissions))
        do {
          try await client.copyData(from: from, to: to)
          try await client.close(to)
        } catch {
          try? await client.close(to)
          try? await client.remove(target)
          throw error
        }
        try await client.close(from)
      } catch {
        try? await client.close(from)
        throw error
      }
      return
    }
    let local = FileManager.default.temporaryDirectory.appendingPathComponent("folio-sftp-copy-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: local) }
    try await client.download(source, to: local)
    try await client.replace(target, from: local, expecting: nil)
  }
}
