import Foundation
import ProviderAPI
import TestExecution
import TestSupport
import Testing

@testable import WebDAVProvider

/// A WebDAV server that accepts connections and never answers reads as offline once the
/// location's first-byte deadline passes (small here), not after the HTTP client's 60 s read
/// timeout: the test waits for the offline state, with a bound well under those 60 s.
@Suite(.offThePool)
struct WebDAVHungServerTests {
  @Test func aServerThatNeverAnswersReadsOfflineAfterTheFirstByteDeadline() async throws {
    let silent = try SilentServer()
    defer { silent.stop() }
    let p = WebDAVProvider(
      domain: DomainIdentifier(unchecked: "hung"), url: URL(string: silent.endpoint + "/dav/")!, user: "alice",
      password: { () async throws(ProviderError) -> String? in "secret" }, firstByteTimeout: .milliseconds(500))
    let status = try await within(30) { await p.accountStatus() }
    guard case .offline = status else {
      Issue.record("a server that never answers is offline: \(status)")
      return
    }
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
