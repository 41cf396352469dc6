import AsyncHTTPClient
import Crypto
import FolioProtocol
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

/// Downloads with ranges and revisions; uploads that must be exact or leave nothing behind.
@Suite struct ContentTests {
  @Test func downloadsWholeAndByRange() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let bytes = testBytes(10_000, seed: 3)
    let f = try await ana.upload("data.bin", bytes)
    let whole = try await ana.content(f.id)
    #expect(whole.status == 200)
    #expect(whole.body == bytes)
    #expect(whole.header("Content-Length") == "10000")
    #expect(whole.header("X-Folio-SHA256") == TestClient.sha256(bytes))
    #expect(whole.header("X-Folio-Content-Version") == "1")
    let cases: [(String, Range<Int>, String)] = [
      ("bytes=0-99", 0..<100, "bytes 0-99/10000"), ("bytes=9990-", 9990..<10000, "bytes 9990-9999/10000"),
      ("bytes=-10", 9990..<10000, "bytes 9990-9999/10000"), ("bytes=500-500", 500..<501, "bytes 500-500/10000"),
      ("bytes=9000-20000", 9000..<10000, "bytes 9000-9999/10000"),
    ]
    for (header, range, contentRange) in cases {
      let part = try await ana.content(f.id, headers: [("Range", header)])
      #expect(part.status == 206, "\(header)")
      #expect(part.body == Array(bytes[range]), "\(header)")
      #expect(part.header("Content-Range") == contentRange)
    }
    for header in ["bytes=10000-", "bytes=20000-20001"] {
      let out = try await ana.content(f.id, headers: [("Range", header)])
      #expect(out.status == 416, "\(header)")
      #expect(out.header("Content-Range") == "bytes */10000")
      #expect(out.errorCode == "invalidArgument")
    }
    #expect(try await ana.send("GET", "/v1/items/\(f.id)/content?version=1").status == 200)
    let old = try await ana.send("GET", "/v1/items/\(f.id)/content?version=7")
    #expect(old.status == 410)
    #expect(old.errorCode == "versionNoLongerAvailable")
    let empty = try await ana.upload("empty", [])
    #expect(try await ana.content(empty.id).body == [])
    #expect(try await ana.send("GET", "/v1/items/root/content").errorCode == "invalidArgument")
  }

  /// A file of several `sendfile` regions (4 MiB each): whole, and ranges across their borders,
  /// byte for byte.
  @Test func downloadsSpanningManySendfileRegions() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let mib = 1 << 20
    let bytes = testBytes(9 * mib + 7, seed: 11)
    let f = try await ana.upload("big.bin", bytes)
    let whole = try await ana.content(f.id)
    #expect(whole.status == 200)
    #expect(whole.body.count == bytes.count)
    #expect(whole.body == bytes)
    let cases: [(String, Range<Int>)] = [
      ("bytes=\(4 * mib - 10)-\(8 * mib + 9)", (4 * mib - 10)..<(8 * mib + 10)),
      ("bytes=\(4 * mib)-", (4 * mib)..<bytes.count),
      ("bytes=-\(mib + 3)", (bytes.count - mib - 3)..<bytes.count),
    ]
    for (header, range) in cases {
      let part = try await ana.content(f.id, headers: [("Range", header)])
      #expect(part.status == 206, "\(header)")
      #expect(part.body == Array(bytes[range]), "\(header)")
    }
  }

  /// A client that hangs up in the middle of a download costs the server nothing lasting: the
  /// descriptors it opened for the answer are closed, and the next download is whole.
  @Test func aClientHangingUpMidDownloadLeavesNothingOpen() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let pid = try #require(Self.serverPID(root: server.root))
    let bytes = testBytes(12 << 20, seed: 12)
    let f = try await ana.upload("big.bin", bytes)
    #expect(try await ana.content(f.id).body == bytes)
    let before = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
    for _ in 0..<5 {
      let cut = try RawHTTP.exchange(
        port: server.baseURL.port ?? 0,
        request: RawHTTP.request(
          "GET", "/v1/items/\(f.id)/content", headers: [("Authorization", "Bearer \(ana.token ?? "")")]),
        hangUpAfter: 1 << 20)
      #expect(cut.status == 200)
    }
    #expect(try await ana.content(f.id).body == bytes)
    // The server closes its side once its next write fails; give it a moment.
    var after = Int.max
    for _ in 0..<50 {
      after = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
      if after <= before { break }
      try await Task.sleep(for: .milliseconds(100))
    }
    #expect(after <= before, "the server holds \(after) descriptors, \(before) before the hang-ups")
  }

  @Test func replacingContentBumpsTheRevisionAndDropsTheOldFile() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let f = try await ana.upload("a", [1, 2, 3])
    let put = try await ana.put(f.id, base: 1, [4, 5])
    #expect(put.status == 200)
    let answer = try put.decode(UploadResponse.self)
    #expect(answer.contentAccepted)
    #expect(answer.item.version.content == 2)
    #expect(answer.item.size == 2)
    #expect(try await ana.content(f.id).body == [4, 5])
    #expect(try await ana.send("GET", "/v1/items/\(f.id)/content?version=1").errorCode == "versionNoLongerAvailable")
    let files = try FileManager.default.contentsOfDirectory(atPath: server.root.appendingPathComponent("content").path)
    #expect(files == ["\(f.id).2"])
  }

  @Test func aWrongHashStoresNothing() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let bad = try await ana.uploadAnswer("x.bin", testBytes(5000), sha: TestClient.sha256([1]))
    #expect(bad.status == 400)
    #expect(bad.errorCode == "contentMismatch")
    let f = try await ana.upload("f.bin", [1, 2, 3])
    let badPut = try await ana.send(
      "PUT", "/v1/items/\(f.id)/content?base=1", body: [9, 9], headers: [("X-Folio-SHA256", TestClient.sha256([1]))])
    #expect(badPut.errorCode == "contentMismatch")
    #expect(try await ana.content(f.id).body == [1, 2, 3])
    #expect(try await ana.allChildren("root").map(\.name) == ["f.bin"])
    try Self.expectNoLeftovers(server, live: ["\(f.id).1"])
  }

  @Test func aShortBodyOrNoLengthStoresNothing() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let token = try #require(ana.token)
    let bytes = testBytes(100_000)
    // Content-Length promises 100,000 bytes; 40,000 arrive and the client goes away.
    let short = try RawHTTP.exchange(
      port: server.port,
      request: RawHTTP.request(
        "POST", "/v1/uploads?parent=root&name=short", headers: [
          ("Authorization", "Bearer \(token)"), ("Content-Length", "100000"),
          ("X-Folio-SHA256", TestClient.sha256(bytes)),
        ], body: Array(bytes[0..<40_000])), shutdownWrite: true, readTimeout: 5)
    #expect(short.status == nil || short.status == 400)
    // Chunked, without a length: refused before reading.
    let chunked = try RawHTTP.exchange(
      port: server.port,
      request: RawHTTP.request(
        "POST", "/v1/uploads?parent=root&name=chunked", headers: [
          ("Authorization", "Bearer \(token)"), ("Transfer-Encoding", "chunked"),
          ("X-Folio-SHA256", TestClient.sha256([1])), ("Connection", "close"),
        ], body: Array("1\r\n\u{1}\r\n0\r\n\r\n".utf8)), readTimeout: 5)
    #expect(chunked.status == 400)
    try await Task.sleep(for: .milliseconds(200))
    #expect(try await ana.allChildren("root").isEmpty)
    try Self.expectNoLeftovers(server, live: [])
  }

  /// A 64 MiB upload streamed in 64 KiB chunks: the server's resident memory stays far below the
  /// file's size, and the bytes come back with the same SHA-256.
  @Test func bigUploadStreamsAtLowMemory() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let pid = try #require(Self.serverPID(root: server.root))
    let chunk = 64 * 1024
    let chunks = 1024
    let total = chunk * chunks
    var hasher = SHA256()
    for i in 0..<chunks { hasher.update(data: Self.chunk(i, size: chunk)) }
    let sha = hasher.finalize().map { String(format: "%02x", $0) }.joined()
    let rssBefore = try Self.memory(pid, "VmRSS")

    var request = HTTPClientRequest(url: server.baseURL.absoluteString + "/v1/uploads?parent=root&name=big.bin")
    request.method = .POST
    request.headers.add(name: "Authorization", value: "Bearer \(ana.token ?? "")")
    request.headers.add(name: "X-Folio-SHA256", value: sha)
    let stream = AsyncStream<ByteBuffer> { continuation in
      Task.detached {
        for i in 0..<chunks { continuation.yield(ByteBuffer(bytes: Self.chunk(i, size: chunk))) }
        continuation.finish()
      }
    }
    request.body = .stream(stream, length: .known(Int64(total)))
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
    let body = try await response.body.collect(upTo: 1 << 20)
    #expect(response.status.code == 201, "\(String(buffer: body))")
    let item = try JSONDecoder().decode(UploadResponse.self, from: Data(body.readableBytesView)).item
    #expect(item.size == Int64(total))
    #expect(item.sha256 == sha)
    let peak = try Self.memory(pid, "VmHWM")
    #expect(peak - rssBefore < 32 << 20, "the server grew from \(rssBefore >> 20) MiB to a peak of \(peak >> 20) MiB")

    // Download it back, streamed, and hash it.
    var get = HTTPClientRequest(url: server.baseURL.absoluteString + "/v1/items/\(item.id)/content")
    get.headers.add(name: "Authorization", value: "Bearer \(ana.token ?? "")")
    let download = try await HTTPClient.shared.execute(get, timeout: .seconds(120))
    var back = SHA256()
    var count = 0
    for try await part in download.body {
      part.withUnsafeReadableBytes { back.update(bufferPointer: $0) }
      count += part.readableBytes
    }
    #expect(count == total)
    #expect(back.finalize().map { String(format: "%02x", $0) }.joined() == sha)
    let afterDownload = try Self.memory(pid, "VmHWM")
    #expect(afterDownload - rssBefore < 32 << 20, "downloading took the server to \(afterDownload >> 20) MiB")
  }

  static func chunk(_ i: Int, size: Int) -> [UInt8] {
    var out = [UInt8](repeating: UInt8(i & 0xFF), count: size)
    out[0] = UInt8((i >> 8) & 0xFF)
    return out
  }

  /// The pid of the `folio serve` running on `root`, found through /proc (ServerProcess does not
  /// expose it).
  static func serverPID(root: URL) -> Int32? {
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
      guard let pid = Int32(entry),
        let cmd = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(entry)/cmdline"))
      else { continue }
      let args = cmd.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
      if args.contains("serve"), args.contains(root.path), !args.contains("admin") { return pid }
    }
    return nil
  }

  /// A line of /proc/PID/status in bytes (VmRSS, VmHWM).
  static func memory(_ pid: Int32, _ key: String) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
      let kb = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) } ?? 0
      return kb * 1024
    }
    throw TestClient.Failure(description: "no \(key) in /proc/\(pid)/status")
  }

  /// uploads/ is empty and content/ holds exactly `live`.
  static func expectNoLeftovers(_ server: ServerProcess, live: Set<String>) throws {
    let fm = FileManager.default
    #expect(try fm.contentsOfDirectory(atPath: server.root.appendingPathComponent("uploads").path).isEmpty)
    #expect(Set(try fm.contentsOfDirectory(atPath: server.root.appendingPathComponent("content").path)) == live)
  }
}
