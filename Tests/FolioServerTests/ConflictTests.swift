import FolioProtocol
import Foundation
import TestSupport
import Testing

/// A stale base revision never overwrites: both versions survive as an original and a conflict
/// copy, until somebody resolves it.
@Suite struct ConflictTests {
  /// Ana and Ben both start from revision 1; Ana saves first, then Ben.
  static func makeConflict(_ server: ServerProcess) async throws -> (TestClient, TestClient, WireItem, WireItem) {
    let ana = try await TestClient.signedIn(server, "ana")
    let ben = try await TestClient.signedIn(server, "ben")
    let original = try await ana.upload("notes.txt", Array("base".utf8))
    let first = try await ana.put(original.id, base: 1, Array("ana's edit".utf8))
    #expect(try first.decode(UploadResponse.self).contentAccepted)
    let second = try await ben.put(original.id, base: 1, Array("ben's edit".utf8))
    #expect(second.status == 200)
    let answer = try second.decode(UploadResponse.self)
    #expect(!answer.contentAccepted)
    #expect(answer.item.id == original.id)
    #expect(answer.item.version.content == 2)
    let copy = try #require(answer.conflictCopy)
    return (ana, ben, try await ana.item(original.id), copy)
  }

  static let users = ["ana": "ana-password", "ben": "ben-password"]

  @Test func staleBaseKeepsBothVersions() async throws {
    let server = try await ServerProcess(users: Self.users)
    let (ana, ben, original, copy) = try await Self.makeConflict(server)
    #expect(copy.parent == original.parent)
    #expect(copy.name.hasPrefix("notes (conflict, ben, "))
    #expect(copy.name.hasSuffix(").txt"))
    #expect(copy.owner == "ben")
    #expect(copy.userInfo["conflictOf"] == .string(original.id))
    #expect(copy.decorations.contains("conflict"))
    #expect(original.decorations.contains("conflict"))
    #expect(try await ana.content(original.id).body == Array("ana's edit".utf8))
    #expect(try await ben.content(copy.id).body == Array("ben's edit".utf8))
    // A second stale upload makes a second copy with another name.
    let again = try await ben.put(original.id, base: 1, Array("ben again".utf8)).decode(UploadResponse.self)
    let copy2 = try #require(again.conflictCopy)
    #expect(copy2.name != copy.name)
    #expect(try await ana.allChildren("root").count == 3)
  }

  @Test func resolveKeepingTheCopy() async throws {
    let server = try await ServerProcess(users: Self.users)
    let (ana, ben, original, copy) = try await Self.makeConflict(server)
    let resolved = try await ben.expect(
      WireItem.self, 200, "POST", "/v1/conflicts/\(copy.id)/resolve", json: ResolveConflictRequest(keep: .copy))
    #expect(resolved.id == original.id)
    #expect(resolved.version.content == original.version.content + 1)
    #expect(!resolved.decorations.contains("conflict"))
    #expect(try await ana.content(original.id).body == Array("ben's edit".utf8))
    // The version not kept (ana's) is not lost: the copy holds it now, in the trash.
    let trashed = try await ana.item(copy.id)
    #expect(trashed.parent == "trash")
    #expect(trashed.userInfo["conflictOf"] == nil)
    #expect(try await ana.content(copy.id).body == Array("ana's edit".utf8))
    try ContentTests.expectNoLeftovers(
      server, live: ["\(original.id).\(resolved.version.content)", "\(copy.id).\(trashed.version.content)"])
  }

  @Test func resolveKeepingTheOriginal() async throws {
    let server = try await ServerProcess(users: Self.users)
    let (ana, _, original, copy) = try await Self.makeConflict(server)
    let resolved = try await ana.expect(
      WireItem.self, 200, "POST", "/v1/conflicts/\(copy.id)/resolve", json: ResolveConflictRequest(keep: .original))
    #expect(resolved.version.content == original.version.content)
    #expect(!resolved.decorations.contains("conflict"))
    #expect(try await ana.content(original.id).body == Array("ana's edit".utf8))
    let trashed = try await ana.item(copy.id)
    #expect(trashed.parent == "trash")
    #expect(trashed.userInfo["conflictOf"] == nil)
  }

  @Test func resolveKeepingBoth() async throws {
    let server = try await ServerProcess(users: Self.users)
    let (ana, _, original, copy) = try await Self.makeConflict(server)
    let resolved = try await ana.expect(
      WireItem.self, 200, "POST", "/v1/conflicts/\(copy.id)/resolve", json: ResolveConflictRequest(keep: .both))
    #expect(!resolved.decorations.contains("conflict"))
    let kept = try await ana.item(copy.id)
    #expect(kept.parent == "root")
    #expect(!kept.decorations.contains("conflict"))
    #expect(try await ana.content(copy.id).body == Array("ben's edit".utf8))
    #expect(try await ana.content(original.id).body == Array("ana's edit".utf8))
    // Not a conflict copy any more.
    #expect(
      try await ana.send("POST", "/v1/conflicts/\(copy.id)/resolve", json: ResolveConflictRequest(keep: .copy)).errorCode
        == "invalidArgument")
  }
}
