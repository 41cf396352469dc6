import FolioProtocol
import Foundation
import TestSupport
import Testing

/// Hostile names (test-plan §4.1 N01, N06, N12) are refused by every way in; odd but valid ones
/// round-trip byte for byte.
@Suite struct NameTests {
  /// Names as raw bytes, sent percent-encoded in an upload's query.
  static let refusedBytes: [[UInt8]] = [
    [], Array(".".utf8), Array("..".utf8), Array("a/b".utf8), Array("/etc/passwd".utf8), Array("../x".utf8),
    [0x61, 0x00, 0x62], [0xFE], [0x80], [0xC0, 0xAF], [0xE2, 0x82], [0xED, 0xA0, 0x80], Array("caf".utf8) + [0xE9],
    [UInt8](repeating: UInt8(ascii: "a"), count: 256),
  ]

  /// The same through JSON (a JSON string cannot hold invalid UTF-8, so those are left out).
  static let refusedStrings: [String] = [
    "", ".", "..", "a/b", "/", "a\u{0}b", String(repeating: "a", count: 256), String(repeating: "測", count: 86),
  ]

  static let accepted: [String] = [
    "\u{1B}[31mred", "\u{1B}]0;pwn\u{07}", "invoice\u{202E}fdp.exe", "-rf", "$(touch x)", "a'b\"c", " spaced ",
    "...", ".hidden", "Fälder", "Fa\u{0308}lder", "👸🏼", String(repeating: "a", count: 255),
    String(repeating: "測", count: 85), "tab\there", "new\nline", "%41", "a+b",
  ]

  @Test func hostileNamesAreRefusedEverywhere() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let target = try await ana.upload("target", [1])
    for bytes in Self.refusedBytes {
      let a = try await ana.send(
        "POST", "/v1/uploads?parent=root&name=\(TestClient.encode(bytes: bytes))", body: [1],
        headers: [("X-Folio-SHA256", TestClient.sha256([1]))])
      #expect(a.status == 400, "upload \(bytes)")
      #expect(a.errorCode == "invalidArgument")
    }
    for name in Self.refusedStrings {
      #expect(
        try await ana.send("POST", "/v1/items", json: CreateFolderRequest(parent: "root", name: name)).status == 400,
        "mkdir \(name.debugDescription)")
      #expect(try await ana.patch(target.id, ModifyRequest(name: name)).status == 400, "rename \(name.debugDescription)")
      #expect(
        try await ana.send("POST", "/v1/items/\(target.id)/copy", json: CopyRequest(parent: "root", name: name)).status
          == 400)
    }
    // Nothing was created, nothing renamed, and no upload file was left behind.
    let children = try await ana.allChildren("root")
    #expect(children.map(\.name) == ["target"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: server.root.appendingPathComponent("uploads").path).isEmpty)
  }

  @Test func oddValidNamesRoundTripExactly() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    for (i, name) in Self.accepted.enumerated() {
      let item =
        i % 2 == 0 ? try await ana.upload(name, [UInt8(i)]) : try await ana.mkdir(name)
      #expect(Array(item.name.utf8) == Array(name.utf8), "\(name.debugDescription)")
    }
    let listed = try await ana.allChildren("root").map { Array($0.name.utf8) }
    #expect(Set(listed) == Set(Self.accepted.map { Array($0.utf8) }))
    // NFC and NFD twins are two items: the server never normalises.
    #expect(listed.contains(Array("Fälder".utf8)) && listed.contains(Array("Fa\u{0308}lder".utf8)))
  }
}
