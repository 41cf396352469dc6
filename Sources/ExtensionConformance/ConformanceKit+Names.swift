import Foundation

/// Groups 8 and 9: hostile names, and an extension that cannot reach its storage.
extension ConformanceKit {
  func runNames() {
    let long = Array(repeating: UInt8(ascii: "n"), count: 251) + Array(".txt".utf8)
    let cases: [(String, [UInt8], Bool)] = [
      ("space", Array("two words.txt".utf8), false),
      ("newline", Array("line\nbreak.txt".utf8), false),
      ("emoji", Array("party 🎉👩‍💻.txt".utf8), false),
      ("exactly-255-bytes", long, false),
      ("non-utf8-bytes", [0x6C, 0x61, 0x74, 0x69, 0x6E, 0x31, 0xE9, 0xFF, 0x2E, 0x74, 0x78, 0x74], true),
    ]
    for (label, name, needsByteNames) in cases {
      check("round-trip-" + label) {
        let s = try session()
        guard caps.create else { throw CheckSkip("not declared (write.create); names are checked in listings (items)") }
        if needsByteNames && !caps.byteNames { throw CheckSkip("not declared (byteNames)") }
        let folder = try scratch(s)
        let made = try create(s, parent: folder, nameBytes: name, bytes: Array("hostile".utf8))
        try expect(made.nameBytes == name, "created as \(made.name.debugDescription)")
        let again = try item(s, made.id)
        try expect(again.nameBytes == name, "item \(made.id) is named \(again.name.debugDescription)")
        let listed = try enumerateAll(s, folder).items.filter { $0.nameBytes == name }
        try expect(listed.count == 1, "listed \(listed.count) times under its name")
        try expect(try fetch(s, made.id).bytes == Array("hostile".utf8), "the content does not round-trip")
      }
    }
    check("slash-in-a-name-refused") {
      let s = try session()
      guard caps.create else { throw CheckSkip("not declared (write.create)") }
      let folder = try scratch(s)
      let id = sendCreate(s, parent: folder, name: Array("a/b".utf8), contents: try stage([0x78]))
      try expectError(s.wait(id, timeout: 30), [], "createItem named a/b")
    }
  }

  func runUnavailable() {
    let names = ["initialize", "item-root", "item-unknown-id", "enumerate-root", "sync-anchor", "fetch", "create", "delete"]
    guard let unavailable = options.unavailable else {
      for name in names { skip(name, "no --unavailable settings given") }
      return
    }
    var config = options.config
    for (k, v) in unavailable { config[k] = v }
    var s: ExtensionSession?
    let offline: Set<Int> = [-1004, -1000]
    check("initialize") {
      let session = try start()
      s = session
      let reply = session.call("initialize", initializeParams(config: config), timeout: 10)
      if let result = reply.result {
        learn(result)
      } else {
        try expectError(reply, offline, "initialize while unavailable")
      }
    }
    func call(_ name: String, _ needed: Bool, _ why: String, _ method: String, _ params: JSONValue) {
      check(name) {
        guard let s, s.process.exit == nil else { throw CheckSkip("the extension is not running") }
        guard needed else { throw CheckSkip(why) }
        let reply = s.call(method, params)
        try expect(reply.errorCode != -1005, "\(method): -1005 (noSuchItem) while unavailable: the host would delete what it knows")
        try expectError(reply, offline, "\(method) while unavailable")
      }
    }
    call("item-root", true, "", "item", ["id": "#root"])
    call("item-unknown-id", true, "", "item", ["id": "folio-kit-no-such-item-7f3a"])
    call("enumerate-root", true, "", "enumerateItems", ["container": "#root", "pageSize": 100, "includeHidden": true])
    call("sync-anchor", caps.feed, "not declared (changes.feed false)", "currentSyncAnchor", ["container": "#working-set"])
    let dest = (try? downloadDestination()) ?? stagingDir + "/dl-unavailable"
    call("fetch", true, "", "fetchContents", ["id": "folio-kit-no-such-item-7f3a", "dest": .string(dest)])
    let upload = (try? stage([0x78])) ?? ""
    call(
      "create", caps.create, "not declared (write.create)", "createItem",
      [
        "key": .string(UUID().uuidString.lowercased()), "template": ["parent": "#root", "name": "folio-kit-offline.txt", "kind": "file"],
        "fields": ["name", "parent", "contents"], "contents": .string(upload), "options": ["mayAlreadyExist": false],
      ])
    call("delete", caps.delete, "not declared (write.delete)", "deleteItem", ["id": "folio-kit-no-such-item-7f3a", "recursive": false])
    s?.shutdown()
  }
}
