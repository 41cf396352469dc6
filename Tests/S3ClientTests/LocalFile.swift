import Crypto
import Foundation
import S3Client

#if canImport(Glibc)
  import Glibc
#endif

/// A temporary local file for the transfer tests: its bytes' size and SHA-256, and a descriptor
/// to download into. Removed by ``remove()``.
struct LocalFile {
  let path: String
  let size: Int64
  let sha256: String

  /// A file of `size` pseudo-random bytes (seeded, so a failure can be replayed), written in 1 MiB
  /// pieces so the test itself never holds the whole file either.
  static func random(size: Int64, seed: UInt64 = 0x5EED) throws -> LocalFile {
    let path = temporaryPath("upload")
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    defer { close(fd) }
    var generator = SplitMix64(seed: seed)
    var hasher = SHA256()
    var left = size
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while left > 0 {
      let count = Int(min(Int64(chunk.count), left))
      for index in stride(from: 0, to: count, by: 8) {
        var word = generator.next()
        for byte in index..<min(index + 8, count) {
          chunk[byte] = UInt8(truncatingIfNeeded: word)
          word >>= 8
        }
      }
      chunk.withUnsafeBytes { raw in
        hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: raw[0..<count]))
        _ = write(fd, raw.baseAddress, count)
      }
      left -= Int64(count)
    }
    return LocalFile(path: path, size: size, sha256: SigV4Signer.hex(hasher.finalize()))
  }

  /// A file holding exactly `bytes`.
  static func holding(_ bytes: [UInt8]) throws -> LocalFile {
    let path = temporaryPath("small")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return LocalFile(path: path, size: Int64(bytes.count), sha256: SigV4Signer.sha256Hex(bytes))
  }

  /// The SHA-256 of a range of the file.
  func sha256(offset: Int64, length: Int64) throws -> String {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(offset))
    var hasher = SHA256()
    var left = length
    while left > 0, let data = try handle.read(upToCount: Int(min(left, 1 << 20))), !data.isEmpty {
      hasher.update(data: data)
      left -= Int64(data.count)
    }
    return SigV4Signer.hex(hasher.finalize())
  }

  func remove() { unlink(path) }

  static func temporaryPath(_ what: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("folio-s3-\(what)-\(UUID().uuidString)").path
  }
}

/// A file to download into, opened for writing; its bytes read back whole for small checks.
final class DownloadTarget {
  let path = LocalFile.temporaryPath("download")
  let fd: Int32

  init() throws {
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { throw POSIXError(.EIO) }
  }

  deinit {
    close(fd)
    unlink(path)
  }

  var size: Int64 {
    var info = stat()
    fstat(fd, &info)
    return Int64(info.st_size)
  }

  var bytes: [UInt8] { (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? [] }
}

/// A small seeded generator (SplitMix64): the same bytes on every run.
struct SplitMix64 {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Records the progress a transfer reports, from any thread.
final class ProgressLog: @unchecked Sendable {
  private let lock = NSLock()
  private var entries: [(completed: Int64, total: Int64, fileSize: Int64?)] = []
  private let target: DownloadTarget?

  init(watching target: DownloadTarget? = nil) { self.target = target }

  var handler: S3ProgressHandler {
    { completed, total in
      let size = self.target?.size
      self.lock.withLock { self.entries.append((completed, total, size)) }
    }
  }

  var all: [(completed: Int64, total: Int64, fileSize: Int64?)] { lock.withLock { entries } }
}
