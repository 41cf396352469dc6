import Crypto
import Foundation
import ProviderAPI
import WorkingSetIndex

#if canImport(Glibc)
  import Glibc
#endif

/// Remote content on this computer: `$XDG_CACHE_HOME/folio/content/<domain>/<item-key>`, flat.
///
/// The item key is the hex SHA-256 of the item's identifier, never a name from the server, so no
/// name or identifier (`../x`, a 300-byte id, control characters) can reach outside the folder or
/// collide with another item. Beside the materialized files a domain folder holds staged uploads
/// (`up-UUID`, immutable snapshots the transfer journal points at) and temporary files
/// (`.tmp-PID-RANDOM`, never renamed into place before their bytes are verified and fsynced).
///
/// The index is the store's memory (``MaterializedContent``): a file without a record is never
/// served, and a record whose file is gone reads as dataless.
public struct ContentStore: Sendable {
  /// `…/folio/content`.
  public let root: URL
  public let index: WorkingSetIndex

  public init(root: URL, index: WorkingSetIndex) {
    self.root = root
    self.index = index
  }

  /// The file name of an item's content: hex SHA-256 of its identifier.
  public static func key(for identifier: ItemIdentifier) -> String {
    DurableFile.hex(SHA256.hash(data: Data(identifier.rawValue.utf8)))
  }

  /// A domain's folder. Domain names are letters, digits, `-`, `_` and `.`; one that starts with
  /// a dot (`.`, `..`, `.x`) is hex-encoded so it can never name the content folder or its parent.
  public func folder(for domain: DomainIdentifier) -> URL {
    let raw = domain.rawValue
    let safe =
      raw.first.map { $0.isLetter || $0.isNumber } == true
      ? raw : "x" + DurableFile.hex(Array(raw.utf8))
    return root.appendingPathComponent(safe, isDirectory: true)
  }

  /// Where an item's materialized content is (whether or not it is there).
  public func fileURL(domain: DomainIdentifier, identifier: ItemIdentifier) -> URL {
    folder(for: domain).appendingPathComponent(Self.key(for: identifier), isDirectory: false)
  }

  /// The materialized file and its record, when both are there and agree on existing.
  public func localFile(domain: DomainIdentifier, identifier: ItemIdentifier) throws(ProviderError) -> (
    url: URL, content: MaterializedContent
  )? {
    guard let content = try index.content(domain: domain, identifier: identifier) else { return nil }
    let url = fileURL(domain: domain, identifier: identifier)
    guard DurableFile.exists(url) else {
      // Removed behind our back (or a crash between forgetting and removing): dataless again.
      if content.state != .dirty { try index.removeContent(domain: domain, identifier: identifier) }
      return nil
    }
    return (url, content)
  }

  /// True when the file was written since its record was made: an edit nobody has noticed yet
  /// (an opener that outlived Folio, another program). Such a file is never evicted or replaced.
  public func hasUnnoticedChanges(_ content: MaterializedContent) -> Bool {
    DurableFile.stamp(of: fileURL(domain: content.domain, identifier: content.identifier)) != content.fileStamp
  }

  // MARK: - Staging uploads

  /// A snapshot of bytes to upload, inside the store: the journal points at it.
  public struct Staged: Sendable, Equatable {
    public var url: URL
    public var size: Int64
    public var sha256: String

    /// What the provider is told of the bytes it is given (it need not hash them again).
    public var digest: ContentDigest { ContentDigest(size: size, sha256: sha256) }
  }

  /// Copies `source` into the store (copy, fsync, rename, fsync the folder) before anything is
  /// journaled: from the moment the caller commits the transfer, the bytes survive a crash, and
  /// changing or deleting the source no longer matters.
  public func stage(_ source: URL, domain: DomainIdentifier) async throws(ProviderError) -> Staged {
    try await stage(ItemPath(source.path), domain: domain)
  }

  /// The same from a path given as bytes.
  public func stage(_ source: ItemPath, domain: DomainIdentifier) async throws(ProviderError) -> Staged {
    let folder = folder(for: domain)
    return try await BlockingWork.run { cancel throws(ProviderError) in
      try DurableFile.makeFolder(folder)
      let (temp, fd) = try DurableFile.createTemporary(in: folder)
      do throws(ProviderError) {
        let (size, sha) = try DurableFile.copy(from: source, to: fd, cancel: cancel)
        close(fd)
        let staged = folder.appendingPathComponent("up-\(UUID().uuidString.lowercased())", isDirectory: false)
        try DurableFile.publish(temp, as: staged)
        return Staged(url: staged, size: size, sha256: sha)
      } catch {
        close(fd)
        DurableFile.remove(temp)
        throw error
      }
    }
  }

  /// Removes a staged snapshot (its transfer is done or abandoned).
  public func discardStaged(_ url: URL) {
    guard url.deletingLastPathComponent().path.hasPrefix(root.path), url.lastPathComponent.hasPrefix("up-") else {
      return
    }
    DurableFile.remove(url)
  }

  /// Makes a staged snapshot the materialized content of `item` (a file just created or uploaded
  /// from it): a hard link, so the upload's bytes need no second copy and no download.
  public func adopt(_ staged: Staged, as item: Item, domain: DomainIdentifier, at date: Date = Date()) throws(ProviderError) {
    let target = fileURL(domain: domain, identifier: item.identifier)
    if let old = try index.content(domain: domain, identifier: item.identifier) {
      guard old.state != .dirty else { return }
      try index.removeContent(domain: domain, identifier: item.identifier)
    }
    try DurableFile.link(staged.url, as: target)
    guard let stamp = DurableFile.stamp(of: target) else {
      throw ProviderError(.ioError, "the content of \(item.filename.displayString) vanished while it was stored")
    }
    try index.recordMaterialized(
      MaterializedContent(
        domain: domain, identifier: item.identifier, version: item.version, size: staged.size,
        sha256: staged.sha256, fileStamp: stamp, lastAccess: date),
      item: item)
  }

  /// Copies a file out of the store (or anywhere) to `target`, which must not exist: through a
  /// temporary file beside it, fsynced, then linked into place without replacing (a file that
  /// appeared meanwhile wins and this copy fails).
  public static func export(_ source: URL, to target: URL) async throws(ProviderError) {
    try await BlockingWork.run { cancel throws(ProviderError) in
      let (temp, fd) = try DurableFile.createTemporary(in: target.deletingLastPathComponent())
      defer { DurableFile.remove(temp) }
      do throws(ProviderError) {
        try DurableFile.copyContents(from: source, to: fd, cancel: cancel)
        close(fd)
      } catch {
        close(fd)
        throw error
      }
      guard link(temp.path, target.path) == 0 else {
        let e = errno
        throw ProviderError(
          e == EEXIST ? .filenameCollision : .ioError,
          "cannot write \(TerminalText.escape(target.path)): \(String(cString: strerror(e)))", underlying: e)
      }
      DurableFile.syncFolder(of: target)
    }
  }

  // MARK: - Downloading

  /// Downloads an item's content: into a new temporary file beside its final place, checked for
  /// size (and SHA-256 when the item carries one), fsynced and renamed into place, then recorded.
  /// A failure or a cancellation removes the temporary file; nothing unverified is ever visible.
  ///
  /// - Throws: `unsyncedEdits` when the item's content here has edits not uploaded yet (they are
  ///   never replaced); `ioError` when the bytes do not match what the provider announced.
  /// - Returns: The provider's item and the new record.
  public func download(
    _ identifier: ItemIdentifier, domain: DomainIdentifier, provider: any Provider, version: ItemVersion? = nil,
    progress: @escaping @Sendable (TransferProgress) -> Void = { _ in }, at date: @Sendable () -> Date = Date.init
  ) async throws(ProviderError) -> (item: Item, content: MaterializedContent) {
    let folder = folder(for: domain)
    let (temp, fd) = try await BlockingWork.run { _ throws(ProviderError) in
      try DurableFile.makeFolder(folder)
      return try DurableFile.createTemporary(in: folder)
    }
    close(fd)
    do throws(ProviderError) {
      let (item, verified) = try await provider.fetchVerifiedContents(
        identifier, version: version, to: temp, progress: progress)
      let (size, sha) = try await BlockingWork.run { cancel throws(ProviderError) -> (Int64, String) in
        // The provider checked the bytes against the SHA-256 its storage stated: that hash is
        // theirs, and reading a large file once more only to hash it would add ~0.6 s per GiB. The
        // size is still the file's own, and the file is made durable here in any case. An entity
        // tag or no hash says nothing of the SHA-256 the store records: it is computed here.
        if let verified, let sha256 = verified.sha256 {
          let size = try DurableFile.size(of: temp, sync: true)
          if size == verified.size { return (size, sha256) }
        }
        return try DurableFile.digest(of: temp, sync: true, cancel: cancel)
      }
      try Self.verify(item, size: size, sha256: sha)
      try Task.checkCancellation(orThrow: .cancelledError)
      let target = fileURL(domain: domain, identifier: identifier)
      if let old = try index.content(domain: domain, identifier: identifier) {
        if old.state == .dirty || (DurableFile.exists(target) && hasUnnoticedChanges(old)) {
          throw ProviderError(
            .unsyncedEdits, "\(item.filename.displayString) has changes here that are not uploaded yet; they are kept")
        }
        // Forget first: a crash after the rename leaves a file without a record (removed at the
        // next start), never a record that describes other bytes.
        try index.removeContent(domain: domain, identifier: identifier)
      }
      try DurableFile.publish(temp, as: target)
      guard let stamp = DurableFile.stamp(of: target) else {
        throw ProviderError(.ioError, "the content of \(item.filename.displayString) vanished while it was stored")
      }
      let content = MaterializedContent(
        domain: domain, identifier: identifier, version: item.version, size: size, sha256: sha, fileStamp: stamp,
        lastAccess: date())
      try index.recordMaterialized(content, item: item)
      return (item, content)
    } catch {
      DurableFile.remove(temp)
      throw error
    }
  }

  /// Size and hash against what the provider announced (rclone's "corrupted on transfer").
  static func verify(_ item: Item, size: Int64, sha256: String) throws(ProviderError) {
    if let expected = item.documentSize, expected != size {
      throw ProviderError(
        .ioError,
        "\(item.filename.displayString) was corrupted on transfer: \(size) bytes arrived, \(expected) were announced")
    }
    if let expected = ContentHash.expected(in: item), expected != sha256 {
      throw ProviderError(.ioError, "\(item.filename.displayString) was corrupted on transfer: the SHA-256 differs")
    }
  }
}

extension Task where Success == Never, Failure == Never {
  /// `checkCancellation` with a typed error.
  static func checkCancellation(orThrow error: ProviderError) throws(ProviderError) {
    if Task.isCancelled { throw error }
  }
}

/// Where a provider's item states the SHA-256 of its content, when its storage has one.
public enum ContentHash {
  /// The `userInfo` key: lowercase hex, 64 characters.
  public static let userInfoKey = "sha256"

  /// The hash the item states, or nil when it states none (or something that is not a SHA-256).
  public static func expected(in item: Item) -> String? {
    guard case .string(let s)? = item.userInfo[userInfoKey] else { return nil }
    let lower = s.lowercased()
    guard lower.utf8.count == 64, lower.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
    else { return nil }
    return lower
  }
}
