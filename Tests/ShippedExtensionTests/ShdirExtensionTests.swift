import Foundation
import TestExecution
import Testing

/// Extensions/folio-ext-shdir, the sh + jq extension, run by dash (Debian's /bin/sh) where it is
/// installed: a folder, read-only, ids are paths.
@Suite(.offThePool) struct ShdirExtensionTests {
  @Test func handshakeThenUnknownMethodsAndExitOnEOF() throws {
    let scratch = try Scratch()
    let ext = try ExtensionProcess.shdir(scratch, root: try scratch.folder("shown"), initialize: false)
    #expect(try ext.call("item", ["id": "#root"])["error"]["code"] == -32002)
    #expect(try ext.result("describe")["settings"].array.first?["name"] == "root")
    let initialized = try ext.initialize(root: scratch.path("shown"))
    #expect(initialized["protocol"] == 1)
    #expect(initialized["capabilities"]["identity"] == "path")
    #expect(initialized["capabilities"]["changes"]["feed"] == false)
    #expect(!initialized["capabilities"].has("write"), "read-only: no write capability")
    #expect(try ext.call("createItem", ["key": "k"])["error"]["code"] == -32601)
    #expect(try ext.call("frobnicate")["error"]["code"] == -32601)
    try ext.sendLine("garbage")
    #expect(ext.wait(60) { $0.contains { $0["error"]["code"] == -32700 } })
    #expect(try ext.result("item", ["id": "#root"])["name"] == "My store")
    #expect(try ext.call("shutdown").has("result"))
    ext.closeInput()
    #expect(ext.waitForExit(timeout: 30) == 0)
    #expect(ext.nonJSONLines.isEmpty, "\(ext.nonJSONLines)")
  }

  @Test func listsInPagesAndFetchesWithTheHash() throws {
    let scratch = try Scratch()
    let shown = try scratch.folder("shown")
    try scratch.folder("shown/many")
    for n in 0..<250 { try scratch.file("shown/many/f\(n)", Data()) }
    let bytes = Scratch.bytes(100_000)
    try scratch.file("shown/data.bin", bytes)
    try scratch.file("shown/line\nbreak ☁", Data("x".utf8))
    let ext = try ExtensionProcess.shdir(scratch, root: shown)
    let top = try ext.listAll("#root").items
    #expect(Set(top.compactMap { $0["id"].string }) == ["many", "data.bin", "line\nbreak ☁"], "\(top)")
    let listed = try ext.listAll("many", pageSize: 100)
    #expect(listed.pages == 3 && listed.items.count == 250)
    #expect(Set(listed.items.compactMap { $0["id"].string }) == Set((0..<250).map { "many/f\($0)" }))
    let garbage = try ext.call("enumerateItems", ["container": "many", "pageSize": 100, "page": "zzz"])
    #expect(garbage["error"]["code"] == -1002, "\(garbage)")
    let item = try ext.result("item", ["id": "many/f7"])
    #expect(item["parent"] == "many" && item["name"] == "f7" && item["kind"] == "file", "\(item)")
    #expect(try ext.result("item", ["id": "line\nbreak ☁"])["name"] == "line\nbreak ☁")
    #expect(try ext.call("item", ["id": "../shown"])["error"]["code"] == -1005, "no way out of the root")
    let dest = try scratch.file("dl", Data())
    let fetched = try ext.result("fetchContents", ["id": "data.bin", "dest": .string(dest)])
    #expect(try Data(contentsOf: URL(fileURLWithPath: dest)) == bytes)
    #expect(fetched["sha256"] == .string(SqliteExtensionTests.sha256(bytes)))
    #expect(fetched["item"]["size"] == .int(bytes.count))
    #expect(try ext.call("fetchContents", ["id": "many", "dest": .string(dest)]).has("error"))
    #expect(try ext.call("item", ["id": "absent"])["error"]["code"] == -1005)
  }

  @Test func missingFolderIsUnreachable() throws {
    let scratch = try Scratch()
    let ext = try ExtensionProcess.shdir(scratch, root: scratch.path("not-mounted"))
    #expect(try ext.call("item", ["id": "#root"])["error"]["code"] == -1004)
    #expect(try ext.call("enumerateItems", ["container": "#root", "pageSize": 10])["error"]["code"] == -1004)
  }
}
