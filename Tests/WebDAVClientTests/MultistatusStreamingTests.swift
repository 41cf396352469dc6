import Foundation
import NIOCore
import NIOPosix
import TestExecution
import Testing

@testable import WebDAVClient

/// The PROPFIND parser fed in chunks, without a server: a synthetic 100k-entry multistatus comes
/// out in batches while most of it has not been fed yet, and the bytes waiting for the parser stay
/// under the feed's bound whatever the document's size.
@Suite(.offThePool)
struct MultistatusStreamingTests {
  static let base = "/dav/"

  @Test func aHundredThousandEntriesComeInBatchesWhileTheDocumentIsStillArriving() async throws {
    let count = 100_000
    let chunkSize = 64 * 1024
    let requested = try WebDAVPath("big")
    let reader = MultistatusReader(
      resolver: HrefResolver(basePath: Array(Self.base.utf8)), requested: requested, depth: 1, batchSize: 500,
      server: "test")
    let fed = Counter()
    let producer = Task {
      let loop = MultiThreadedEventLoopGroup.singleton.next()
      var document = SyntheticMultistatus(count: count, folder: "big")
      while let chunk = document.next(upTo: chunkSize) {
        fed.add(chunk.count)
        try await reader.feed.push(ByteBuffer(bytes: chunk), on: loop).get()
      }
      reader.feed.finish()
      return document.totalBytes
    }

    var seen = [Bool](repeating: false, count: count)
    var batches: [Int] = []
    var fedAtFirstBatch: Int?
    var duplicates = 0
    while let batch = await reader.next() {
      if fedAtFirstBatch == nil { fedAtFirstBatch = fed.value }
      batches.append(batch.count)
      for entry in batch {
        let name = String(decoding: entry.name, as: UTF8.self)
        let index = Int(name.dropFirst("file-".count))!
        if seen[index] { duplicates += 1 }
        seen[index] = true
        #expect(entry.size == Int64(index))
        #expect(entry.etag == "\"etag-\(index)\"")
      }
      reader.processed()
    }
    let total = try await producer.value
    let outcome = try reader.result()

    #expect(duplicates == 0)
    #expect(seen.allSatisfy { $0 })
    #expect(outcome.children == count)
    #expect(outcome.requested?.isCollection == true)
    #expect(outcome.failedResponses == 0)
    #expect(batches.count == count / 500)
    #expect(batches.allSatisfy { $0 == 500 })
    // The first batch came while at most the feed's bound, a chunk and the first 500 entries had
    // been fed: a parser that read the whole document first would have seen every byte.
    let first = try #require(fedAtFirstBatch)
    #expect(first <= ChunkFeed.limit + 2 * chunkSize + 500 * SyntheticMultistatus.bytesPerEntry)
    #expect(first < total / 10)
    // Never more than the bound (plus the chunk that crossed it) waited for the parser.
    #expect(reader.feed.highWaterMark <= ChunkFeed.limit + chunkSize)
  }

  @Test func aConsumerThatStopsEndsTheParseWithoutReadingTheRest() async throws {
    let reader = MultistatusReader(
      resolver: HrefResolver(basePath: Array(Self.base.utf8)), requested: try WebDAVPath("big"), depth: 1, batchSize: 100,
      server: "test")
    let producer = Task {
      let loop = MultiThreadedEventLoopGroup.singleton.next()
      var document = SyntheticMultistatus(count: 50_000, folder: "big")
      while let chunk = document.next(upTo: 16 * 1024) {
        try await reader.feed.push(ByteBuffer(bytes: chunk), on: loop).get()
      }
      reader.feed.finish()
    }
    let first = await reader.next()
    #expect(first?.count == 100)
    reader.cancel()
    #expect(await reader.next() == nil)
    try await producer.value  // the feed let the producer run to its end instead of blocking it
    #expect(throws: WebDAVError.self) { try reader.result() }
  }
}

/// Resident memory while a listing streams through, measured only when asked
/// (`WEBDAV_MEMORY=1 swift test --filter MultistatusMemoryTests`): the process's RSS counts what
/// every test running beside it allocates, so in a full run it would measure them, not the parser.
@Suite(.offThePool, .enabled(if: ProcessInfo.processInfo.environment["WEBDAV_MEMORY"] != nil))
struct MultistatusMemoryTests {
  @Test func residentMemoryDoesNotGrowWithTheNumberOfEntries() async throws {
    let small = try await Self.peakGrowth(entries: 20_000)
    let large = try await Self.peakGrowth(entries: 200_000)
    print("WebDAV listing, RSS growth while parsing: 20k entries \(small >> 10) KiB, 200k entries \(large >> 10) KiB")
    // Ten times the entries (60 MB of XML) may not cost more than a few MiB more: a parser that
    // kept the document or the entries would grow by tens of MiB.
    #expect(large < small + (8 << 20))
    #expect(large < 32 << 20)
  }

  /// The most resident memory rose above its level at the start while `entries` went through.
  static func peakGrowth(entries: Int) async throws -> Int {
    let reader = MultistatusReader(
      resolver: HrefResolver(basePath: Array("/dav/".utf8)), requested: try WebDAVPath("big"), depth: 1, batchSize: 500,
      server: "test")
    let before = residentBytes()
    let producer = Task {
      let loop = MultiThreadedEventLoopGroup.singleton.next()
      var document = SyntheticMultistatus(count: entries, folder: "big")
      while let chunk = document.next(upTo: 64 * 1024) {
        try await reader.feed.push(ByteBuffer(bytes: chunk), on: loop).get()
      }
      reader.feed.finish()
    }
    var peak = before
    var seen = 0
    while let batch = await reader.next() {
      seen += batch.count
      peak = max(peak, residentBytes())
      reader.processed()
    }
    try await producer.value
    #expect(seen == entries)
    return peak - before
  }

  /// VmRSS from /proc/self/status, in bytes.
  static func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return 0 }
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
  }
}

/// A multistatus of `count` files below `/dav/<folder>/`, made a chunk at a time so that the test
/// itself holds no more of it than one chunk.
struct SyntheticMultistatus {
  /// About what one entry takes (for bounds in the assertions).
  static let bytesPerEntry = 420

  let count: Int
  let folder: String
  private var index = -1  // −1: the head and the folder's own entry; then files; `count`: the tail
  private var pending: [UInt8] = []
  private(set) var totalBytes = 0

  init(count: Int, folder: String) {
    self.count = count
    self.folder = folder
  }

  mutating func next(upTo size: Int) -> [UInt8]? {
    while pending.count < size, index <= count {
      pending += Array(piece(index).utf8)
      index += 1
    }
    guard !pending.isEmpty else { return nil }
    let chunk = Array(pending.prefix(size))
    pending.removeFirst(chunk.count)
    totalBytes += chunk.count
    return chunk
  }

  private func piece(_ i: Int) -> String {
    switch i {
    case -1:
      return """
        <?xml version="1.0" encoding="utf-8"?>
        <D:multistatus xmlns:D="DAV:">
        <D:response><D:href>/dav/\(folder)/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype>\
        </D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>

        """
    case count: return "</D:multistatus>\n"
    default:
      return """
        <D:response xmlns:lp1="DAV:"><D:href>/dav/\(folder)/file-\(i)</D:href><D:propstat><D:prop>\
        <lp1:resourcetype/><lp1:getcontentlength>\(i)</lp1:getcontentlength>\
        <lp1:getlastmodified>Thu, 26 Nov 2026 15:23:02 GMT</lp1:getlastmodified><lp1:getetag>"etag-\(i)"</lp1:getetag>\
        </D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat><D:propstat><D:prop><D:quota-used-bytes/></D:prop>\
        <D:status>HTTP/1.1 404 Not Found</D:status></D:propstat></D:response>

        """
    }
  }
}

/// A count shared between the producer and the test.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var total = 0
  func add(_ n: Int) { lock.withLock { total += n } }
  var value: Int { lock.withLock { total } }
}
