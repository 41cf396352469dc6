import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// A rename or move on S3 as a job: the plan (every key below the source, with its size), then a
/// CopyObject per key, then a DeleteObject per source key, its progress written down after each
/// step. S3 has no rename: a folder of N keys is N copies and N deletes, and a process killed
/// between two of them must not leave half of the folder under each name. The journal is what
/// lets the next process (`folio sync`, or the next browse) finish the job (remote-providers.md §3.6).
struct S3RelocationJob: Codable, Sendable, Equatable {
  enum Phase: String, Codable, Sendable {
    /// Copies are being made; `done` of them are confirmed.
    case copying
    /// Every copy is confirmed; `done` of the sources are deleted.
    case deleting
  }

  struct Object: Codable, Sendable, Equatable {
    var key: Data
    var size: Int64
  }

  /// Names the journal's file.
  var id: String
  /// Paths (bytes, "/a/b") the item had and will have: what the core re-keys once it is done.
  var from: Data
  var to: Data
  /// The source's keys are those below `fromKey`; each goes to the same key below `toKey`.
  var fromKey: Data
  var toKey: Data
  var objects: [Object]
  var phase: Phase
  /// How many of `objects` the phase has finished, in order.
  var done: Int
  /// True once a process has been interrupted during the job: a copy made but not yet marked may
  /// be there, so the copies from here on overwrite rather than insist on a free name.
  var resumed: Bool

  func target(of object: Object) -> [UInt8] { [UInt8](toKey) + [UInt8](object.key).dropFirst(fromKey.count) }

  /// Work units: a key counts its bytes plus one, copied and deleted, so that a folder of empty
  /// markers still shows progress.
  var totalUnits: Int64 { 2 * objects.reduce(0) { $0 + $1.size + 1 } }

  var doneUnits: Int64 {
    let half = totalUnits / 2
    let finished = objects.prefix(done).reduce(Int64(0)) { $0 + $1.size + 1 }
    return phase == .copying ? finished : half + finished
  }
}

/// The jobs of one location, a JSON file each in a folder of Folio's state
/// (`$XDG_STATE_HOME/folio/s3-jobs/<location>`), written atomically (a temporary file, fsync,
/// rename, fsync of the folder), so a crash leaves the last step written or the one before —
/// both safe to resume from, since every step is idempotent. A job is claimed with `flock`, so
/// two processes (the browser and `folio sync`) never run the same one at once; the lock goes
/// with the process, so a killed one's job is free at once.
struct S3RelocationJournal: Sendable {
  let folder: URL

  func url(_ id: String) -> URL { folder.appendingPathComponent("\(id).json", isDirectory: false) }

  func save(_ job: S3RelocationJob) throws {
    try makeFolder()
    let data = try JSONEncoder().encode(job)
    let temp = folder.appendingPathComponent(".\(job.id).\(getpid()).tmp", isDirectory: false)
    let fd = open(temp.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { throw Self.failure("cannot write", temp.path) }
    let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    let synced = fsync(fd)
    close(fd)
    guard written == data.count, synced == 0, rename(temp.path, url(job.id).path) == 0 else {
      unlink(temp.path)
      throw Self.failure("cannot write", url(job.id).path)
    }
    syncFolder()
  }

  func remove(_ id: String) {
    unlink(url(id).path)
    syncFolder()
    unlink(folder.appendingPathComponent("\(id).lock", isDirectory: false).path)
  }

  /// The jobs written down, oldest first; a file that does not parse is skipped (and kept).
  func jobs() -> [S3RelocationJob] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().compactMap { name in
      guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else { return nil }
      return try? JSONDecoder().decode(S3RelocationJob.self, from: data)
    }
  }

  /// Claims a job for this process: the lock's descriptor (close it to let go), or nil when
  /// another live process holds it.
  func claim(_ id: String) throws -> Int32? {
    try makeFolder()
    let path = folder.appendingPathComponent("\(id).lock", isDirectory: false).path
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { throw Self.failure("cannot lock", path) }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      close(fd)
      return nil
    }
    return fd
  }

  private func makeFolder() throws {
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw Self.failure("cannot create", folder.path)
    }
  }

  private func syncFolder() {
    let fd = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if fd >= 0 {
      fsync(fd)
      close(fd)
    }
  }

  static func failure(_ what: String, _ path: String) -> ProviderError {
    ProviderError(.ioError, "\(what) the rename journal \(TerminalText.escape(path)): \(String(cString: strerror(errno)))")
  }
}
