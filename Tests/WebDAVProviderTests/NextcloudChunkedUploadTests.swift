import Crypto
import Foundation
import ProviderAPI
import Testing
import WebDAVClient
import WebDAVTestSupport

@testable import WebDAVProvider

/// Big files to Nextcloud in chunks (chunked upload v2), against the double written from the
/// developer manual: the exact bytes arrive, an upload cut off is resumed without sending again
/// the chunks the server holds, and a base that went stale before the assembling MOVE keeps both
/// versions. Chunks are 64 KiB here (the double's 5 MB minimum lowered), files a few of them.
@Suite struct NextcloudChunkedUploadTests {
  static let chunk = 64 << 10

  func provider(_ nc: NextcloudDouble) -> WebDAVProvider {
    nc.chunkMinimumBytes = Self.chunk
    let secret = nc.password
    return WebDAVProvider(
      domain: DomainIdentifier(unchecked: "cloud"), url: nc.filesURL, user: nc.user,
      password: { () async throws(ProviderError) -> String? in secret }, conditionalWrites: .honoured, replacesInPlace: false,
      dialect: .nextcloud, chunking: NextcloudChunking(threshold: Int64(Self.chunk), chunkSize: Int64(Self.chunk)))
  }

  /// `count` bytes that differ from chunk to chunk, in a file.
  func payload(_ count: Int, seed: UInt8) throws -> (URL, [UInt8]) {
    let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 16) ^ seed }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("nc-chunks-\(UUID().uuidString)")
    try Data(bytes).write(to: url)
    return (url, bytes)
  }

  func sha(_ bytes: [UInt8]?) -> String? { bytes.map { SHA256.hash(data: $0).map { String(format: "%02x", $0) }.joined() } }

  @Test func aBigFileGoesUpInChunksAndArrivesWithItsExactBytes() async throws {
    let nc = try NextcloudDouble()
    defer { nc.stop() }
    let p = provider(nc)
    let (url, bytes) = try payload(5 * Self.chunk - 1000, seed: 7)
    defer { try? FileManager.default.removeItem(at: url) }
    let made = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("big.bin"), contentType: .data), fields: [.contents],
      contents: url, options: [])
    #expect(made.documentSize == Int64(bytes.count))
    #expect(nc.chunkPuts == [1, 2, 3, 4, 5])
    #expect(sha(nc.bytes("big.bin")) == sha(bytes))
    #expect(nc.uploadFolderNames.isEmpty, "the upload folder goes with the assembly")
    // Back down: the same SHA-256.
    let back = FileManager.default.temporaryDirectory.appendingPathComponent("nc-back-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: back) }
    _ = try await p.fetchContents(made.identifier, version: nil, to: back) { _ in }
    #expect(sha(Array(try Data(contentsOf: back))) == sha(bytes))
    // At or below the threshold: one PUT, no chunk.
    let (small, _) = try payload(Self.chunk, seed: 1)
    defer { try? FileManager.default.removeItem(at: small) }
    _ = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("small.bin"), contentType: .data), fields: [.contents],
      contents: small, options: [])
    #expect(nc.chunkPuts.count == 5)
  }

  /// The connection is lost during chunk 3: the next attempt of the same journaled upload (its
  /// token) lists the upload folder and sends chunks 3 to 5 only.
  @Test func anUploadCutOffIsResumedWithoutSendingTheChunksTheServerHolds() async throws {
    let nc = try NextcloudDouble()
    defer { nc.stop() }
    let p = provider(nc)
    let (url, bytes) = try payload(5 * Self.chunk - 1000, seed: 9)
    defer { try? FileManager.default.removeItem(at: url) }
    var template = ItemTemplate(parentIdentifier: .root, filename: ItemName("big.bin"), contentType: .data)
    template.uploadToken = "0123456789abcdef"
    nc.failNextPut(ofChunk: 3)
    await #expect(throws: ProviderError.self) {
      _ = try await p.createItem(template, fields: [.contents], contents: url, options: [])
    }
    #expect(nc.chunkPuts == [1, 2])
    #expect(nc.bytes("big.bin") == nil)
    #expect(nc.uploadFolderNames == ["folio-0123456789abcdef"], "kept for the next attempt")
    _ = try await p.createItem(template, fields: [.contents], contents: url, options: [])
    #expect(nc.chunkPuts == [1, 2, 3, 4, 5], "chunks 1 and 2 were not sent again")
    #expect(sha(nc.bytes("big.bin")) == sha(bytes))
    #expect(nc.uploadFolderNames.isEmpty)
  }

  /// Another client writes the file after the chunks went up and before the assembling MOVE:
  /// the MOVE's `If` on the destination refuses it, the upload is given up, and both versions
  /// are kept (theirs under the name, ours beside it under a conflict name).
  @Test func aBaseThatWentStaleBeforeTheAssemblyKeepsBothVersions() async throws {
    let nc = try NextcloudDouble()
    defer { nc.stop() }
    let p = provider(nc)
    nc.put("doc.bin", "the base")
    let base = try await p.item(at: ItemPath("/doc.bin"))
    let (url, bytes) = try payload(3 * Self.chunk, seed: 3)
    defer { try? FileManager.default.removeItem(at: url) }
    nc.writeBeforeNextAssembly("doc.bin", "theirs, written during our upload")
    let answered = try await p.modifyItem(ItemTemplate(base), baseVersion: base.version, changedFields: .contents, contents: url)
    #expect(answered.uploadingError?.code == .localVersionConflictingWithServer, "\(String(describing: answered.uploadingError))")
    #expect(nc.contents("doc.bin") == "theirs, written during our upload")
    let top = try await p.enumerate(EnumerationRequest(container: .root, suggestedPageSize: 100, freshness: .current), page: nil) { _ in }
    let copy = try #require(top.items.map(\.filename.lossyString).first { $0.hasPrefix("doc (conflict") }, "\(top.items)")
    #expect(sha(nc.bytes(copy)) == sha(bytes))
    #expect(nc.uploadFolderNames.isEmpty, "the refused upload was given up, the copy's assembled")
  }
}
