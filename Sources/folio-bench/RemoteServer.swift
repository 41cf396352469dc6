import FolioServerProvider
import Foundation
import ProviderAPI

/// Where the benchmark's `folio serve` listens and how its users sign in, as the parent passes it
/// to the child processes that measure: the URL as an argument, the password in the environment
/// (not in argv, where `ps` shows it).
struct RemoteServer {
  /// The measured client.
  static let benchUser = "ana"
  /// "Another client": renames things while the measured one watches.
  static let otherUser = "ben"
  static let passwordVariable = "FOLIO_BENCH_PASSWORD"

  let baseURL: URL
  let password: String

  /// The server the parent started, as its children see it.
  static func fromChild(url: String) throws -> RemoteServer {
    guard let base = URL(string: url), base.port != nil else { throw BenchError("not a server URL: \(url)") }
    guard let password = ProcessInfo.processInfo.environment[passwordVariable], !password.isEmpty else {
      throw BenchError("\(passwordVariable) is not set")
    }
    return RemoteServer(baseURL: base, password: password)
  }

  /// A provider for `user`, as `folio` builds one for a `[[domain]] type = "folio"`.
  func provider(user: String) throws -> FolioServerProvider {
    FolioServerProvider(
      domain: try DomainIdentifier("bench-\(user)"), displayName: "bench",
      account: ServerAccount(baseURL: baseURL, user: user), password: .fixed(password))
  }
}
