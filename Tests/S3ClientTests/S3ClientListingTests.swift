import Foundation
import S3Client
import S3TestSupport
import TestExecution
import Testing

/// Listings and names against moto: paging without gaps or duplicates, and names that must come
/// back byte for byte (test-plan §4.1).
@Suite(.offThePool)
struct S3ClientListingTests {
  @Test func aFolderOf2500KeysListsInPagesWithoutGapsOrDuplicates() async throws {
    let server = try await MotoServer()
    defer { server.stop() }
    let s3 = try server.client(bucket: server.plainBucket, prefix: "root")
    let body = try LocalFile.holding(Array("x".utf8))
    defer { body.remove() }

    var expected: [[UInt8]] = (0..<2500).map { Array(String(format: "big/file-%05d", $0).utf8) }
    expected.append(Array("big/file-+plus".utf8))
    let nested = ["big/sub1/a", "big/sub1/b", "big/sub2/c", "big/sub1/deeper/d"].map { Array($0.utf8) }
    try await withThrowingTaskGroup(of: Void.self) { group in
      var pending = (expected + nested + [Array("bigger".utf8), Array("outside/x".utf8)])[...]
      for _ in 0..<8 {  // no more than the HTTP client's connections per host: a request waiting longer for one than the connect timeout fails (two CPU burners)
        guard let key = pending.popFirst() else { break }
        group.addTask { _ = try await s3.putObject(key, fromFile: body.path, size: body.size, sha256: body.sha256) }
      }
      while try await group.next() != nil {
        guard let key = pending.popFirst() else { continue }
        group.addTask { _ = try await s3.putObject(key, fromFile: body.path, size: body.size, sha256: body.sha256) }
      }
    }

    var listed: [[UInt8]] = []
    var folders: [[UInt8]] = []
    var pages = 0
    var token: String?
    repeat {
      let page = try await s3.listObjects(prefix: Array("big/".utf8), continuationToken: token, maxKeys: 1000)
      pages += 1
      #expect(page.objects.count + page.commonPrefixes.count <= 1000)
      for object in page.objects {
        #expect(object.size == 1)
        #expect(object.etag.hasPrefix("\"") && object.etag.hasSuffix("\""))
        #expect(object.lastModified != nil)
      }
      listed += page.objects.map(\.key)
      folders += page.commonPrefixes
      token = page.isTruncated ? page.nextContinuationToken : nil
    } while token != nil
    #expect(pages == 3)
    #expect(listed.count == expected.count)
    #expect(Set(listed).count == listed.count)
    #expect(listed == expected.sorted { $0.lexicographicallyPrecedes($1) })
    #expect(folders == [Array("big/sub1/".utf8), Array("big/sub2/".utf8)])

    // Without a delimiter every key below, and start-after resumes after a given key.
    let flat = try await s3.listObjects(prefix: Array("big/sub1/".utf8), delimiter: nil)
    #expect(flat.objects.map(\.key) == ["big/sub1/a", "big/sub1/b", "big/sub1/deeper/d"].map { Array($0.utf8) })
    let after = try await s3.listObjects(prefix: Array("big/".utf8), startAfter: Array("big/file-02497".utf8))
    #expect(after.objects.map(\.key) == ["big/file-02498", "big/file-02499"].map { Array($0.utf8) })
    #expect(after.commonPrefixes == [Array("big/sub1/".utf8), Array("big/sub2/".utf8)])
    #expect(after.isTruncated == false)
  }

  /// Names from test-plan §4.1 that S3 can carry (valid UTF-8, ≤ 1024 bytes), under a root prefix.
  ///
  /// Without a line feed: moto routes a key with `\n` to nothing (its URL pattern's `.` does not
  /// match it, a 404 whoever sends it); AWS stores it. Carriage return and the other C0 bytes stay.
  static let hostileNames: [String] = [
    "c0-"
      + String(String.UnicodeScalarView((1...0x1F).filter { $0 != 0x0A }.compactMap(Unicode.Scalar.init) + ["\u{7F}"])),
    "\r\tlead", "trail\t\u{0B}", " ", "   ", ".", "..", ".dot", "trailing.", "~tilde", "tilde~",
    "c1-\u{80}\u{9B}\u{9F}",
    "\u{1B}[31mred", "\u{1B}[2J", "\u{1B}[1A\rharmless", "\u{1B}]0;pwn\u{07}", "\u{1B}]52;c;cHduZWQ=\u{07}",
    "\u{1B}]8;;http://x\u{1B}\\y\u{1B}]8;;\u{1B}\\", "\u{1B}P$q;touch /tmp/p\u{1B}\\", "\u{1B}]",
    "-rf", "--help", "--", "$(touch x)", "`id`", "a'b", "a\"b", "; rm -rf ~", "%s%n", "test%46.txt",
    "!\"#$%&'()*+,-.:;<=>?@[\\]^_{|}~", "a+b", "100%", "q?x=1&y", "h#frag",
    "é", "e\u{301}", "Fälder", "\u{AC10}", "\u{1100}\u{1161}\u{11B7}",
    "nice image.gif", "NICE IMAGE.GIF", "İ", "ı", "ß", "SS", "\u{212A}", "K",
    "invoice\u{202E}fdp.exe", "\u{2066}iso\u{2069}", "fi\u{200B}le", "\u{FEFF}bom", "zw\u{200D}j",
    "👸🏼", "🧝🏾‍♀️", "🇯🇵", "測試_Русский___ě_áñ", "／？",
    "a//b", "a/../b", "./x", "/leading", "dir/",
    // 1024 bytes with the root prefix `hostile/`: S3's longest key.
    String(repeating: "測", count: 338) + "ab",
  ]

  @Test func hostileNamesRoundTripByteExact() async throws {
    let server = try await MotoServer()
    defer { server.stop() }
    try await roundTrip(Self.hostileNames, server: server)
  }

  func roundTrip(_ names: [String], server: MotoServer) async throws {
    let s3 = try server.client(bucket: server.plainBucket, prefix: "hostile")
    var expected: [[UInt8]] = []
    for name in names {
      let key = Array(name.utf8)
      let content = try LocalFile.holding(key)
      defer { content.remove() }
      _ = try await s3.putObject(key, fromFile: content.path, size: content.size, sha256: content.sha256)
      let target = try DownloadTarget()
      let download = try await s3.getObject(key, to: target.fd)
      #expect(target.bytes == key, "\(key)")
      #expect(download.bytesWritten == Int64(key.count))
      #expect(try await s3.headObject(key).size == Int64(key.count), "\(key)")
      expected.append(key)
    }
    var listed: [[UInt8]] = []
    var token: String?
    repeat {
      let page = try await s3.listObjects(delimiter: nil, continuationToken: token, maxKeys: 17)
      listed += page.objects.map(\.key)
      token = page.nextContinuationToken
    } while token != nil
    #expect(Set(listed) == Set(expected))
    #expect(listed.count == expected.count)
    // NFC and NFD twins are two keys, not one.
    #expect(listed.contains(Array("é".utf8)) && listed.contains(Array("e\u{301}".utf8)) || !names.contains("é"))
  }

  @Test func namesS3CannotCarryAreRefusedBeforeAnythingIsSent() async throws {
    let server = try await MotoServer()
    defer { server.stop() }
    let s3 = try server.client(bucket: server.plainBucket)
    let content = try LocalFile.holding([1])
    defer { content.remove() }
    for bad: [UInt8] in [[0xFE], [0x63, 0x61, 0x66, 0xE9], [0xE2, 0x82], Array(repeating: 0x61, count: 1025), []] {
      let error = await #expect(throws: S3Error.self) {
        try await s3.putObject(bad, fromFile: content.path, size: 1, sha256: content.sha256)
      }
      #expect(error?.code == .invalidArgument)
    }
    #expect(try await s3.listObjects(delimiter: nil).objects.isEmpty)
  }
}
