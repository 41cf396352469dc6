import Crypto
import Foundation
import TestExecution
import Testing

/// folio-rclone over rclone's local backend (a temporary folder): FEP/1 requests in, answers and
/// the folder's real bytes checked.
@Suite(.offThePool) struct RcloneExtensionTests {
  @Test func browsesAFolderInPagesWithEveryItemOnce() throws {
    let remote = try Folder()
    for n in 0..<250 { try remote.write(String(format: "f%03d.txt", n), Array("file \(n)".utf8)) }
    try FileManager.default.createDirectory(atPath: remote.path + "/Sub", withIntermediateDirectories: true)
    let s = try ExtensionSession(config: ["remote": remote.path])
    #expect((s.capabilities["identity"] as? String) == "path")
    #expect(((s.capabilities["changes"] as? [String: Any])?["feed"] as? Bool) == false)
    let root = try s.result("item", ["id": "#root"])
    #expect(root["kind"] as? String == "folder" && root["name"] as? String == "Remote")

    var pages = 0
    var names: [String] = []
    var page: String?
    repeat {
      var params: [String: Any] = ["container": "#root", "pageSize": 100, "includeHidden": true]
      if let page { params["page"] = page }
      let result = try s.result("enumerateItems", params)
      let items = result["items"] as? [[String: Any]] ?? []
      #expect(items.allSatisfy { $0["parent"] as? String == "#root" })
      names += items.compactMap { $0["name"] as? String }
      page = result["nextPage"] as? String
      pages += 1
    } while page != nil
    #expect(pages == 3)
    #expect(names.count == 251 && Set(names).count == 251, "every item once")
    #expect(names.contains("Sub") && names.contains("f249.txt"))

    #expect(try s.failure("enumerateItems", ["container": "#root", "pageSize": 100, "page": "garbage"]).code == -1002)
    #expect(try s.failure("enumerateItems", ["container": "/f001.txt", "pageSize": 100]).code == -32602)
    #expect(try s.failure("enumerateItems", ["container": "/Nope", "pageSize": 100]).code == -1005)
    #expect(try s.failure("item", ["id": "/nope.txt"]).code == -1005)
    let file = try s.result("item", ["id": "/f007.txt"])
    #expect(file["size"] as? Int == 6 && file["parent"] as? String == "#root")
    #expect(((file["version"] as? [String: Any])?["content"] as? String)?.isEmpty == false)
    #expect(s.close() == 0)
    #expect(s.stdoutNoise.isEmpty, "stdout carries protocol only: \(s.stdoutNoise)")
  }

  @Test func downloadsExactBytesWithTheirSHA256ProgressAndRanges() throws {
    let remote = try Folder()
    let bytes = randomBytes(3 << 20 + 17, seed: 3)
    try remote.write("blob.bin", bytes)
    let s = try ExtensionSession(config: ["remote": remote.path])
    let dest = s.destination()
    let id = try s.send("fetchContents", ["id": "/blob.bin", "dest": dest])
    let answer = try s.answer(id)
    let result = try #require(answer["result"] as? [String: Any], "\(answer)")
    let got = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dest)))
    #expect(got == bytes)
    // The local backend's hashes are read from the file (SlowHash): not asked in listings, so no
    // SHA-256 to pass on; one that is given must be the bytes'.
    #expect(result["sha256"] == nil || result["sha256"] as? String == sha256(bytes))
    let progress = s.progress(of: id).compactMap { $0["completed"] as? Int }
    #expect(progress.count >= 2 && progress == progress.sorted() && progress.last == bytes.count, "\(progress)")

    let ranged = s.destination()
    let range = try s.result("fetchContents", ["id": "/blob.bin", "dest": ranged, "range": [1_000_000, 1_004_096]])
    #expect((range["range"] as? [Int]) == [1_000_000, 1_004_096])
    let part = try [UInt8](Data(contentsOf: URL(fileURLWithPath: ranged)))
    #expect(part.count >= 1_004_096 && Array(part[1_000_000..<1_004_096]) == Array(bytes[1_000_000..<1_004_096]))

    // A version that is no longer the remote's is refused, not served as the new bytes.
    let stale = try s.failure("fetchContents", ["id": "/blob.bin", "dest": s.destination(), "version": ["content": "old", "metadata": "old"]])
    #expect(stale.code == -2009)
    #expect(try s.failure("fetchContents", ["id": "/gone.bin", "dest": s.destination()]).code == -1005)
  }

  @Test func uploadsNewFilesAndEditsThroughATemporaryNameAndReplaysAKey() throws {
    let remote = try Folder()
    let s = try ExtensionSession(config: ["remote": remote.path])
    let key = "96a81f8a-5b1e-4c7e-9f0e-2a0f5d1c3b77"
    // What a killed first attempt left under the key's temporary name is replaced, never shown.
    let leftover = ".folio-rclone-" + String(sha256(Array("create:\(key)".utf8)).prefix(24)) + ".part"
    try remote.write(leftover, Array("partial".utf8))
    #expect(try s.list("#root").isEmpty, "an upload in flight is not listed")

    let create: [String: Any] = [
      "key": key, "template": ["parent": "#root", "name": "notes one.txt", "kind": "file"],
      "fields": ["name", "parent", "contents"], "contents": try s.stage(Array("first\n".utf8)),
      "options": ["mayAlreadyExist": false],
    ]
    let made = try #require(try s.result("createItem", create)["item"] as? [String: Any])
    #expect(made["id"] as? String == "/notes one.txt" && made["size"] as? Int == 6)
    #expect(try remote.read("notes one.txt") == Array("first\n".utf8))
    #expect(try remote.names() == ["notes one.txt"], "no temporary left")
    // The same key again: the same item, not a second one nor a collision.
    let replay = try #require(try s.result("createItem", create)["item"] as? [String: Any])
    #expect(replay["id"] as? String == "/notes one.txt")
    var other = create
    other["key"] = "another-key"
    let taken = try s.failure("createItem", other)
    #expect(taken.code == -1001 && taken.data["existing"] as? String == "/notes one.txt")

    // An edit on the current version replaces the bytes and changes the content version.
    let edited = try #require(
      try s.result(
        "modifyItem",
        [
          "template": ["id": "/notes one.txt"], "baseVersion": made["version"] as Any, "fields": ["contents"],
          "contents": try s.stage(Array("second, longer\n".utf8)),
        ])["item"] as? [String: Any])
    #expect(try remote.read("notes one.txt") == Array("second, longer\n".utf8))
    #expect((edited["version"] as? [String: Any])?["content"] as? String != (made["version"] as? [String: Any])?["content"] as? String)
    #expect(try remote.names() == ["notes one.txt"])

    // A folder, then a file in it.
    let folder = try #require(
      try s.result(
        "createItem",
        ["key": "k-folder", "template": ["parent": "#root", "name": "Plans", "kind": "folder"], "fields": ["name", "parent"], "options": [:]])["item"]
        as? [String: Any])
    #expect(folder["kind"] as? String == "folder")
    _ = try s.result(
      "createItem",
      [
        "key": "k-inner", "template": ["parent": "/Plans", "name": "in.txt", "kind": "file"], "fields": ["name", "parent", "contents"],
        "contents": try s.stage(Array("in".utf8)), "options": [:],
      ])
    #expect(try remote.read("Plans/in.txt") == Array("in".utf8))
  }

  @Test func aStaleEditKeepsBothVersions() throws {
    let remote = try Folder()
    try remote.write("report.txt", Array("base\n".utf8))
    let s = try ExtensionSession(config: ["remote": remote.path])
    let base = try s.result("item", ["id": "/report.txt"])["version"] as Any
    // Someone else changes the file on the remote (another size, so any backend sees it).
    try remote.write("report.txt", Array("their edit\n".utf8))
    let conflict = try s.failure(
      "modifyItem",
      ["template": ["id": "/report.txt"], "baseVersion": base, "fields": ["contents"], "contents": try s.stage(Array("my edit\n".utf8))])
    #expect(conflict.code == -2015, "\(conflict)")
    let copy = try #require(conflict.data["existing"] as? String)
    #expect(copy.hasPrefix("/report (conflict, ") && copy.hasSuffix(").txt"), "\(copy)")
    #expect(try remote.read("report.txt") == Array("their edit\n".utf8), "theirs is untouched")
    #expect(try remote.read(String(copy.dropFirst())) == Array("my edit\n".utf8), "mine is kept beside it")
    #expect(try s.list("#root").count == 2)
  }

  @Test func renamesAndMovesFilesAndFolders() throws {
    let remote = try Folder()
    try remote.write("a.txt", Array("a".utf8))
    try remote.write("b.txt", Array("b".utf8))
    try remote.write("Dir/inner.txt", Array("inner".utf8))
    let s = try ExtensionSession(config: ["remote": remote.path])
    let before = try s.result("item", ["id": "/a.txt"])
    let renamed = try #require(
      try s.result("modifyItem", ["template": ["id": "/a.txt", "name": "c.txt"], "baseVersion": [:], "fields": ["name"]])["item"] as? [String: Any])
    #expect(renamed["id"] as? String == "/c.txt")
    // A rename is a metadata change (the local backend keeps the file's time), not a content one.
    let (old, new) = (before["version"] as? [String: String], renamed["version"] as? [String: String])
    #expect(old?["metadata"] != new?["metadata"] && old?["content"] == new?["content"], "\(String(describing: old)) \(String(describing: new))")
    #expect(try remote.names() == ["Dir", "b.txt", "c.txt"])
    let moved = try #require(
      try s.result("modifyItem", ["template": ["id": "/c.txt", "parent": "/Dir"], "baseVersion": [:], "fields": ["parent"]])["item"] as? [String: Any])
    #expect(moved["id"] as? String == "/Dir/c.txt" && moved["parent"] as? String == "/Dir")
    let folder = try #require(
      try s.result("modifyItem", ["template": ["id": "/Dir", "name": "Folder 2"], "baseVersion": [:], "fields": ["name"]])["item"] as? [String: Any])
    #expect(folder["id"] as? String == "/Folder 2")
    #expect(try remote.names() == ["Folder 2", "b.txt"])
    #expect(try remote.read("Folder 2/inner.txt") == Array("inner".utf8) && remote.read("Folder 2/c.txt") == Array("a".utf8))
    let taken = try s.failure("modifyItem", ["template": ["id": "/b.txt", "name": "Folder 2"], "baseVersion": [:], "fields": ["name"]])
    #expect(taken.code == -1001 && taken.data["existing"] as? String == "/Folder 2")
  }

  @Test func deletesFilesAndFoldersAndAnUnknownIdSucceeds() throws {
    let remote = try Folder()
    try remote.write("a.txt", Array("a".utf8))
    try remote.write("Full/x.txt", Array("x".utf8))
    try FileManager.default.createDirectory(atPath: remote.path + "/Empty", withIntermediateDirectories: true)
    let s = try ExtensionSession(config: ["remote": remote.path])
    #expect(try s.call("deleteItem", ["id": "/a.txt", "recursive": false])["result"] != nil)
    #expect(try s.failure("deleteItem", ["id": "/Full", "recursive": false]).code == -1007)
    #expect(try remote.names() == ["Empty", "Full"])
    #expect(try s.call("deleteItem", ["id": "/Empty", "recursive": false])["result"] != nil)
    #expect(try s.call("deleteItem", ["id": "/Full", "recursive": true])["result"] != nil)
    #expect(try s.call("deleteItem", ["id": "/never.txt", "recursive": false])["result"] != nil)
    #expect(try s.call("deleteItem", ["id": "not-an-id-it-gave", "recursive": false])["result"] != nil)
    #expect(try s.failure("item", ["id": "not-an-id-it-gave"]).code == -1005)
    #expect(try remote.names() == [])
  }

  @Test(arguments: ["with space.txt", "new\nline.txt", "emoji 🎉🐙.txt", String(repeating: "é", count: 126) + "abc"])
  func aHostileNameRoundTrips(name: String) throws {
    #expect(name.utf8.count <= 255)
    let remote = try Folder()
    let s = try ExtensionSession(config: ["remote": remote.path])
    let bytes = Array("bytes of \(name)".utf8)
    let made = try #require(
      try s.result(
        "createItem",
        [
          "key": UUID().uuidString, "template": ["parent": "#root", "name": name, "kind": "file"], "fields": ["name", "parent", "contents"],
          "contents": try s.stage(bytes), "options": [:],
        ])["item"] as? [String: Any])
    // rclone's local backend lists a control character as its Unicode picture ("␊"), whatever
    // was written: the item carries the name rclone lists, so that listings find the same id.
    let listedName = name.replacingOccurrences(of: "\n", with: "\u{240A}")
    #expect(made["name"] as? String == listedName)
    let listed = try s.list("#root")
    #expect(listed.compactMap { $0["name"] as? String } == [listedName])
    let id = try #require(listed.first?["id"] as? String)
    #expect(made["id"] as? String == id)
    let dest = s.destination()
    _ = try s.result("fetchContents", ["id": id, "dest": dest])
    #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: dest))) == bytes)
    let newName = "x " + name.dropFirst(2)
    let renamed = try #require(
      try s.result("modifyItem", ["template": ["id": id, "name": newName], "baseVersion": [:], "fields": ["name"]])["item"] as? [String: Any])
    #expect(renamed["name"] as? String == newName.replacingOccurrences(of: "\n", with: "\u{240A}"))
    #expect(try s.list("#root").compactMap { $0["id"] as? String } == [renamed["id"] as? String])
    #expect(try s.call("deleteItem", ["id": renamed["id"] as Any, "recursive": false])["result"] != nil)
    #expect(try s.list("#root").isEmpty)
  }

  @Test func aboutTellsTheSpaceOfTheRemote() throws {
    let remote = try Folder()
    let s = try ExtensionSession(config: ["remote": remote.path])
    #expect(s.capabilities["about"] as? Bool == true)
    let about = try s.result("about")
    #expect((about["total"] as? Int ?? 0) > 0 && (about["free"] as? Int ?? -1) >= 0, "\(about)")
  }
}

/// A temporary folder: the local backend's remote.
final class Folder: @unchecked Sendable {
  let path: String
  init() throws { path = try ExtensionSession.makeFolder() }
  deinit { try? FileManager.default.removeItem(atPath: path) }

  func write(_ relative: String, _ bytes: [UInt8]) throws {
    let url = URL(fileURLWithPath: path + "/" + relative)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(bytes).write(to: url)
  }

  func read(_ relative: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + "/" + relative))) }

  func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }
}

func sha256(_ bytes: [UInt8]) -> String { SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() }

/// Bytes that do not compress and are the same for a seed (a linear congruential generator).
func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
  var state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
  return (0..<count).map { _ in
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return UInt8(truncatingIfNeeded: state >> 56)
  }
}
