import Foundation
import ProviderAPI
import SFTPClient

extension SFTPProvider {
  /// Runs `body` with the live session; SFTP and ssh failures become `ProviderError`s.
  func withConnection<T: Sendable>(_ body: (SFTPSession.Connection) async throws -> T) async throws(ProviderError) -> T {
    let connection = try await session.connection()
    do {
      return try await body(connection)
    } catch {
      throw connection.mapped(error)
    }
  }

  public func item(for identifier: ItemIdentifier, pathHint: ItemPath?) async throws(ProviderError) -> Item {
    try await item(at: requirePath(identifier))
  }

  /// LSTAT, never STAT: a symlink is reported as itself with its target (READLINK), so a link
  /// loop or a link out of the domain is never followed.
  public func item(at path: ItemPath) async throws(ProviderError) -> Item {
    guard path == .root || Self.isInside(path) else {
      throw ProviderError(.invalidArgument, "\(path.displayString) is not a path inside this location")
    }
    return try await withConnection { c in try await self.stat(path, c) }
  }

  func stat(_ path: ItemPath, _ c: SFTPSession.Connection) async throws -> Item {
    let remote = c.remote(path)
    let attributes = try await c.client.lstat(remote)
    let target = attributes.fileType == .symbolicLink ? try? await c.client.readLink(remote) : nil
    return makeItem(path, attributes, linkTarget: target, root: c.root)
  }

  /// An `Item` from a path and its attributes (LSTAT or a READDIR entry).
  ///
  /// Versions: content "mtime:size" — all SFTP v3 states about the bytes (whole seconds) — and
  /// metadata "mode:uid:gid". Files come back dataless: the core downloads on demand.
  func makeItem(_ path: ItemPath, _ a: SFTPAttributes, linkTarget: [UInt8]?, root: [UInt8]) -> Item {
    let isRoot = path == .root || path.bytes.isEmpty
    let type = isRoot ? .directory : (a.fileType ?? .regular)
    let name = path.lastComponent ?? ItemName(bytes: root.split(separator: 0x2F).last.map(Array.init) ?? [0x2F])
    let contentType: ContentType
    switch type {
    case .directory: contentType = .folder
    case .symbolicLink: contentType = .symlink
    case .other: contentType = .special
    case .regular: contentType = ContentType.forExtension(name.pathExtension)
    }
    let isFolder = type == .directory
    let content = "\(a.modificationTime ?? 0):\(a.size ?? 0)"
    let metadata = "\(a.permissions ?? 0):\(a.uid ?? 0):\(a.gid ?? 0)"
    var capabilities: ItemCapabilities = isRoot ? [.reading, .writing] : [.reading, .writing, .reparenting, .renaming, .deleting]
    if !isFolder && type != .symbolicLink { capabilities.insert(.evicting) }
    if type == .other { capabilities.remove(.writing) }
    return Item(
      identifier: identifier(for: path), parentIdentifier: isRoot ? .root : identifier(for: path.parent), filename: name,
      path: isRoot ? .root : path, contentType: contentType, capabilities: capabilities,
      version: (try? ItemVersion(content: content, metadata: metadata)) ?? .empty,
      documentSize: isFolder ? nil : a.size.map { Int64(clamping: $0) },
      contentModificationDate: a.modificationTime.map { Date(timeIntervalSince1970: TimeInterval($0)) },
      isDownloaded: isFolder, isMostRecentVersionDownloaded: isFolder,
      symlinkTargetPath: linkTarget.map { ItemPath(bytes: $0) },
      posixPermissions: a.permissions.map { $0 & 0o7777 })
  }

  /// The size and mtime a content version names ("mtime:size"), nil for another provider's.
  static func sftpVersion(_ version: ItemVersion) -> SFTPVersion? {
    guard let text = String(data: version.content, encoding: .utf8) else { return nil }
    let parts = text.split(separator: ":")
    guard parts.count == 2, let mtime = UInt32(parts[0]), let size = UInt64(parts[1]) else { return nil }
    return SFTPVersion(size: size, modificationTime: mtime)
  }
}
