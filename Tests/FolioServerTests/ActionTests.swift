import FolioProtocol
import Foundation
import ProviderAPI
import TestSupport
import Testing

/// Server-declared actions (lock/unlock) and decorations.
@Suite struct ActionTests {
  @Test func declarationsParseAsActivationRules() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let d = try await ana.expect(DeclarationsResponse.self, 200, "GET", "/v1/declarations")
    #expect(d.actions.map(\.id) == ["lock", "unlock"])
    for action in d.actions { _ = try ActivationRule(parsing: action.rule) }
    #expect(Set(d.decorations.map(\.id)) == ["locked", "sharedBy", "conflict"])
    #expect(d.decorations.first { $0.id == "sharedBy" }?.labelKey == "owner")
  }

  @Test func aLockedFileRefusesOthersContentUntilUnlocked() async throws {
    let server = try await ServerProcess(users: ["ana": "ana-password", "ben": "ben-password"])
    let ana = try await TestClient.signedIn(server, "ana")
    let ben = try await TestClient.signedIn(server, "ben")
    let f = try await ana.upload("doc", [1])
    #expect(try await ben.send("POST", "/v1/actions/lock", json: PerformActionRequest(items: [f.id])).status == 204)
    let locked = try await ana.item(f.id)
    #expect(locked.userInfo["locked"] == .bool(true))
    #expect(locked.userInfo["lockedBy"] == .string("ben"))
    #expect(locked.decorations.contains("locked"))
    let refused = try await ana.put(f.id, base: 1, [2])
    #expect(refused.status == 423)
    #expect(refused.errorCode == "locked")
    #expect(locked.userInfo["mayUnlock"] == .bool(true), "ana owns it")
    #expect(try await ben.item(f.id).userInfo["mayUnlock"] == .bool(true), "ben locked it")
    #expect(try await ben.put(f.id, base: 1, [3]).status == 200)
    // Nor rename, move or delete it: only its locker may.
    #expect(try await ana.patch(f.id, ModifyRequest(name: "mine now")).errorCode == "locked")
    #expect(try await ana.patch(f.id, ModifyRequest(parent: "trash")).errorCode == "locked")
    let kept = try await ana.item(f.id)
    #expect(kept.name == "doc" && kept.parent == "root")
    #expect(try await ben.patch(f.id, ModifyRequest(name: "doc v2")).status == 200)
    // Her own fields stay hers to change.
    #expect(try await ana.patch(f.id, ModifyRequest(tags: ["Red"])).status == 200)
    // Ana owns it, so she may unlock; a stranger's lock on a folder is refused.
    #expect(try await ana.send("POST", "/v1/actions/unlock", json: PerformActionRequest(items: [f.id])).status == 204)
    #expect(try await ana.item(f.id).decorations.contains("locked") == false)
    #expect(try await ana.put(f.id, base: 2, [4]).status == 200)
    let folder = try await ana.mkdir("F")
    #expect(try await ana.send("POST", "/v1/actions/lock", json: PerformActionRequest(items: [folder.id])).errorCode == "invalidArgument")
    #expect(try await ana.send("POST", "/v1/actions/explode", json: PerformActionRequest(items: [f.id])).errorCode == "invalidArgument")
  }
}
