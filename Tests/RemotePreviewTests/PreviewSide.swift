import Foundation
import ProviderAPI
import ProviderCore
import Testing
import TestSupport
import WorkingSetIndex

/// This computer's side of a remote preview: an index and a content store (where a download would
/// be recorded and kept), and the scratch folder the reader writes its temporaries in — what a
/// test looks at to say that the item is still not downloaded.
final class PreviewSide: Sendable {
  let dir: URL
  let index: WorkingSetIndex
  let store: ContentStore

  init() throws {
    dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-remote-preview-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    index = try WorkingSetIndex.open(at: dir.appendingPathComponent("index.sqlite"))
    store = ContentStore(root: dir.appendingPathComponent("content"), index: index)
  }

  deinit { try? FileManager.default.removeItem(at: dir) }

  var scratch: URL { dir.appendingPathComponent("scratch", isDirectory: true) }

  /// The domain a provider serves, as the app registers it.
  func domain(_ provider: any Provider, _ identifier: DomainIdentifier) -> Domain {
    Domain(identifier: identifier, displayName: identifier.rawValue, provider: provider, localRoot: nil)
  }

  /// The head of `item`, as the preview pane reads it.
  func head(of item: Item, in domain: Domain) async throws -> PreviewReader.Head {
    try await PreviewReader.head(of: item, in: domain, store: store, scratch: scratch)
  }

  /// Every file (not folder) under the scratch folder and the content store: none, for an item read in part.
  func leftovers() -> [String] {
    var out: [String] = []
    for root in [scratch, dir.appendingPathComponent("content")] {
      guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) else { continue }
      for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) != true {
        out.append(url.path)
      }
    }
    return out
  }

  /// What a head of a file that is not downloaded must be: its first 64 KiB exactly, its size,
  /// from the network, no local file; and afterwards the item is still not downloaded — no
  /// materialized content in the index or the store, no temporary left.
  func expectRemoteHead(
    _ head: PreviewReader.Head, of data: [UInt8], item: Item, in domain: Domain,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    #expect(head.bytes.count == PreviewReader.headLimit, sourceLocation: sourceLocation)
    #expect(
      head.bytes == Array(data.prefix(PreviewReader.headLimit)), "the first 64 KiB, byte for byte",
      sourceLocation: sourceLocation)
    #expect(head.totalSize == Int64(data.count), sourceLocation: sourceLocation)
    #expect(head.isRemote && head.localFile == nil, sourceLocation: sourceLocation)
    #expect(try index.content(domain: domain.identifier, identifier: item.identifier) == nil, sourceLocation: sourceLocation)
    #expect(try store.localFile(domain: domain.identifier, identifier: item.identifier) == nil, sourceLocation: sourceLocation)
    #expect(leftovers().isEmpty, "\(leftovers())", sourceLocation: sourceLocation)
  }
}

/// Pseudo-random bytes from a seed (the same seed, the same bytes); incompressible.
func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
  var state = seed
  var bytes = [UInt8](repeating: 0, count: count)
  for i in bytes.indices {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    bytes[i] = UInt8(truncatingIfNeeded: state >> 33)
  }
  return bytes
}

/// A file with `bytes` in a fresh temporary folder (removed with `side`).
func localFile(_ bytes: [UInt8], in side: PreviewSide, name: String = UUID().uuidString) throws -> URL {
  let url = side.dir.appendingPathComponent("upload-" + name)
  try Data(bytes).write(to: url)
  return url
}

/// The ranged GETs a relay saw (the Range header of each, nil for none) among `requests`.
func gets(_ requests: [CountingProxy.Request], where matches: (String) -> Bool = { _ in true }) -> [String?] {
  requests.filter { $0.method == "GET" && matches($0.target) }.map { $0.headers["range"] }
}

/// Headers and metadata answers (sign-in, the item's JSON, a PROPFIND) that come with a ranged
/// read, on top of its 64 KiB: generous, and far below a 1 MiB file.
let answerOverhead = 16 * 1024

/// Polls `probe` until it answers (every 20 ms, for at most 30 s: a guard against a hang, not the
/// test's oracle).
func eventually<T>(_ what: String, _ probe: () throws -> T?) async throws -> T {
  let deadline = Date().addingTimeInterval(30)
  while true {
    if let answer = try probe() { return answer }
    guard Date() < deadline else { throw ProviderError(.serverUnreachable, "never happened: \(what)") }
    try await Task.sleep(nanoseconds: 20_000_000)
  }
}
