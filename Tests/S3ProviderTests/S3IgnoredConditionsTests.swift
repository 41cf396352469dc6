import Foundation
import ProviderAPI
import S3Client
import S3TestSupport
import TestExecution
import Testing

@testable import S3Provider

/// Where the probe found conditional writes ignored (`conditional_writes = "ignored"`, forced here
/// on moto, which honours them), nothing conditional is sent: the object is read just before it is
/// replaced, and a stale edit still keeps both versions.
@Suite(.offThePool)
struct S3IgnoredConditionsTests {
  func file(_ text: String) throws -> URL { try MotoBucket.textFile(text) }

  func text(_ p: S3Provider, _ path: String) async throws -> String {
    let item = try await p.item(at: ItemPath(path))
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("s3ign-get-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: url) }
    _ = try await p.fetchContents(item.identifier, version: nil, to: url, progress: { _ in })
    return try String(contentsOf: url, encoding: .utf8)
  }

  @Test(arguments: [false, true])
  func aStaleEditKeepsBothVersionsWithoutConditionalWrites(versioned: Bool) async throws {
    let bucket = try await MotoBucket.started(versioned: versioned)
    defer { bucket.stop() }
    let endpoint = try bucket.endpoint()
    let moto = bucket.moto
    let mine = S3Provider(
      domain: DomainIdentifier(unchecked: "bucket"), endpoint: endpoint, credentials: moto.credentials,
      conditionalWrites: .ignored, versioned: versioned)
    let theirs = S3Provider(
      domain: DomainIdentifier(unchecked: "bucket"), endpoint: endpoint, credentials: moto.credentials,
      conditionalWrites: .ignored, versioned: versioned)
    #expect(mine.traits.conditionalWrites == .ignored)
    let made = try await mine.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("plan.txt"), contentType: .plainText), fields: [.contents],
      contents: try file("base"), options: [])
    let theirEdit = try await theirs.modifyItem(
      ItemTemplate(made), baseVersion: made.version, changedFields: .contents, contents: try file("theirs"))
    #expect(theirEdit.uploadingError == nil)

    let stale = try await mine.modifyItem(
      ItemTemplate(made), baseVersion: made.version, changedFields: .contents, contents: try file("mine"))
    #expect(stale.uploadingError?.code == .localVersionConflictingWithServer, "\(String(describing: stale.uploadingError))")
    #expect(try await text(mine, "/plan.txt") == "theirs", "their edit is not overwritten")
    let page = try await mine.enumerate(
      EnumerationRequest(container: .root, suggestedPageSize: 50, freshness: .current), page: nil, progress: { _ in })
    let copy = try #require(page.items.first { $0.filename.lossyString.contains("conflict") }, "\(page.items.map(\.filename))")
    #expect(try await text(mine, "/" + copy.filename.lossyString) == "mine")
    // A create never replaces either: the name is read first.
    let taken = await #expect(throws: ProviderError.self) {
      _ = try await theirs.createItem(
        ItemTemplate(parentIdentifier: .root, filename: ItemName("plan.txt"), contentType: .plainText), fields: [.contents],
        contents: try file("other"), options: [])
    }
    #expect(taken?.code == .filenameCollision)
  }
}
