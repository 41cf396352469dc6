import AsyncHTTPClient
import FolioProtocol
import FolioServerProvider
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A real `folio serve` on loopback with users ana and ben.
final class RemoteServer: Sendable {
  static let passwords = ["ana": "ana-password", "ben": "ben-password"]
  static let work = DomainIdentifier(unchecked: "work")
  let server: ServerProcess

  init(quotas: [String: Int64] = [:], faults: Bool = false) async throws {
    server = try await ServerProcess(users: Self.passwords, quotas: quotas, faults: faults)
  }

  func provider(_ user: String) -> FolioServerProvider {
    FolioServerProvider(
      domain: Self.work, displayName: "Work", account: ServerAccount(baseURL: server.baseURL, user: user),
      password: .fixed(Self.passwords[user] ?? ""))
  }

  /// Installs fault rules (`--faults`); an empty list removes them.
  func faults(_ rules: [FaultRule]) async throws {
    var request = HTTPClientRequest(url: server.baseURL.absoluteString + "/v1/_faults")
    if rules.isEmpty {
      request.method = .DELETE
    } else {
      request.method = .POST
      request.headers.add(name: "Content-Type", value: "application/json")
      request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(FaultRulesRequest(rules: rules))))
    }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    _ = try await response.body.collect(upTo: 1 << 20)
    guard (200..<300).contains(response.status.code) else {
      throw ServerProcess.Failure.adminFailed("faults: HTTP \(response.status.code)")
    }
  }
}

/// One computer's Folio against the server: its own index, content store and sync engine, signed
/// in as `user`.
final class RemoteClient: Sendable {
  let dir: URL
  let provider: FolioServerProvider
  let index: WorkingSetIndex
  let engine: SyncEngine
  let domain: Domain

  /// - Parameter password: Where the provider's password comes from (default: the user's).
  init(_ server: RemoteServer, user: String, pollInterval: TimeInterval = 3600, password: PasswordSource? = nil) throws {
    dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-remote-sync-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    if let password {
      provider = FolioServerProvider(
        domain: RemoteServer.work, displayName: "Work", account: ServerAccount(baseURL: server.server.baseURL, user: user),
        password: password)
    } else {
      provider = server.provider(user)
    }
    index = try WorkingSetIndex.open(at: dir.appendingPathComponent("index.sqlite"))
    domain = Domain(identifier: RemoteServer.work, displayName: "Work", provider: provider, localRoot: nil)
    var registry = DomainRegistry(
      local: Domain(identifier: .local, displayName: "This Computer", provider: InMemoryProvider(traits: .localFilesystem), localRoot: .root))
    try registry.add(domain)
    engine = SyncEngine(
      registry: registry, index: index, contentRoot: dir.appendingPathComponent("content"), cacheBudget: 1 << 32,
      policy: RetryPolicy(base: 0.05, cap: 0.5, attemptsPerDrain: 4), pollInterval: pollInterval)
  }

  deinit { try? FileManager.default.removeItem(at: dir) }

  func root() async throws -> Item { try await provider.item(for: .root) }

  func item(_ path: String) async throws -> Item { try await provider.item(at: ItemPath(path)) }

  /// Writes a file in this client's folder.
  func file(_ name: String, _ data: Data) throws -> URL {
    let url = dir.appendingPathComponent(name)
    try data.write(to: url)
    return url
  }

  /// Opens the item as `folio open` does, writes `data` into the local copy, and returns.
  func edit(_ item: Item, _ data: Data) async throws {
    let url = try await engine.materialize(item, in: domain, forOpen: true)
    try data.write(to: url)
    _ = try await engine.noticeEdits(item, in: domain)
  }

  /// The bytes of an item as the server has them, downloaded afresh.
  func serverBytes(_ identifier: ItemIdentifier) async throws -> Data {
    let url = dir.appendingPathComponent("check-\(UUID().uuidString)")
    _ = try await provider.fetchContents(identifier, version: nil, to: url, progress: { _ in })
    defer { try? FileManager.default.removeItem(at: url) }
    return try Data(contentsOf: url)
  }

  /// Every regular file under this client's content cache (staged uploads, cached content and
  /// any temporary file left behind), as paths relative to it.
  func cacheFiles() -> [String] {
    let root = dir.appendingPathComponent("content")
    guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
    var out: [String] = []
    for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
      out.append(String(url.path.dropFirst(root.path.count)))
    }
    return out.sorted()
  }

  func children(_ parent: ItemIdentifier = .root) async throws -> [Item] {
    var out: [Item] = []
    var page: Page?
    repeat {
      let p = try await provider.enumerate(
        EnumerationRequest(container: parent, includeHidden: true, suggestedPageSize: 500), page: page, progress: { _ in })
      out += p.items
      page = p.nextPage
    } while page != nil
    return out
  }
}

/// Pseudo-random bytes from a seed (the same seed, the same bytes).
func randomData(_ count: Int, seed: UInt64) -> Data {
  var state = seed
  var bytes = [UInt8](repeating: 0, count: count)
  for i in bytes.indices {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    bytes[i] = UInt8(truncatingIfNeeded: state >> 33)
  }
  return Data(bytes)
}

func sha256(_ data: Data) throws -> String {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent("folio-hash-\(UUID().uuidString)")
  try data.write(to: url)
  defer { try? FileManager.default.removeItem(at: url) }
  return try DurableFile.digest(of: url).sha256
}

/// Waits for a sync event matching `condition`, up to `seconds`.
func waitForEvent(
  _ hub: SyncEventHub, seconds: Double = 20, _ condition: @escaping @Sendable (SyncEvent) -> Bool
) -> Task<SyncEvent?, Never> {
  let stream = hub.stream()
  return Task {
    try? await within(seconds) {
      for await e in stream where condition(e) { return e }
      throw ProviderError(.cancelled, "no event")
    }
  }
}
