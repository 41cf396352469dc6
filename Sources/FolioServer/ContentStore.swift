import Crypto
import FolioProtocol
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// File content on disk: `content/ID.REV` (one file per item revision) and `uploads/` (bytes still
/// arriving).
///
/// An upload is written to a fresh file in `uploads/` (O_EXCL|O_NOFOLLOW, so nothing planted there
/// is followed), hashed as it arrives, checked against its stated length and SHA-256, fsynced, and
/// only then renamed into `content/` inside the metadata transaction that makes it visible. A crash
/// leaves at worst a file nobody references; `sweep` removes those at start.
struct ContentStore: Sendable {
  let contentDirectory: URL
  let uploadsDirectory: URL

  init(root: URL) throws {
    contentDirectory = root.appendingPathComponent("content", isDirectory: true)
    uploadsDirectory = root.appendingPathComponent("uploads", isDirectory: true)
    for dir in [contentDirectory, uploadsDirectory] {
      try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
  }

  /// The file of revision `revision` of item `id`.
  func url(id: String, revision: Int64) -> URL {
    contentDirectory.appendingPathComponent("\(id).\(revision)")
  }

  /// Starts a new upload file.
  func beginUpload() throws -> UploadSink {
    try UploadSink(directory: uploadsDirectory)
  }

  /// Moves a verified upload into place as revision `revision` of `id`, then fsyncs `content/` so
  /// the rename itself survives a crash before the metadata commit that references it.
  func publish(_ staged: StagedUpload, id: String, revision: Int64) throws {
    let target = url(id: id, revision: revision)
    guard rename(staged.url.path, target.path) == 0 else {
      throw ServerError(.serverError, "cannot move an upload into content/ (errno \(errno))")
    }
    Self.fsyncDirectory(contentDirectory)
  }

  /// Gives revision `to` the bytes of `from` (a hard link: copies share the bytes on disk).
  func link(from: (id: String, revision: Int64), to: (id: String, revision: Int64)) throws {
    let source = url(id: from.id, revision: from.revision)
    let target = url(id: to.id, revision: to.revision)
    unlink(target.path)
    if Glibc.link(source.path, target.path) != 0 {
      // A filesystem without hard links: copy.
      try FileManager.default.copyItem(at: source, to: target)
    }
    Self.fsyncDirectory(contentDirectory)
  }

  /// Removes revision files no longer referenced (after the commit that dropped them).
  func remove(_ files: [(id: String, revision: Int64)]) {
    for f in files { unlink(url(id: f.id, revision: f.revision).path) }
  }

  /// At start: every upload in progress died with the last process, and content files not in
  /// `live` (the `ID.REV` names the database references) were left by a crash between rename and
  /// commit, or between commit and unlink.
  ///
  /// - Returns: how many files were removed.
  @discardableResult
  func sweep(live: Set<String>) -> Int {
    var removed = 0
    let fm = FileManager.default
    for name in (try? fm.contentsOfDirectory(atPath: uploadsDirectory.path)) ?? [] {
      if unlink(uploadsDirectory.appendingPathComponent(name).path) == 0 { removed += 1 }
    }
    for name in (try? fm.contentsOfDirectory(atPath: contentDirectory.path)) ?? [] where !live.contains(name) {
      if unlink(contentDirectory.appendingPathComponent(name).path) == 0 { removed += 1 }
    }
    return removed
  }

  static func fsyncDirectory(_ url: URL) {
    let fd = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return }
    fsync(fd)
    close(fd)
  }
}

/// Bytes verified and on disk in `uploads/`, waiting to be published.
struct StagedUpload: Sendable {
  let url: URL
  let size: Int64
  let sha256: String

  /// Removes the file (an upload refused after it arrived: quota at commit, a lost race).
  func discard() { unlink(url.path) }
}

/// One upload being written: appends chunks, hashes them, and verifies at the end.
///
/// Not Sendable across tasks: the request handler that reads the body owns it.
final class UploadSink {
  private let fd: Int32
  let url: URL
  private var hasher = SHA256()
  private(set) var count: Int64 = 0
  private var closed = false

  init(directory: URL) throws {
    url = directory.appendingPathComponent("up-\(UUID().uuidString)")
    fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw ServerError(.serverError, "cannot create an upload file (errno \(errno))") }
  }

  deinit {
    if !closed {
      close(fd)
      unlink(url.path)
    }
  }

  /// Appends bytes, refusing more than `limit` in total (the stated Content-Length).
  func append(_ bytes: UnsafeRawBufferPointer, limit: Int64) throws {
    guard count + Int64(bytes.count) <= limit else {
      throw ServerError(.contentMismatch, "the body is longer than its Content-Length; nothing was stored")
    }
    hasher.update(bufferPointer: bytes)
    var offset = 0
    while offset < bytes.count {
      let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        throw ServerError(.serverError, "cannot write an upload (errno \(errno))")
      }
      offset += n
    }
    count += Int64(bytes.count)
  }

  /// Checks length and hash, fsyncs and closes. On a mismatch the file is removed.
  func finish(expectedSize: Int64, expectedSHA256: String) throws -> StagedUpload {
    let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
    closed = true
    guard count == expectedSize else {
      close(fd)
      unlink(url.path)
      throw ServerError(
        .contentMismatch, "received \(count) bytes but Content-Length said \(expectedSize); nothing was stored")
    }
    guard digest == expectedSHA256.lowercased() else {
      close(fd)
      unlink(url.path)
      throw ServerError(.contentMismatch, "the SHA-256 of the bytes differs from X-Folio-SHA256; nothing was stored")
    }
    guard fsync(fd) == 0 else {
      let e = errno
      close(fd)
      unlink(url.path)
      throw ServerError(.serverError, "cannot fsync an upload (errno \(e))")
    }
    close(fd)
    return StagedUpload(url: url, size: count, sha256: digest)
  }
}
