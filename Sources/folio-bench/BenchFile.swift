import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Large files for the transfer benchmark: made of pseudo-random bytes (nothing on the path
/// compresses, but a file of zeros could be sparse or deduplicated), written 1 MiB at a time so
/// making one costs no more memory than that.
enum BenchFile {
  /// Creates `path` (which must not exist) with `size` bytes.
  static func create(_ path: String, size: Int64, seed: UInt64 = 42) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw BenchError("cannot create \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var rng = SplitMix64(seed: seed)
    var chunk = [UInt64](repeating: 0, count: 1 << 17)  // 1 MiB
    var left = size
    while left > 0 {
      for i in chunk.indices { chunk[i] = rng.next() }
      let n = Int(min(left, Int64(chunk.count * 8)))
      let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, n) }
      guard written == n else { throw BenchError("cannot write \(path): \(String(cString: strerror(errno)))") }
      left -= Int64(n)
    }
  }

  /// The file's size, or nil when it does not exist.
  static func size(_ path: String) -> Int64? {
    var st = stat()
    return stat(path, &st) == 0 ? Int64(st.st_size) : nil
  }

  /// `sha256sum FILE` (an argv, no shell): the hash and the seconds it took.
  static func sha256(_ path: String) throws -> (hex: String, seconds: Double) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["sha256sum", "--", path]
    let out = Pipe()
    p.standardOutput = out
    let t0 = now()
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let seconds = now() - t0
    guard p.terminationStatus == 0, let hex = String(decoding: data, as: UTF8.self).split(separator: " ").first,
      hex.count == 64
    else { throw BenchError("sha256sum \(path) failed") }
    return (String(hex), seconds)
  }
}
