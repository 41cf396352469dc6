import Foundation
import ProviderAPI
import S3Client
import TestExecution
import TestSupport
import Testing

@testable import S3Provider

/// A store that accepts connections and never answers reads as offline once the location's
/// first-byte deadline passes (small here), not after the HTTP client's 60 s read timeout: the
/// test waits for the offline state, with a bound well under those 60 s.
@Suite(.offThePool)
struct S3HungStoreTests {
  @Test func aStoreThatNeverAnswersReadsOfflineAfterTheFirstByteDeadline() async throws {
    let silent = try SilentServer()
    defer { silent.stop() }
    let p = S3Provider(
      domain: DomainIdentifier(unchecked: "hung"),
      endpoint: try S3Endpoint(bucket: "folio-hung", region: "us-east-1", endpoint: silent.endpoint),
      credentials: S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret"),
      firstByteTimeout: .milliseconds(500))
    let status = try await within(30) { await p.accountStatus() }
    guard case .offline(let why) = status else {
      Issue.record("a store that never answers is offline: \(status)")
      return
    }
    #expect(why.contains("no answer came in time"), "\(why)")
    #expect(silent.accepted >= 1, "the connection was made: the server hung, it did not refuse")
    let listing = try await within(30) { () async -> ProviderError? in
      do {
        _ = try await p.enumerate(
          EnumerationRequest(container: .root, suggestedPageSize: 50, freshness: .current), page: nil, progress: { _ in })
        return nil
      } catch let error as ProviderError {
        return error
      } catch {
        return ProviderError(.ioError, "\(error)")
      }
    }
    #expect(listing?.code == .serverUnreachable, "\(String(describing: listing))")
  }
}
