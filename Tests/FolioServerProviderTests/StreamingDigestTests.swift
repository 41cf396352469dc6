import Crypto
import Foundation
import NIOCore
import Testing

@testable import FolioServerProvider

#if canImport(Glibc)
  import Glibc
#endif

/// The download's off-thread hash and early writeback (ContentDownload): the digest is the one of
/// all the bytes in order whatever the queue's pace, and writeback never changes what is written.
@Suite("StreamingDigest")
struct StreamingDigestTests {
  /// Buffers of uneven sizes, many times the limit, so `update` has to wait for the queue again
  /// and again; the result must still be the hash of the whole, in order.
  @Test func hashesEveryBufferInOrderUnderBackpressure() async {
    var generator = SeededBytes(seed: 11)
    let digest = StreamingDigest(limit: 64 << 10)
    var whole = SHA256()
    var total = 0
    for i in 0..<400 {
      let bytes = generator.next(count: 1 + (i * 7919) % (48 << 10))
      whole.update(data: bytes)
      total += bytes.count
      await digest.update(ByteBuffer(bytes: bytes))
    }
    await digest.update(ByteBuffer())
    #expect(total > 4 * (64 << 10))
    #expect(await digest.finalize() == whole.finalize())
  }

  @Test func nothingFedIsTheEmptyHash() async {
    #expect(await StreamingDigest().finalize() == SHA256.hash(data: Data()))
  }

  /// A different byte anywhere gives a different digest (the check ContentDownload relies on).
  @Test func oneChangedByteChangesTheDigest() async {
    let bytes = [UInt8](repeating: 0x61, count: 300 << 10)
    var changed = bytes
    changed[200 << 10] = 0x62
    let a = StreamingDigest(limit: 32 << 10)
    let b = StreamingDigest(limit: 32 << 10)
    for start in stride(from: 0, to: bytes.count, by: 10_000) {
      let end = min(start + 10_000, bytes.count)
      await a.update(ByteBuffer(bytes: bytes[start..<end]))
      await b.update(ByteBuffer(bytes: changed[start..<end]))
    }
    #expect(await a.finalize() == SHA256.hash(data: bytes))
    #expect(await b.finalize() != SHA256.hash(data: bytes))
  }

  /// Writeback every 64 KiB over a file written at an offset: the file is exactly what was written.
  @Test func writebackLeavesTheBytesAsWritten() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("writeback-\(UUID().uuidString)").path
    let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    try #require(fd >= 0)
    defer { unlink(path) }
    var generator = SeededBytes(seed: 5)
    let bytes = generator.next(count: 1 << 20)
    let offset: Int64 = 4096
    let writeback = FileWriteback(fd: fd, start: offset, step: 64 << 10)
    var position = offset
    for start in stride(from: 0, to: bytes.count, by: 10_000) {
      let chunk = Array(bytes[start..<min(start + 10_000, bytes.count)])
      let n = chunk.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, off_t(position)) }
      try #require(n == chunk.count)
      position += Int64(n)
      writeback.written(upTo: position)
    }
    writeback.finish()
    writeback.finish()
    #expect(fsync(fd) == 0)
    close(fd)
    let back = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(back.count == Int(offset) + bytes.count)
    #expect(back.prefix(Int(offset)).allSatisfy { $0 == 0 })
    #expect(Array(back.dropFirst(Int(offset))) == bytes)
  }
}

/// Deterministic bytes (xorshift), so a failure can be replayed.
private struct SeededBytes {
  var state: UInt64
  init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
  mutating func next(count: Int) -> [UInt8] {
    (0..<count).map { _ in
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return UInt8(truncatingIfNeeded: state)
    }
  }
}
