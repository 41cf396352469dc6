import Crypto
import Foundation
import NIOCore
import NIOPosix
import ProviderAPI
import Testing

@testable import FolioServerProvider

#if canImport(Glibc)
  import Glibc
#endif

/// The download's sink (ContentSink): fed buffers on an event loop as a response delegate feeds
/// them, it writes them at their offsets and hashes them in order whatever the queues' pace, keeps
/// to the announced length, and reports failures instead of losing them; writeback never changes
/// what is written.
@Suite("ContentSink")
struct ContentSinkTests {
  /// A scratch file, removed by `remove()`.
  struct Scratch {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("sink-\(UUID().uuidString)").path
    func open(_ flags: Int32) -> Int32 { Glibc.open(path, flags | O_CLOEXEC, 0o600) }
    func remove() { unlink(path) }
    func bytes() throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
  }

  /// Progress reports, in order.
  final class Reports: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [Int64] = []
    func add(_ p: TransferProgress) { lock.withLock { seen.append(p.completedBytes) } }
    var all: [Int64] { lock.withLock { seen } }
  }

  /// Feeds `buffers` the way AsyncHTTPClient does: the next only once the previous future completed.
  static func feed(_ sink: ContentSink, _ buffers: [[UInt8]]) async throws {
    let loop = MultiThreadedEventLoopGroup.singleton.next()
    for bytes in buffers {
      try await loop.flatSubmit { sink.accept(ByteBuffer(bytes: bytes), on: loop) }.get()
    }
    sink.end()
  }

  /// Uneven buffers, many times the backpressure limit: the file and the digest are those of all
  /// the bytes in order, at the offset asked for, and progress climbs to the total.
  @Test func writesAndHashesEveryBufferInOrderUnderBackpressure() async throws {
    var generator = SeededBytes(seed: 11)
    var buffers: [[UInt8]] = []
    var whole: [UInt8] = []
    while whole.count < 3 * ContentSink.limit {
      let bytes = generator.next(count: 1 + (buffers.count * 7919) % (64 << 10))
      buffers.append(bytes)
      whole += bytes
    }
    let scratch = Scratch()
    defer { scratch.remove() }
    let fd = scratch.open(O_RDWR | O_CREAT | O_EXCL)
    try #require(fd >= 0)
    let reports = Reports()
    let sink = ContentSink(
      fd: fd, start: 100, expectedLength: Int64(whole.count), hashing: true, path: scratch.path, server: "s",
      progress: reports.add)
    try await Self.feed(sink, buffers)
    await sink.drained()
    sink.stop()
    close(fd)
    #expect(try sink.outcome.get() == Int64(whole.count))
    #expect(sink.digest() == SHA256.hash(data: whole))
    let file = try scratch.bytes()
    #expect(file.count == 100 + whole.count)
    #expect(Array(file.dropFirst(100)) == whole)
    #expect(reports.all.first == 0)
    #expect(reports.all.last == Int64(whole.count))
    #expect(reports.all == reports.all.sorted())
    // One report per MiB whatever the batches were (a late writer may take many MiB at once).
    #expect(reports.all.count >= whole.count / Int(ContentSink.progressStep), "\(reports.all.count) reports")
  }

  /// Progress moves every MiB even when the writer runs late and takes the whole body in one
  /// batch: here its first report is held until every buffer was accepted (4 MiB, under the
  /// backpressure limit), so the rest comes as one batch.
  @Test func progressMovesPerMiBWhenOneBatchHoldsEverything() async throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let fd = scratch.open(O_WRONLY | O_CREAT | O_EXCL)
    let total = 4 << 20
    let reports = Reports()
    let held = DispatchSemaphore(value: 0)
    let sink = ContentSink(
      fd: fd, start: 0, expectedLength: Int64(total), hashing: true, path: scratch.path, server: "s",
      progress: { p in
        if p.completedBytes > 0 && reports.all.count == 1 { held.wait() }
        reports.add(p)
      })
    let buffers = (0..<(total / (64 << 10))).map { [UInt8](repeating: UInt8($0 & 0xFF), count: 64 << 10) }
    try await Self.feed(sink, buffers)
    held.signal()
    await sink.drained()
    sink.stop()
    close(fd)
    let mib: Int64 = 1 << 20
    let expected: [Int64] = [0, mib, 2 * mib, 3 * mib, 4 * mib]
    #expect(reports.all == expected, "\(reports.all)")
  }

  /// A different byte anywhere gives a different digest (the check ContentDownload relies on).
  @Test func oneChangedByteChangesTheDigest() async throws {
    let bytes = [UInt8](repeating: 0x61, count: 3 << 20)
    var changed = bytes
    changed[2 << 20] = 0x62
    for (input, same) in [(bytes, true), (changed, false)] {
      let scratch = Scratch()
      defer { scratch.remove() }
      let fd = scratch.open(O_WRONLY | O_CREAT | O_EXCL)
      let sink = ContentSink(
        fd: fd, start: 0, expectedLength: Int64(input.count), hashing: true, path: scratch.path, server: "s",
        progress: { _ in })
      try await Self.feed(sink, stride(from: 0, to: input.count, by: 10_000).map { Array(input[$0..<min($0 + 10_000, input.count)]) })
      await sink.drained()
      sink.stop()
      close(fd)
      #expect((sink.digest() == SHA256.hash(data: bytes)) == same)
    }
  }

  @Test func anEmptyBodyIsTheEmptyHash() async throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let fd = scratch.open(O_WRONLY | O_CREAT | O_EXCL)
    let sink = ContentSink(fd: fd, start: 0, expectedLength: 0, hashing: true, path: scratch.path, server: "s", progress: { _ in })
    sink.end()
    await sink.drained()
    sink.stop()
    close(fd)
    #expect(try sink.outcome.get() == 0)
    #expect(sink.digest() == SHA256.hash(data: Data()))
  }

  /// One byte more than announced fails the download at once, naming the server.
  @Test func moreBytesThanAnnouncedFail() async throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let fd = scratch.open(O_WRONLY | O_CREAT | O_EXCL)
    defer { close(fd) }
    let sink = ContentSink(fd: fd, start: 0, expectedLength: 10, hashing: true, path: scratch.path, server: "host:1", progress: { _ in })
    await #expect(throws: ProviderError.self) { try await Self.feed(sink, [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11]]) }
    await sink.drained()
    sink.stop()
    guard case .failure(let error) = sink.outcome else { Issue.record("no failure"); return }
    #expect(error.code == .ioError)
    #expect(error.message.contains("host:1 sent more bytes than the 10"))
  }

  /// A file that cannot be written (here: opened read-only) fails the download with the reason,
  /// and the event loop is told at its next buffer.
  @Test func aWriteErrorIsTheOutcome() async throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    close(scratch.open(O_WRONLY | O_CREAT | O_EXCL))
    let fd = scratch.open(O_RDONLY)
    defer { close(fd) }
    let size = 4 << 20
    let sink = ContentSink(
      fd: fd, start: 0, expectedLength: Int64(size), hashing: false, path: scratch.path, server: "s", progress: { _ in })
    let loop = MultiThreadedEventLoopGroup.singleton.next()
    var refused = false
    for _ in 0..<(size / (64 << 10)) {
      do {
        try await loop.flatSubmit { sink.accept(ByteBuffer(repeating: 7, count: 64 << 10), on: loop) }.get()
      } catch {
        refused = true
        break
      }
      try await Task.sleep(for: .milliseconds(1))
    }
    sink.end()
    await sink.drained()
    sink.stop()
    #expect(refused)
    guard case .failure(let error) = sink.outcome else { Issue.record("no failure"); return }
    #expect(error.code == .ioError)
    #expect(error.message.contains("cannot write"))
  }

  /// A failure from outside (the connection) ends the wait for the body and refuses later buffers.
  @Test func aFailureEndsTheWaitAndRefusesMore() async throws {
    let scratch = Scratch()
    defer { scratch.remove() }
    let fd = scratch.open(O_WRONLY | O_CREAT | O_EXCL)
    defer { close(fd) }
    let sink = ContentSink(fd: fd, start: 0, expectedLength: 1000, hashing: true, path: scratch.path, server: "s", progress: { _ in })
    let loop = MultiThreadedEventLoopGroup.singleton.next()
    // 10 of 1000 bytes, and no end: the body is still coming when the connection fails.
    try await loop.flatSubmit { sink.accept(ByteBuffer(repeating: 1, count: 10), on: loop) }.get()
    let waiting = Task { await sink.drained() }
    sink.fail(ProviderError(.serverUnreachable, "gone"))
    await waiting.value
    await #expect(throws: ProviderError.self) {
      try await loop.flatSubmit { sink.accept(ByteBuffer(bytes: [1]), on: loop) }.get()
    }
    sink.stop()
    guard case .failure(let error) = sink.outcome else { Issue.record("no failure"); return }
    #expect(error.code == .serverUnreachable)
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
