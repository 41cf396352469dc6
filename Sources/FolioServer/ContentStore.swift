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
