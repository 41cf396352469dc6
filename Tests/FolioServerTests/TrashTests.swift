import FolioProtocol
import Foundation
import TestSupport
import Testing

/// Trash, restore (recreating a vanished folder), delete forever, empty.
@Suite struct TrashTests {
  @Test func trashAndRestoreWhereItWas() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let docs = try await ana.mkdir("Docs")
    let f = try await ana.upload("a.txt", [1], in: docs.id)
    let trashed = try await ana.patch(f.id, ModifyRequest(parent: "trash")).decode(WireItem.self)
    #expect(trashed.parent == "trash")
    #expect(trashed.originalParent == docs.id)
    #expect(trashed.originalPath == "/Docs/a.txt")
    #expect(trashed.trashed != nil)
    #expect(try await ana.allChildren(docs.id).isEmpty)
    #expect(try await ana.allChildren("trash").map(\.id) == [f.id])
    // The name is free again, and the trash can hold two items of one name.
    let twin = try await ana.upload("a.txt", [2], in: docs.id)
    _ = try await ana.patch(twin.id, ModifyRequest(parent: "trash"))
    #expect(try await ana.allChildren("trash").map(\.id) == [twin.id, f.id])
    // Restoring both: the second finds its name taken.
    let back = try await ana.expect(WireItem.self, 200, "POST", "/v1/items/\(f.id)/restore", json: RestoreRequest(parent: nil))
    #expect(back.parent == docs.id)
    #expect(back.trashed == nil)
    #expect(back.originalParent == nil)
    let clash = try await ana.send("POST", "/v1/items/\(twin.id)/restore", json: RestoreRequest(parent: nil))
    #expect(clash.status == 409)
    #expect(clash.existing == f.id)
    #expect(try await ana.item(twin.id).parent == "trash")
    // Elsewhere is fine.
    let elsewhere = try await ana.expect(WireItem.self, 200, "POST", "/v1/items/\(twin.id)/restore", json: RestoreRequest(parent: "root"))
    #expect(elsewhere.path == "/a.txt")
    #expect(try await ana.send("POST", "/v1/items/\(f.id)/restore", json: RestoreRequest(parent: nil)).errorCode == "invalidArgument")
  }

  @Test func restoreRecreatesTheOriginalFolderWhenItIsGone() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let a = try await ana.mkdir("A")
    let b = try await ana.mkdir("B", in: a.id)
    let f = try await ana.upload("f", [7], in: b.id)
    _ = try await ana.patch(f.id, ModifyRequest(parent: "trash"))
    #expect(try await ana.send("DELETE", "/v1/items/\(a.id)").status == 204)
    let back = try await ana.expect(WireItem.self, 200, "POST", "/v1/items/\(f.id)/restore", json: RestoreRequest(parent: nil))
    #expect(back.path == "/A/B/f")
    #expect(back.parent != b.id)
    #expect(try await ana.content(f.id).body == [7])
  }

  @Test func aTrashedFolderTakesItsContentsAlong() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let a = try await ana.mkdir("A")
    let f = try await ana.upload("f", [1], in: a.id)
    _ = try await ana.patch(a.id, ModifyRequest(parent: "trash"))
    #expect(try await ana.item(f.id).path == "/A/f")
    #expect(try await ana.send("GET", "/v1/lookup?path=%2FA%2Ff").errorCode == "noSuchItem")
    // Nothing can be put into a trashed folder.
    #expect(try await ana.uploadAnswer("g", [1], in: a.id).errorCode == "invalidArgument")
    #expect(try await ana.send("POST", "/v1/trash/empty").status == 204)
    #expect(try await ana.send("GET", "/v1/items/\(f.id)").errorCode == "noSuchItem")
    #expect(try await ana.allChildren("trash").isEmpty)
    try ContentTests.expectNoLeftovers(server, live: [])
    #expect(try await ana.send("DELETE", "/v1/items/root").errorCode == "invalidArgument")
    #expect(try await ana.send("DELETE", "/v1/items/trash").errorCode == "invalidArgument")
  }
}
