import Crypto
import Foundation
import ProviderAPI
import TestExecution
import Testing

/// Extensions/folio-ext-sqlite, the reference extension, through scripted FEP/1 sessions
/// (docs/EXTENSIONS.md): the handshake, writes and reads, the change log, conflicts, names.
/// Interruptions (cancel, kill -9, SIGTERM): SqliteExtensionTests+Interruptions.
@Suite(.offThePool) struct SqliteExtensionTests {
  static func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

  /// Creates a file from `bytes` in `parent` with `key`; returns the whole answer.
  static func create(
    _ ext: ExtensionProcess, _ scratch: Scratch, name: String, bytes: Data, key: String, parent: String = "#root"
  ) throws -> JSON {
    let upload = try scratch.file("up-\(key)", bytes)
    return try ext.call(
      "createItem",
      [
        "key": .string(key), "template": ["parent": .string(parent), "name": .string(name), "kind": "file"],
        "fields": ["name", "parent", "contents"], "contents": .string(upload), "options": ["mayAlreadyExist": false],
      ])
  }

  static func folder(_ ext: ExtensionProcess, name: String, key: String, parent: String = "#root") throws -> JSON {
    try ext.call(
      "createItem",
      [
        "key": .string(key), "template": ["parent": .string(parent), "name": .string(name), "kind": "folder"],
        "fields": ["name", "parent"],
      ])
  }

  /// Fetches the whole content of `id`; returns the answer and the bytes written to `dest`.
  static func fetch(_ ext: ExtensionProcess, _ scratch: Scratch, _ id: String) throws -> (answer: JSON, bytes: Data) {
    let dest = try scratch.file("dl-\(UUID().uuidString)", Data())
    let answer = try ext.call("fetchContents", ["id": .string(id), "dest": .string(dest)])
    return (answer, try Data(contentsOf: URL(fileURLWithPath: dest)))
  }

  @Test func handshakeDescribeFirstNotInitializedUnknownMethodAndExitOnEOF() throws {
    let scratch = try Scratch()
    let ext = try ExtensionProcess.sqlite(scratch, root: try scratch.folder("store"), initialize: false)
    let early = try ext.call("item", ["id": "#root"])
    #expect(early["error"]["code"] == -32002, "\(early)")
    let described = try ext.result("describe")
    #expect(described["protocols"] == [1])
    #expect(described["settings"].array.first?["name"] == "root")
    #expect(described["settings"].array.first?["required"] == true)
    let initialized = try ext.initialize(root: scratch.path("store"))
    #expect(initialized["protocol"] == 1)
    #expect(initialized["capabilities"]["identity"] == "stable")
    #expect(initialized["capabilities"]["byteNames"] == true)
    #expect(initialized["capabilities"]["write"]["trash"] == true)
    #expect(initialized["actions"].array.first?["id"] == "x-duplicate")
    let unknown = try ext.call("frobnicate")
    #expect(unknown["error"]["code"] == -32601, "\(unknown)")
    let root = try ext.result("item", ["id": "#root"])
    #expect(root["parent"] == "#root" && root["kind"] == "folder" && root["name"] == "My store", "\(root)")
    // A malformed line is answered -32700 and the session goes on.
    try ext.sendLine("{not json")
    #expect(ext.wait(60) { $0.contains { $0["error"]["code"] == -32700 } })
    #expect(try ext.result("item", ["id": "#root"])["id"] == "#root")
    #expect(try ext.call("shutdown").has("result"))
    ext.closeInput()
    let status = ext.waitForExit(timeout: 30)
    #expect(status == 0, "the extension exits 0 on stdin's EOF: status \(String(describing: status))")
    #expect(ext.nonJSONLines.isEmpty, "stdout carries protocol lines only: \(ext.nonJSONLines)")
  }

  @Test func createThenListEveryChildOnceInPagesAndFetchByHash() throws {
    let scratch = try Scratch()
    let ext = try ExtensionProcess.sqlite(scratch, root: try scratch.folder("store"))
    // The very first call after initialize is an upload.
    let bytes = Scratch.bytes(3 * 1_048_576 + 17)
    let created = try Self.create(ext, scratch, name: "notes one.txt", bytes: bytes, key: "k-notes")
    let item = created["result"]["item"]
    let id = try #require(item["id"].string, "\(created)")
    #expect(item["size"] == .int(bytes.count))
    #expect(item["sha256"] == .string(Self.sha256(bytes)))
    let parent = try #require(try Self.folder(ext, name: "many", key: "k-many")["result"]["item"]["id"].string)
    for n in 0..<250 {
      let r = try Self.folder(ext, name: "f\(n)", key: "k-f\(n)", parent: parent)
      #expect(r.has("result"), "\(r)")
    }
    let listed = try ext.listAll(parent, pageSize: 100)
    #expect(listed.pages == 3)
    #expect(listed.items.count == 250)
    #expect(Set(listed.items.compactMap { $0["id"].string }).count == 250, "no id twice")
    // Folio's name order: digit runs as numbers.
    #expect(listed.items.prefix(11).compactMap { $0["name"].string } == (0...10).map { "f\($0)" })
    let garbage = try ext.call("enumerateItems", ["container": .string(parent), "pageSize": 100, "page": "zzz"])
    #expect(garbage["error"]["code"] == -1002, "\(garbage)")
    // A whole fetch: the bytes, the recorded hash, progress every MiB that never decreases.
    let (answer, fetched) = try Self.fetch(ext, scratch, id)
    #expect(fetched == bytes)
    #expect(answer["result"]["sha256"] == .string(Self.sha256(bytes)))
    let request = try #require(answer["id"].int)
    let completed = ext.progress(of: request).compactMap { $0["completed"].int }
    #expect(completed.count >= 3 && completed == completed.sorted() && completed.last == bytes.count, "\(completed)")
    // A range: its bytes at their own offsets.
    let dest = try scratch.file("range", Data())
    let ranged = try ext.call("fetchContents", ["id": .string(id), "dest": .string(dest), "range": [4096, 8192]])
    #expect(ranged["result"]["range"] == [4096, 8192], "\(ranged)")
    let partial = try Data(contentsOf: URL(fileURLWithPath: dest))
    #expect(partial.count >= 8192 && partial[4096..<8192] == bytes[4096..<8192])
    // A folder has no content; an unknown id is no such item.
    #expect(try ext.call("fetchContents", ["id": .string(parent), "dest": .string(dest)]).has("error"))
    #expect(try ext.call("fetchContents", ["id": "nope", "dest": .string(dest)])["error"]["code"] == -1005)
  }

  /// The extension declares the `name` sort, so the host shows its pages as they come: the
  /// order must be Folio's own (NameOrdering), page after page, folders first or not, both ways.
  @Test func nameOrderIsFoliosInEveryPage() throws {
    let scratch = try Scratch()
    let ext = try ExtensionProcess.sqlite(scratch, root: try scratch.folder("store"))
    let names = [
      "a10", "a9", "A2", "a02", "a2", "a002", "Zeta", "alpha", "file", "file1", "file01", "é", "e", "E", "0", "00",
      "a01b", "a1a", "x 10 y", "x 9 y", "~tilde", "_under", "Ab", "aB", "b", "99999999999999999999",
      "100000000000000000000",
    ]
    for (n, name) in names.enumerated() {
      let r =
        n % 3 == 0
        ? try Self.folder(ext, name: name, key: "o\(n)")
        : try Self.create(ext, scratch, name: name, bytes: Data(), key: "o\(n)")
      #expect(r.has("result"), "\(r)")
    }
    let isFolder = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0 % 3 == 0) })
    let folio = names.sorted { NameOrdering.compare(Array($0.utf8), Array($1.utf8)) < 0 }
    for (descending, foldersFirst) in [(false, false), (true, false), (false, true), (true, true)] {
      var expected = descending ? folio.reversed() : folio
      if foldersFirst { expected = expected.filter { isFolder[$0]! } + expected.filter { !isFolder[$0]! } }
      var got: [String] = []
      var page: JSON = nil
      repeat {
        let result = try ext.result(
          "enumerateItems",
          [
            "container": "#root", "pageSize": 4, "page": page,
            "sort": ["by": "name", "descending": .bool(descending), "foldersFirst": .bool(foldersFirst)],
          ])
        got += result["items"].array.compactMap { $0["name"].string }
        page = result["nextPage"]
      } while !page.isNull && got.count <= names.count
      #expect(got == expected, "descending \(descending), folders first \(foldersFirst)")
    }
  }

  @Test func replayedKeyAnswersTheSameItemAndATakenNameIsACollision() throws {
    let scratch = try Scratch()
    let ext = try ExtensionProcess.sqlite(scratch, root: try scratch.folder("store"))
    let first = try Self.create(ext, scratch, name: "a.txt", bytes: Data("one".utf8), key: "key-1")
    let again = try Self.create(ext, scratch, name: "a.txt", bytes: Data("one".utf8), key: "key-1")
    let id = try #require(first["result"]["item"]["id"].string)
    #expect(again["result"]["item"]["id"] == .string(id), "\(again)")
    let other = try Self.create(ext, scratch, name: "a.txt", bytes: Data("two".utf8), key: "key-2")
    #expect(other["error"]["code"] == -1001, "\(other)")
    #expect(other["error"]["data"]["existing"] == .string(id))
    #expect(try ext.listAll("#root").items.count == 1)
    // A rename keeps the id and bumps the metadata version only.
    let renamed = try ext.result(
      "modifyItem",
      [
        "template": ["id": .string(id), "name": "b.txt"], "baseVersion": ["content": "1", "metadata": "1"],
        "fields": ["name"],
      ])
    #expect(renamed["item"]["id"] == .string(id) && renamed["item"]["name"] == "b.txt")
    #expect(renamed["item"]["version"] == ["content": "1", "metadata": "2"])
    // Deleting an unknown id succeeds; a folder with something in it needs `recursive`.
    #expect(try ext.call("deleteItem", ["id": "no-such-id", "recursive": false]).has("result"))
    let dir = try #require(try Self.folder(ext, name: "d", key: "key-d")["result"]["item"]["id"].string)
    _ = try Self.create(ext, scratch, name: "in", bytes: Data("x".utf8), key: "key-in", parent: dir)
    #expect(try ext.call("deleteItem", ["id": .string(dir), "recursive": false])["error"]["code"] == -1007)
    #expect(try ext.call("deleteItem", ["id": .string(dir), "recursive": true]).has("result"))
  }

  @Test func staleBaseKeepsBothVersionsAsAConflictCopy() throws {
    let scratch = try Scratch()
    let ext = try ExtensionProcess.sqlite(scratch, root: try scratch.folder("store"))
    let id = try #require(
      try Self.create(ext, scratch, name: "report.txt", bytes: Data("v1".utf8), key: "c1")["result"]["item"]["id"]
        .string)
    // Someone else's edit lands first (content 1 → 2).
    let theirs = try scratch.file("theirs", Data("theirs".utf8))
    let edited = try ext.result(
      "modifyItem",
      [
        "template": ["id": .string(id)], "baseVersion": ["content": "1", "metadata": "1"], "fields": ["contents"],
        "contents": .string(theirs),
      ])
    #expect(edited["item"]["version"]["content"] == "2")
    // Ours, made on version 1, comes second: both are kept.
    let ours = try scratch.file("ours", Data("ours".utf8))
    let stale = try ext.call(
      "modifyItem",
      [
        "template": ["id": .string(id)], "baseVersion": ["content": "1", "metadata": "1"], "fields": ["contents"],
        "contents": .string(ours),
      ])
    #expect(stale["error"]["code"] == -2015, "\(stale)")
    let copy = try #require(stale["error"]["data"]["existing"].string)
    #expect(try Self.fetch(ext, scratch, id).bytes == Data("theirs".utf8))
    #expect(try Self.fetch(ext, scratch, copy).bytes == Data("ours".utf8))
    let copyName = try #require(try ext.result("item", ["id": .string(copy)])["name"].string)
    #expect(copyName.wholeMatch(of: /report \(conflict, \d{4}-\d\d-\d\d \d\d\.\d\d\)\.txt/) != nil, "\(copyName)")
  }

  @Test func changeLogReportsCreatesEditsAndTombstones() throws {
    let scratch = try Scratch()
    let ext = try ExtensionProcess.sqlite(scratch, root: try scratch.folder("store"))
    let gone = try #require(try Self.folder(ext, name: "gone", key: "g")["result"]["item"]["id"].string)
    let a0 = try ext.result("currentSyncAnchor", ["container": "#working-set"])["anchor"]
    #expect(
      try ext.result("currentSyncAnchor", ["container": "#working-set"])["anchor"] == a0, "stable while nothing changes"
    )
    let made = try #require(
      try Self.create(ext, scratch, name: "new.txt", bytes: Data("n".utf8), key: "n")["result"]["item"]["id"].string)
    _ = try ext.result("deleteItem", ["id": .string(gone), "recursive": true])
    let changes = try ext.result("enumerateChanges", ["container": "#working-set", "anchor": a0])
    #expect(changes["updated"].array.compactMap { $0["id"].string } == [made], "\(changes)")
    #expect(changes["deleted"] == [.string(gone)], "\(changes)")
    #expect(changes["moreComing"] == false)
    let root = try ext.result("enumerateChanges", ["container": "#root", "anchor": a0])
    #expect(root["updated"].array.count == 1 && root["deleted"] == [.string(gone)], "\(root)")
    let garbage = try ext.call("enumerateChanges", ["container": "#working-set", "anchor": "zzz"])
    #expect(garbage["error"]["code"] == -1002, "\(garbage)")
  }

  /// Names with a space, a newline, emoji, exactly 255 bytes, and bytes that are not UTF-8 (sent
  /// as `nameBytes`) come back as they went; `a/b` and `..` are refused.
  @Test func hostileNamesRoundTrip() throws {
    let scratch = try Scratch()
    let ext = try ExtensionProcess.sqlite(scratch, root: try scratch.folder("store"))
    let names = [
      "with space", "line\nbreak", "emoji ☁️🗂", String(repeating: "é", count: 127) + "x", "-dash", "back\\slash",
    ]
    for (n, name) in names.enumerated() {
      let made = try Self.folder(ext, name: name, key: "n\(n)")
      #expect(made["result"]["item"]["name"] == .string(name), "\(made)")
      let id = try #require(made["result"]["item"]["id"].string)
      #expect(try ext.result("item", ["id": .string(id)])["name"] == .string(name))
    }
    let raw: [UInt8] = [0x66, 0xFF, 0x0A, 0x67]
    let made = try ext.call(
      "createItem",
      [
        "key": "raw",
        "template": [
          "parent": "#root", "name": "f\u{FFFD}\ng", "nameBytes": .string(Data(raw).base64EncodedString()),
          "kind": "folder",
        ],
        "fields": ["name", "parent"],
      ])
    let item = made["result"]["item"]
    #expect(item["nameBytes"] == .string(Data(raw).base64EncodedString()), "\(made)")
    #expect(item["name"] == "f\u{FFFD}\ng")
    let listed = try ext.listAll("#root").items
    #expect(listed.count == names.count + 1)
    #expect(listed.contains { $0["nameBytes"] == .string(Data(raw).base64EncodedString()) })
    for bad in ["a/b", "..", ".", ""] {
      let refused = try Self.folder(ext, name: bad, key: "bad-\(bad)")
      #expect(refused.has("error"), "\(bad) is refused: \(refused)")
    }
    #expect(try ext.listAll("#root").items.count == names.count + 1)
  }

  @Test func trashRestoreCopyAndTheDuplicateAction() throws {
    let scratch = try Scratch()
    let ext = try ExtensionProcess.sqlite(scratch, root: try scratch.folder("store"))
    let dir = try #require(try Self.folder(ext, name: "dir", key: "d")["result"]["item"]["id"].string)
    _ = try Self.create(ext, scratch, name: "in.txt", bytes: Data("inside".utf8), key: "i", parent: dir)
    let trashed = try ext.result(
      "modifyItem",
      [
        "template": ["id": .string(dir), "parent": "#trash"], "baseVersion": ["content": "1", "metadata": "1"],
        "fields": ["parent"],
      ])
    #expect(trashed["item"]["parent"] == "#trash" && trashed["item"].has("trashed"), "\(trashed)")
    #expect(try ext.listAll("#trash").items.count == 1)
    #expect(try ext.listAll("#root").items.isEmpty)
    let restored = try ext.result("restoreItem", ["id": .string(dir)])
    #expect(restored["item"]["parent"] == "#root" && !restored["item"].has("trashed"), "\(restored)")
    let copied = try ext.result("copyItem", ["id": .string(dir), "parent": "#root", "name": "dir 2"])
    let copy = try #require(copied["item"]["id"].string)
    let inner = try ext.listAll(copy).items
    #expect(inner.count == 1)
    #expect(try Self.fetch(ext, scratch, try #require(inner.first?["id"].string)).bytes == Data("inside".utf8))
    #expect(try ext.call("performAction", ["action": "x-duplicate", "ids": [.string(dir)]]).has("result"))
    #expect(try ext.listAll("#root").items.compactMap { $0["name"].string }.sorted() == ["dir", "dir 2", "dir copy"])
    let tagged = try ext.result(
      "modifyItem",
      [
        "template": ["id": .string(dir), "tags": ["Red"], "favoriteRank": 3], "baseVersion": [:],
        "fields": ["tags", "favoriteRank"],
      ])
    #expect(
      tagged["item"]["tags"] == ["Red"] && tagged["item"]["favoriteRank"] == 3
        && tagged["item"]["decorations"] == ["x-favorite"])
  }

  /// A store folder that is not there (an unmounted disk) is offline: -1004 for every call, never
  /// "no such item".
  @Test func missingStoreFolderIsUnreachable() throws {
    let scratch = try Scratch()
    let ext = try ExtensionProcess.sqlite(scratch, root: scratch.path("not-mounted"))
    for (method, params) in [
      ("item", ["id": "#root"]), ("enumerateItems", ["container": "#root", "pageSize": 10]),
      ("currentSyncAnchor", ["container": "#working-set"]), ("item", ["id": "abc"]),
    ] as [(String, JSON)] {
      let answer = try ext.call(method, params)
      #expect(answer["error"]["code"] == -1004, "\(method): \(answer)")
    }
    #expect(!FileManager.default.fileExists(atPath: scratch.path("not-mounted")), "nothing is created in its place")
  }
}
