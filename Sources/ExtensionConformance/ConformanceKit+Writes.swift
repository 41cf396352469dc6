import Foundation

/// Group 7: creates, replays, collisions, modifies, stale bases and deletes.
extension ConformanceKit {
  func runWrites() {
    guard caps.create || initializeResult == nil else {
      for name in [
        "first-call-after-initialize-is-an-upload", "create-and-replay-with-the-same-key", "name-collision-is-1001-with-existing",
        "rename-keeps-id-and-bumps-metadata", "content-edit-bumps-content-version", "stale-base-never-loses-bytes",
        "delete-unknown-id-succeeds", "delete-non-empty-folder-is-1007",
      ] { skip(name, "not declared (write.create)") }
      return
    }
    var first: (item: WireItem, key: String, bytes: [UInt8])?
    check("first-call-after-initialize-is-an-upload") {
      let folder = try scratch(try session())
      let s = try freshSession()
      guard caps.create else { throw CheckSkip("not declared (write.create)") }
      let bytes = bytes(70_000, seed: 7)
      let key = UUID().uuidString.lowercased()
      let made = try create(s, parent: folder, name: "first upload.txt", bytes: bytes, key: key)
      try expect(made.parent == folder, "created in \(made.parent), asked for \(folder)")
      try expect(made.kind == "file", "created a \(made.kind)")
      first = (made, key, bytes)
    }
    check("create-and-replay-with-the-same-key") {
      guard let first else { throw CheckSkip("the first upload failed") }
      let s = try session()
      let again = try create(s, parent: first.item.parent, name: "first upload.txt", bytes: first.bytes, key: first.key)
      try expect(again.id == first.item.id, "a replay of key \(first.key) made \(again.id), the first attempt made \(first.item.id)")
      let named = try enumerateAll(s, first.item.parent).items.filter { $0.name == "first upload.txt" }
      try expect(named.count == 1, "\(named.count) items named 'first upload.txt' after a replay")
      let got = try fetch(s, first.item.id)
      try expect(got.bytes == first.bytes, "the created file's bytes differ from the upload")
    }
    check("name-collision-is-1001-with-existing") {
      guard let first else { throw CheckSkip("the first upload failed") }
      let s = try session()
      let id = sendCreate(s, parent: first.item.parent, name: Array("first upload.txt".utf8), contents: try stage([1, 2, 3]))
      let data = try expectError(s.wait(id, timeout: 30), [-1001], "createItem of a name already taken")
      try expect(data?["existing"]?.string == first.item.id, "-1001 without data.existing = \(first.item.id): \(data?.compact ?? "no data")")
    }
    check("rename-keeps-id-and-bumps-metadata") {
      guard caps.modify.contains("name") else { throw CheckSkip("not declared (write.modify name)") }
      let s = try session()
      let made = try create(s, parent: try scratch(s), name: "before rename.txt", bytes: Array("rename me".utf8))
      let r = try expectResult(
        s.call(
          "modifyItem",
          [
            "template": ["id": .string(made.id), "name": "after rename.txt", "parent": .string(made.parent)],
            "baseVersion": version(made), "fields": ["name"],
          ]), "modifyItem (rename)")
      let renamed = try parseItem(r["item"], "modifyItem")
      try expect(renamed.name == "after rename.txt", "renamed to \(renamed.name)")
      if !caps.pathIdentity { try expect(renamed.id == made.id, "a rename changed the id from \(made.id) to \(renamed.id) (identity stable)") }
      try expect(renamed.metadata != made.metadata, "a rename left version.metadata at \(made.metadata)")
      try expect(renamed.content == made.content, "a rename changed version.content")
    }
    check("content-edit-bumps-content-version") {
      guard caps.modify.contains("contents") else { throw CheckSkip("not declared (write.modify contents)") }
      let s = try session()
      let made = try create(s, parent: try scratch(s), name: "edit me.txt", bytes: Array("version one".utf8))
      let edited = try modifyContents(s, made, base: made, Array("version two, longer".utf8))
      guard let edited = edited.result.flatMap({ try? parseItem($0["item"], "modifyItem") }) else {
        throw CheckFailure("modifyItem (contents): expected a result")
      }
      try expect(edited.id == made.id, "a content edit changed the id")
      try expect(edited.content != made.content, "a content edit left version.content at \(made.content)")
      try expect(try fetch(s, made.id).bytes == Array("version two, longer".utf8), "a fetch after the edit gives other bytes")
    }
    check("stale-base-never-loses-bytes") {
      guard caps.modify.contains("contents") else { throw CheckSkip("not declared (write.modify contents)") }
      let s = try session()
      let folder = try create(s, parent: try scratch(s), name: "stale", bytes: nil)
      let original = try create(s, parent: folder.id, name: "shared.txt", bytes: Array("original".utf8))
      let theirs = Array("their edit, made elsewhere".utf8)
      let mine = Array("my edit, from a stale base".utf8)
      _ = try expectResult(try modifyContents(s, original, base: original, theirs), "modifyItem (their edit)")
      let reply = try modifyContents(s, original, base: original, mine)
      var hashes = Set<String>()
      for file in try enumerateAll(s, folder.id).items where file.kind == "file" {
        hashes.insert(Self.sha256(try fetch(s, file.id).bytes))
      }
      let lost = [("their edit", theirs), ("my edit", mine)].filter { !hashes.contains(Self.sha256($0.1)) }.map(\.0)
      switch reply {
      case .error(-2015, _, let data):
        guard let existing = data?["existing"]?.string else { throw CheckFailure("-2015 without data.existing") }
        _ = try item(s, existing)
        try expect(lost.isEmpty, "-2015, but the bytes of \(lost.joined(separator: " and ")) are in no file of the folder")
      case .result:
        // A merge is allowed; what is not is the stale upload silently replacing the newer bytes.
        let now = try fetch(s, original.id).bytes
        try expect(!(now == mine && lost.contains("their edit")), "a stale base overwrote the newer content: their edit is lost")
      default:
        throw CheckFailure("modifyItem from a stale base: expected -2015 or a merged item, got \(reply.summary)")
      }
    }
    check("delete-unknown-id-succeeds") {
      guard caps.delete else { throw CheckSkip("not declared (write.delete)") }
      let s = try session()
      _ = try expectResult(s.call("deleteItem", ["id": "folio-kit-no-such-item-7f3a", "recursive": false]), "deleteItem of an unknown id")
    }
    check("delete-non-empty-folder-is-1007") {
      guard caps.delete else { throw CheckSkip("not declared (write.delete)") }
      let s = try session()
      let folder = try create(s, parent: try scratch(s), name: "full folder", bytes: nil)
      _ = try create(s, parent: folder.id, name: "inside.txt", bytes: Array("x".utf8))
      try expectError(
        s.call("deleteItem", ["id": .string(folder.id), "baseVersion": version(folder), "recursive": false]), [-1007],
        "deleteItem of a non-empty folder without recursive")
      _ = try item(s, folder.id)
    }
  }

  func version(_ i: WireItem) -> JSONValue { ["content": .string(i.content), "metadata": .string(i.metadata)] }

  func modifyContents(_ s: ExtensionSession, _ target: WireItem, base: WireItem, _ bytes: [UInt8]) throws -> Reply {
    let path = try stage(bytes)
    let id = s.send(
      "modifyItem",
      [
        "template": ["id": .string(target.id)], "baseVersion": version(base), "fields": ["contents"],
        "contents": .string(path),
      ])
    return s.wait(id, timeout: 60, progressExtends: true)
  }
}
