import Foundation
import Testing

@testable import FolioProtocol

/// The wire bodies decode what docs/PROTOCOL.md shows, and encode back to the same values.
struct WireCodingTests {
  @Test func theProtocolDocumentsItemDecodes() throws {
    let json = """
      {"id":"i42","parent":"root","name":"notes.txt","kind":"file","path":"/notes.txt",
       "size":12,"created":1763800000.5,"modified":1763800000.5,
       "version":{"content":3,"metadata":5},"sha256":"ab",
       "tags":["Red"],"favoriteRank":null,"lastUsed":1763800001.0,
       "owner":"ana","mostRecentEditor":"ben","shared":true,
       "trashed":null,"originalParent":null,"originalPath":null,
       "userInfo":{"locked":true,"lockedBy":"ben","n":2},"decorations":["locked","sharedBy"]}
      """
    let item = try JSONDecoder().decode(WireItem.self, from: Data(json.utf8))
    #expect(item.version == WireVersion(content: 3, metadata: 5))
    #expect(item.userInfo["locked"] == .bool(true))
    #expect(item.userInfo["lockedBy"] == .string("ben"))
    #expect(item.userInfo["n"] == .number(2))
    #expect(item.favoriteRank == nil && item.shared && item.owner == "ana")
    let again = try JSONDecoder().decode(WireItem.self, from: JSONEncoder().encode(item))
    #expect(again == item)
  }

  @Test func everyErrorCodeHasAnHTTPStatusThatIsAnError() {
    for code in WireErrorCode.allCases {
      #expect((400...599).contains(code.httpStatus), "\(code)")
    }
    #expect(WireErrorCode.insufficientQuota.httpStatus == 507)
    #expect(WireErrorCode.notAuthenticated.httpStatus == 401)
  }

  @Test func anErrorBodyKeepsTheExistingItem() throws {
    let body = WireErrorBody(code: "filenameCollision", message: "taken", existing: "i7")
    let back = try JSONDecoder().decode(WireErrorBody.self, from: JSONEncoder().encode(body))
    #expect(back.error.existing == "i7" && back.error.code == "filenameCollision")
  }
}
