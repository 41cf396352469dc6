import Foundation
import NIOCore
import NIOPosix
import TestExecution
import Testing

@testable import WebDAVClient

#if canImport(Glibc)
  import Glibc
#endif

/// Early writeback (`sync_file_range` while a download is written) never changes what lands in the
/// file, and is done with the descriptor by the time the sink says the body is written.
@Suite(.offThePool)
struct FileWritebackTests {
  /// Writeback every 64 KiB over a file written at an offset: the file is exactly what was written.
  @Test func writebackLeavesTheBytesAsWritten() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("dav-writeback-\(UUID().uuidString)").path
    let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    try #require(fd >= 0)
    defer { unlink(path) }
    let bytes = Self.bytes(count: 1 << 20, seed: 5)
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

  /// A body fed to the sink from an event loop, with writeback every 64 KiB, lands byte for byte at
  /// the sink's offset; once `drained()` answered, the descriptor can be closed.
  @Test func aSinkWithWritebackWritesTheBodyAsSent() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("dav-sink-\(UUID().uuidString)").path
    let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    try #require(fd >= 0)
    defer { unlink(path) }
    let bytes = Self.bytes(count: 3 << 20, seed: 9)
    let offset: Int64 = 512
    let sink = FileSink(
      fd: fd, start: offset, expected: Int64(bytes.count), server: "test", progress: nil, writebackStep: 64 << 10)
    let loop = MultiThreadedEventLoopGroup.singleton.next()
    for start in stride(from: 0, to: bytes.count, by: 50_000) {
      let part = ByteBuffer(bytes: bytes[start..<min(start + 50_000, bytes.count)])
      try await loop.flatSubmit { sink.push(part, on: loop) }.get()
    }
    sink.finish()
    #expect(try await sink.drained() == Int64(bytes.count))
    #expect(close(fd) == 0)
    let back = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(back.count == Int(offset) + bytes.count)
    #expect(Array(back.dropFirst(Int(offset))) == bytes)
  }

  /// Deterministic bytes (xorshift), so a failure can be replayed.
  static func bytes(count: Int, seed: UInt64) -> [UInt8] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    return (0..<count).map { _ in
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return UInt8(truncatingIfNeeded: state)
    }
  }
}
