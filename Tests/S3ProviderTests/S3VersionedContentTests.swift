import Foundation
import ProviderAPI
import S3Client
import S3TestSupport
import TestExecution
import Testing

@testable import S3Provider

/// On a versioned bucket the version id is part of a file's content version: a rewrite of the same
/// bytes (same ETag) is a new version, and the version a listing gives is the one HEAD and the
/// upload give, so nothing that compares versions sees a change that did not happen.
@Suite(.offThePool)
struct S3VersionedContentTests {
  func file(_ text: String) throws -> URL { try MotoBucket.textFile(text) }

  func listed(_ p: S3Provider, _ name: String) async throws -> Item {
    let page = try await p.enumerate(
      EnumerationRequest(container: .root, suggestedPageSize: 100, freshness: .current), page: nil, progress: { _ in })
    return try #require(page.items.first { $0.filename == ItemName(name) })
  }

  @Test func theVersionIDIsPartOfTheContentVersion() async throws {
    let bucket = try await MotoBucket.started(versioned: true)
    defer { bucket.stop() }
    let p = S3Provider(
      domain: DomainIdentifier(unchecked: "bucket"),
      endpoint: try bucket.endpoint(), credentials: bucket.moto.credentials, conditionalWrites: .honoured, versioned: true)
    let made = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("a.txt"), contentType: .plainText), fields: [.contents],
      contents: try file("same"), options: [])
    let raw = try bucket.client()
    let first = try await raw.headObject(Array("a.txt".utf8))
    let versionID = try #require(first.versionID)
    #expect(String(decoding: made.version.content, as: UTF8.self) == "\(first.etag) \(versionID)")
    #expect(try await p.item(at: ItemPath("/a.txt")).version == made.version, "HEAD gives the upload's version")
    #expect(try await listed(p, "a.txt").version == made.version, "a listing gives the upload's version")

    // Another client writes the same bytes again: same ETag, a new version.
    let again = try file("same")
    let (size, sha) = try S3Upload.sha256(of: again.path)
    let rewritten = try await raw.putObject(Array("a.txt".utf8), fromFile: again.path, size: size, sha256: sha)
    #expect(rewritten.etag == first.etag && rewritten.versionID != versionID)
    let now = try await p.item(at: ItemPath("/a.txt"))
    #expect(now.version != made.version, "the rewrite is seen")
    #expect(try await listed(p, "a.txt").version == now.version)

    // Conditions stay on the ETag: an edit based on the listing's version goes in as is...
    let edited = try await p.modifyItem(
      ItemTemplate(now), baseVersion: now.version, changedFields: .contents, contents: try file("mine"))
    #expect(edited.uploadingError == nil)
    #expect(try await listed(p, "a.txt").version == edited.version)
    // ...and one based on a version the store has moved past keeps both.
    let stale = try await p.modifyItem(
      ItemTemplate(now), baseVersion: now.version, changedFields: .contents, contents: try file("late"))
    #expect(stale.uploadingError?.code == .localVersionConflictingWithServer, "\(String(describing: stale.uploadingError))")
  }

  @Test func aLongVersionIDStillFitsAndStillChangesTheVersion() {
    let etag = "\"0123456789abcdef0123456789abcdef-12\""
    let a = S3ContentVersion.make(etag: etag, versionID: String(repeating: "a", count: 500))
    let b = S3ContentVersion.make(etag: etag, versionID: String(repeating: "a", count: 499) + "b")
    #expect(a != b && a.content.count <= ItemVersion.maxComponentSize)
    #expect(S3ContentVersion.etag(a) == etag && S3ContentVersion.etag(b) == etag)
    #expect(S3ContentVersion.make(etag: etag, versionID: "null") == S3ContentVersion.make(etag: etag, versionID: nil))
  }
}
