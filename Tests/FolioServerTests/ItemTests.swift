import FolioProtocol
import Foundation
import TestSupport
import Testing

/// Creating, renaming, moving, copying, collisions and sharing.
@Suite struct ItemTests {
  @Test func foldersFilesAndLookup() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let root = try await ana.item("root")
    #expect(root.kind == "folder")
    #expect(root.path == "/")
    #expect(!root.name.isEmpty)
    let docs = try await ana.mkdir("Docs")
    #expect(docs.parent == "root")
    #expect(docs.path == "/Docs")
    #expect(docs.owner == "ana")
    #expect(!docs.shared)
    let file = try await ana.upload("notes.txt", Array("hello".utf8), in: docs.id)
    #expect(file.path == "/Docs/notes.txt")
    #expect(file.size == 5)
    #expect(file.sha256 == TestClient.sha256(Array("hello".utf8)))
    #expect(file.version.content == 1)
    let found = try await ana.expect(WireItem.self, 200, "GET", "/v1/lookup?path=\(TestClient.encode("/Docs/notes.txt"))")
    #expect(found.id == file.id)
    #expect(try await ana.send("GET", "/v1/lookup?path=%2FDocs%2Fnope").errorCode == "noSuchItem")
    #expect(try await ana.send("GET", "/v1/items/i999999").errorCode == "noSuchItem")
    #expect(try await ana.item(docs.id).childCount == 1)
  }

  @Test func collisionsCarryTheExistingItemAndChangeNothing() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let a = try await ana.mkdir("A")
    let b = try await ana.upload("B", [1])
    let again = try await ana.send("POST", "/v1/items", json: CreateFolderRequest(parent: "root", name: "A"))
    #expect(again.status == 409)
    #expect(again.errorCode == "filenameCollision")
    #expect(again.existing == a.id)
    let upload = try await ana.uploadAnswer("A", [2])
    #expect(upload.status == 409)
    #expect(upload.existing == a.id)
    let rename = try await ana.patch(b.id, ModifyRequest(name: "A"))
    #expect(rename.status == 409)
    #expect(rename.existing == a.id)
    #expect(try await ana.item(b.id).name == "B")
    // Moving into a folder where the name is taken, too.
    let inner = try await ana.upload("B", [3], in: a.id)
    let move = try await ana.patch(b.id, ModifyRequest(parent: a.id))
    #expect(move.existing == inner.id)
    #expect(try await ana.item(b.id).parent == "root")
    // Copy onto a taken name.
    let copy = try await ana.send("POST", "/v1/items/\(b.id)/copy", json: CopyRequest(parent: a.id, name: nil))
    #expect(copy.status == 409)
    #expect(copy.existing == inner.id)
    #expect(try await ana.children("root").total == 2)
  }

  @Test func renameMoveAndVersions() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let a = try await ana.mkdir("A")
    let b = try await ana.mkdir("B", in: a.id)
    let f = try await ana.upload("f.txt", [1, 2, 3])
    let renamed = try await ana.patch(f.id, ModifyRequest(name: "g.txt")).decode(WireItem.self)
    #expect(renamed.id == f.id)
    #expect(renamed.name == "g.txt")
    #expect(renamed.version.metadata > f.version.metadata)
    #expect(renamed.version.content == f.version.content)
    let moved = try await ana.patch(f.id, ModifyRequest(parent: b.id)).decode(WireItem.self)
    #expect(moved.path == "/A/B/g.txt")
    // A folder cannot go into itself or its descendants; root and trash never move.
    #expect(try await ana.patch(a.id, ModifyRequest(parent: b.id)).errorCode == "invalidArgument")
    #expect(try await ana.patch(a.id, ModifyRequest(parent: a.id)).errorCode == "invalidArgument")
    #expect(try await ana.patch("root", ModifyRequest(name: "x")).errorCode == "invalidArgument")
    #expect(try await ana.patch(f.id, ModifyRequest(parent: f.id)).errorCode == "invalidArgument")
    // Renaming the folder changes the path its children report.
    _ = try await ana.patch(a.id, ModifyRequest(name: "Z"))
    #expect(try await ana.item(f.id).path == "/Z/B/g.txt")
  }

  @Test func copyDuplicatesTheTreeWithItsBytes() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let a = try await ana.mkdir("A")
    let sub = try await ana.mkdir("sub", in: a.id)
    let bytes = testBytes(1000, seed: 7)
    let f = try await ana.upload("f.bin", bytes, in: sub.id)
    let copy = try await ana.expect(
      WireItem.self, 201, "POST", "/v1/items/\(a.id)/copy", json: CopyRequest(parent: "root", name: "A copy"))
    #expect(copy.id != a.id)
    #expect(copy.name == "A copy")
    let copiedSub = try await ana.allChildren(copy.id)
    #expect(copiedSub.map(\.name) == ["sub"])
    let copiedFile = try await ana.allChildren(copiedSub[0].id)
    #expect(copiedFile.count == 1)
    #expect(copiedFile[0].id != f.id)
    #expect(try await ana.content(copiedFile[0].id).body == bytes)
    // Changing the copy leaves the original alone.
    _ = try await ana.put(copiedFile[0].id, base: copiedFile[0].version.content, [9])
    #expect(try await ana.content(f.id).body == bytes)
    #expect(try await ana.send("POST", "/v1/items/\(a.id)/copy", json: CopyRequest(parent: sub.id, name: nil)).errorCode == "invalidArgument")
  }

  @Test func itemsOfOthersAreSharedWithTheirOwnerAndPersonalFieldsArePerUser() async throws {
    let server = try await ServerProcess(users: ["ana": "ana-password", "ben": "ben-password"])
    let ana = try await TestClient.signedIn(server, "ana")
    let ben = try await TestClient.signedIn(server, "ben")
    let f = try await ana.upload("plan.txt", [1])
    let seen = try await ben.item(f.id)
    #expect(seen.shared)
    #expect(seen.owner == "ana")
    #expect(seen.decorations.contains("sharedBy"))
    #expect(seen.userInfo["owner"] == .string("ana"))
    #expect(try await ana.item(f.id).shared == false)
    let tagged = try await ben.patch(f.id, ModifyRequest(tags: ["Red", "Work", "Red"], favoriteRank: 5, lastUsed: 1000))
      .decode(WireItem.self)
    #expect(tagged.tags == ["Red", "Work"])
    #expect(tagged.favoriteRank == 5)
    #expect(tagged.lastUsed == 1000)
    let anaView = try await ana.item(f.id)
    #expect(anaView.tags.isEmpty)
    #expect(anaView.favoriteRank == nil)
    #expect(anaView.lastUsed == nil)
    let unfavorite = try await ben.patch(f.id, ModifyRequest(favoriteRank: 0)).decode(WireItem.self)
    #expect(unfavorite.favoriteRank == nil)
    #expect(unfavorite.tags == ["Red", "Work"])
  }

  @Test func badBodiesAndParametersAreInvalidArguments() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    #expect(try await ana.send("POST", "/v1/items", body: Array("{nope".utf8)).errorCode == "invalidArgument")
    #expect(try await ana.send("GET", "/v1/items/root/children?sort=color").errorCode == "invalidArgument")
    #expect(try await ana.send("GET", "/v1/items/root/children?limit=0").errorCode == "invalidArgument")
    #expect(try await ana.send("GET", "/v1/items/root/children?limit=1001").errorCode == "invalidArgument")
    let unknown = try await ana.send("GET", "/v1/nothing")
    #expect(unknown.status == 404)
    #expect(unknown.header("X-Folio-Server") == "1")
    // Uploads need a length and a hash.
    let noHash = try await ana.send("POST", "/v1/uploads?parent=root&name=x", body: [1, 2])
    #expect(noHash.errorCode == "invalidArgument")
    let f = try await ana.upload("f", [1])
    #expect(try await ana.send("POST", "/v1/items", json: CreateFolderRequest(parent: f.id, name: "x")).errorCode == "invalidArgument")
  }
}
