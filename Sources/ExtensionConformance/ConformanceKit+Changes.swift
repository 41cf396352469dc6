import Foundation

/// Group 5: the change feed, when the extension declares one.
extension ConformanceKit {
  func runChanges() {
    var declared = true
    check("anchor-stable-while-idle") {
      let s = try session()
      guard caps.feed else {
        declared = false
        throw CheckSkip("not declared (changes.feed false)")
      }
      let a0 = try anchor(s)
      let a1 = try anchor(s)
      try expect(a0 == a1, "the anchor moved from \(a0) to \(a1) with nothing changed")
      let (updated, deleted, _) = try changes(s, since: a0)
      try expect(updated.isEmpty && deleted.isEmpty, "changes since an idle anchor: \(updated.count) updated, \(deleted.count) deleted")
    }
    guard declared else {
      for name in ["creates-edits-deletes-since-an-anchor", "more-coming-loop-ends", "garbage-anchor-is-1002"] {
        skip(name, "not declared (changes.feed false)")
      }
      return
    }
    var loopEnded: Bool?
    check("creates-edits-deletes-since-an-anchor") {
      let s = try session()
      guard caps.create, caps.delete else { throw CheckSkip("needs write.create and write.delete (not declared)") }
      let folder = try create(s, parent: try scratch(s), name: "changes", bytes: nil)
      let doomed = try create(s, parent: folder.id, name: "doomed.txt", bytes: Array("gone soon".utf8))
      let doomedFolder = try create(s, parent: folder.id, name: "doomed folder", bytes: nil)
      let inner = try create(s, parent: doomedFolder.id, name: "inner.txt", bytes: Array("inner".utf8))
      let edited = try create(s, parent: folder.id, name: "edited.txt", bytes: Array("one".utf8))
      let a0 = try anchor(s)
      let created = try create(s, parent: folder.id, name: "created.txt", bytes: Array("new".utf8))
      var expectedEdit: String?
      if caps.modify.contains("name") {
        let r = try expectResult(
          s.call(
            "modifyItem",
            [
              "template": ["id": .string(edited.id), "name": "renamed.txt", "parent": .string(folder.id)],
              "baseVersion": ["content": .string(edited.content), "metadata": .string(edited.metadata)], "fields": ["name"],
            ]), "modifyItem (rename)")
        expectedEdit = try parseItem(r["item"], "modifyItem").id
      }
      _ = try expectResult(s.call("deleteItem", ["id": .string(doomed.id), "recursive": false]), "deleteItem doomed.txt")
      _ = try expectResult(s.call("deleteItem", ["id": .string(doomedFolder.id), "recursive": true]), "deleteItem doomed folder")
      let (updated, deleted, ended) = try changes(s, since: a0)
      loopEnded = ended
      let updatedIDs = Set(updated.map(\.id))
      try expect(updatedIDs.contains(created.id), "the created item \(created.id) is not among the changes since \(a0)")
      if let expectedEdit {
        try expect(updatedIDs.contains(expectedEdit), "the renamed item \(expectedEdit) is not among the changes")
        if let renamed = updated.last(where: { $0.id == expectedEdit }) {
          try expect(renamed.name == "renamed.txt", "the renamed item is reported with the name \(renamed.name)")
        }
      }
      for (what, id) in [("deleted file", doomed.id), ("deleted folder", doomedFolder.id), ("deleted folder's child", inner.id)] {
        if caps.pathIdentity && what == "deleted folder's child" { continue }
        try expect(deleted.contains(id), "no tombstone for the \(what) \(id)")
      }
    }
    check("more-coming-loop-ends") {
      guard let loopEnded else { throw CheckSkip("the changes check did not run") }
      try expect(loopEnded, "moreComing stayed true for 1000 calls")
    }
    check("garbage-anchor-is-1002") {
      let s = try session()
      try expectError(
        s.call("enumerateChanges", ["container": "#working-set", "anchor": "folio-kit-garbage-anchor"]), [-1002],
        "enumerateChanges from an anchor never given")
    }
  }

  func anchor(_ s: ExtensionSession) throws -> String {
    let r = try expectResult(s.call("currentSyncAnchor", ["container": "#working-set"]), "currentSyncAnchor")
    guard let a = r["anchor"]?.string else { throw CheckFailure("currentSyncAnchor: no anchor string") }
    return a
  }

  /// Reads changes from `anchor` while `moreComing` (at most 1000 calls).
  func changes(_ s: ExtensionSession, since anchor: String) throws -> (updated: [WireItem], deleted: Set<String>, ended: Bool) {
    var current = anchor
    var updated: [WireItem] = []
    var deleted = Set<String>()
    for _ in 0..<1000 {
      let r = try expectResult(
        s.call("enumerateChanges", ["container": "#working-set", "anchor": .string(current)]), "enumerateChanges")
      for v in r["updated"]?.array ?? [] { updated.append(try parseItem(v, "enumerateChanges")) }
      for v in r["deleted"]?.array ?? [] { if let id = v.string { deleted.insert(id) } }
      guard let next = r["anchor"]?.string else { throw CheckFailure("enumerateChanges: no anchor in the answer") }
      try expect(next.utf8.count <= 500, "an anchor of \(next.utf8.count) bytes (at most 500)")
      current = next
      if r["moreComing"]?.bool != true { return (updated, deleted, true) }
    }
    return (updated, deleted, false)
  }
}
