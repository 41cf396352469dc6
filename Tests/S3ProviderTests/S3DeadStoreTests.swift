import Foundation
import ProviderAPI
import S3Client
import S3TestSupport
import TestExecution
import Testing

@testable import S3Provider

/// A store that stops answering mid-session (moto frozen with SIGSTOP: the port still takes
/// connections, nothing answers — a hung server or a vanished machine, not a closed port) reads
/// as unreachable, never as "no such item"; once it answers again, work resumes.
@Suite(.offThePool)
struct S3DeadStoreTests {
  @Test func aStoreThatStopsAnsweringIsUnreachableAndWorkResumesWhenItAnswers() async throws {
    let moto = try await MotoServer()
    defer {
      moto.resume()
      moto.stop()
    }
    let p = S3Provider(
      domain: DomainIdentifier(unchecked: "bucket"),
      endpoint: try S3Endpoint(bucket: moto.plainBucket, region: moto.region, endpoint: moto.endpointURL),
      credentials: moto.credentials, conditionalWrites: .honoured)
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("s3dead-\(UUID().uuidString)")
    try Data("kept".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let made = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("kept.txt"), contentType: .plainText), fields: [.contents],
      contents: file, options: [])

    moto.freeze()
    // All at once: each waits for the HTTP client's read timeout (60 s) before it can say anything.
    async let stat: ProviderError? = Self.failure { _ = try await p.item(at: ItemPath("/kept.txt")) }
    async let listing: ProviderError? = Self.failure {
      _ = try await p.enumerate(
        EnumerationRequest(container: .root, suggestedPageSize: 50, freshness: .current), page: nil, progress: { _ in })
    }
    async let status = p.accountStatus()
    let (statError, listError, accountStatus) = await (stat, listing, status)
    #expect(statError?.code == .serverUnreachable, "\(String(describing: statError))")
    #expect(listError?.code == .serverUnreachable, "\(String(describing: listError))")
    guard case .offline = accountStatus else {
      Issue.record("a store that does not answer is offline: \(accountStatus)")
      return
    }

    moto.resume()
    #expect(try await p.item(at: ItemPath("/kept.txt")).version == made.version)
    #expect(await p.accountStatus() == .online(usedBytes: 0, quotaBytes: nil))
    let page = try await p.enumerate(
      EnumerationRequest(container: .root, suggestedPageSize: 50, freshness: .current), page: nil, progress: { _ in })
    #expect(page.items.map(\.filename) == [ItemName("kept.txt")])
  }

  static func failure(_ body: () async throws -> Void) async -> ProviderError? {
    do {
      try await body()
      return nil
    } catch let error as ProviderError {
      return error
    } catch {
      return ProviderError(.ioError, "\(error)")
    }
  }
}
