import AsyncHTTPClient
import FolioProtocol
import FolioServerProvider
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI
import TestSupport

/// A real `folio serve` on loopback with two users, and providers signed in to it.
final class ServerFixture: Sendable {
  let server: ServerProcess
  static let passwords = ["ana": "ana-password", "ben": "ben-password"]

  init(quotas: [String: Int64] = [:], faults: Bool = false, tls: Bool = false) async throws {
    server = try await ServerProcess(users: Self.passwords, quotas: quotas, faults: faults, tls: tls)
  }

  /// A provider for `user`, with that user's password as its password source unless told otherwise.
  func provider(
    _ user: String = "ana", password: PasswordSource? = nil, hint: String? = nil,
    firstByteTimeout: Duration = .seconds(30), trusting certificates: URL? = nil
  ) -> FolioServerProvider {
    FolioServerProvider(
      domain: DomainIdentifier(unchecked: "work"), displayName: "Work",
      account: ServerAccount(baseURL: server.baseURL, user: user, trustedCertificates: certificates),
      password: password ?? .fixed(Self.passwords[user] ?? ""), signInHint: hint, firstByteTimeout: firstByteTimeout)
  }

  /// Installs fault rules (the server runs with `--faults`).
  func faults(_ rules: [FaultRule]) async throws {
    var request = HTTPClientRequest(url: server.baseURL.absoluteString + "/v1/_faults")
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(FaultRulesRequest(rules: rules))))
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    _ = try await response.body.collect(upTo: 1 << 20)
    guard response.status.code == 204 else { throw ServerProcess.Failure.adminFailed("faults: HTTP \(response.status.code)") }
  }
}

/// A file of `count` pseudo-random bytes in a fresh temporary folder.
func temporaryFile(_ count: Int, seed: UInt64 = 1) throws -> URL {
  var state = seed
  var bytes = [UInt8](repeating: 0, count: count)
  for i in bytes.indices {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    bytes[i] = UInt8(truncatingIfNeeded: state >> 33)
  }
  let url = temporaryURL()
  try Data(bytes).write(to: url)
  return url
}

/// The folder of this test process's scratch files, removed when the process exits (they were
/// left in /tmp, a few dozen per run, some of several MiB).
let scratchRoot: URL = {
  let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-provider-tests-\(getpid())")
  try? FileManager.default.removeItem(at: dir)
  try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  atexit { try? FileManager.default.removeItem(at: scratchRoot) }
  return dir
}()

/// A path in a fresh temporary folder; nothing is there yet.
func temporaryURL(_ name: String = "file") -> URL {
  let dir = scratchRoot.appendingPathComponent(UUID().uuidString)
  try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  return dir.appendingPathComponent(name)
}

func folderTemplate(_ name: String, in parent: ItemIdentifier = .root) -> ItemTemplate {
  ItemTemplate(parentIdentifier: parent, filename: ItemName(name), contentType: .folder)
}

func fileTemplate(_ name: String, in parent: ItemIdentifier = .root) -> ItemTemplate {
  ItemTemplate(parentIdentifier: parent, filename: ItemName(name), contentType: ContentType.forExtension(ItemName(name).pathExtension))
}

/// Every item of a folder, page by page.
func listAll(_ provider: some Provider, _ container: ItemIdentifier, pageSize: Int = 200, sort: ItemSort = .default)
  async throws -> [Item]
{
  var out: [Item] = []
  var page: Page?
  repeat {
    let r = try await provider.enumerate(
      EnumerationRequest(container: container, sort: sort, includeHidden: true, suggestedPageSize: pageSize), page: page,
      progress: { _ in })
    out += r.items
    page = r.nextPage
  } while page != nil
  return out
}

/// A counter shared with a password source.
actor Counter {
  private(set) var value = 0
  func increment() { value += 1 }
}
