import Foundation
import TestExecution
import Testing
import WebDAVTestSupport

@testable import WebDAVClient

#if canImport(Glibc)
  import Glibc
#endif

/// Hostile names (test-plan §4.1) round-trip byte-exact through each server: PUT, then PROPFIND,
/// then GET. What a server will not carry is listed here with the server, not worked around.
@Suite(.offThePool)
struct WebDAVNamesTests {
  /// Names every server stores and lists (all three take control characters, escapes, bidi
  /// controls and NFD as they are).
  static let corpus: [[UInt8]] = [
    "a b", "100%", "test%46.txt", "%2F", "a%20b", "x#y", "q?y", "semi;c", "plus+", "amp&", "lt<gt>", "quo\"te",
    "apo's", "back\\slash", "$(touch x)", "`id`", "-rf", "--", " lead", "trail ", "colon:x", "star*", "tilde~",
    "!\"#$%&'()*+,-.:;<=>?@[\\]^_{|}~", "ünïcödé", "e\u{301}", "\u{E9}", "감", "\u{1100}\u{1161}\u{11A8}", "👸🏼",
    "🧝🏾‍♀️", "🇯🇵", "測試_Русский___ě_áñ", "／？", "invoice\u{202E}fdp.exe", "fi\u{200B}le", "\u{FEFF}bom",
    "tab\tx", "nl\nx", "cr\rx", "\u{1}ctl", "\u{7F}del", "\u{1B}[31mred", "\u{1B}]0;pwn\u{7}", "\u{85}nel", "CON",
    "nul.txt", String(repeating: "n", count: 255), String(repeating: "測", count: 85),
  ].map { Array($0.utf8) }
  /// Names that begin with a dot: nginx's dav-ext stores and serves them but leaves them out of
  /// PROPFIND.
  static let dotNames: [[UInt8]] = [".hidden", "...", ".x.partial"].map { Array($0.utf8) }
  /// Not UTF-8: this client cannot address them (see WebDAVClient.url), whatever the server.
  static let notUTF8: [[UInt8]] = [[0x63, 0x61, 0x66, 0xE9], [0xFE], [0xC0, 0xAF], [0xE2, 0x82], [0x9B, 0x31, 0x6D]]

  @Test(arguments: DAVServerKind.allCases)
  func hostileNamesRoundTripByteExact(kind: DAVServerKind) async throws {
    let server = try kind.start()
    defer { server.stop() }
    let client = try server.client()
    let folder = try WebDAVPath("names")
    try await client.makeCollection(folder)
    let names = Self.corpus + Self.dotNames
    for name in names {
      let path = try folder.appending(name)
      let upload = try await client.upload(bytes: [0x3C] + name + [0x3E], to: path, condition: .ifNoneMatch)
      #expect(upload.created, "\(path)")
    }

    let listed = try await WebDAVServerTests.names(client, folder)
    let expected = kind.listsDotNames ? names : Self.corpus
    #expect(listed == expected.sorted { $0.lexicographicallyPrecedes($1) })
    for name in names {
      let path = try folder.appending(name)
      #expect(try await WebDAVServerTests.contents(client, path) == [0x3C] + name + [0x3E], "\(path)")
      #expect(try await client.stat(path).size == Int64(name.count + 2), "\(path)")
    }
    // The same bytes on the server's disk: what was stored is what was meant, not a re-encoding.
    let onDisk = try FileManager.default.contentsOfDirectory(atPath: server.files + "/names")
    #expect(onDisk.count == names.count)
    for name in names {
      #expect(access(String(decoding: Array((server.files + "/names/").utf8) + name, as: UTF8.self), F_OK) == 0)
    }
  }

  @Test(arguments: DAVServerKind.allCases)
  func namesThatAreNotUTF8AreListedButRefusedNeverSentElsewhere(kind: DAVServerKind) async throws {
    let server = try kind.start()
    defer { server.stop() }
    let client = try server.client()
    _ = try await client.upload(bytes: Array("keep".utf8), to: try WebDAVPath("keep"))
    // Made on the server's disk: the listing must carry them as bytes.
    for name in Self.notUTF8 {
      let path = Array((server.files + "/").utf8) + name + [0]
      let fd = path.withUnsafeBufferPointer {
        $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
      }
      #expect(fd >= 0)
      close(fd)
    }
    let expected = Set((kind.listsNamesThatAreNotUTF8 ? Self.notUTF8 : []) + [Array("keep".utf8)])
    #expect(Set(try await WebDAVServerTests.names(client, .root)) == expected)
    for name in Self.notUTF8 {
      let path = try WebDAVPath.root.appending(name)
      let put = await #expect(throws: WebDAVError.self) { try await client.upload(bytes: [1], to: path) }
      #expect(put?.code == .nameNotAddressable)
      let delete = await #expect(throws: WebDAVError.self) { try await client.delete(path) }
      #expect(delete?.code == .nameNotAddressable)
    }
    // Nothing reached the base collection in their place.
    #expect(try await WebDAVServerTests.contents(client, try WebDAVPath("keep")) == Array("keep".utf8))
    #expect(Set(try await WebDAVServerTests.names(client, .root)) == expected)
    let onDisk = try FileManager.default.contentsOfDirectory(atPath: server.files)
    #expect(onDisk.count == Self.notUTF8.count + 1)
  }
}
