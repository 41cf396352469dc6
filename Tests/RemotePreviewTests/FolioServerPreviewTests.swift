import AsyncHTTPClient
import FolioProtocol
import FolioServerProvider
import Foundation
import NIOCore
import NIOHTTP1
import PreviewKit
import ProviderAPI
import ProviderCore
import TestExecution
import Testing
import TestSupport
import WorkingSetIndex

@testable import BrowserApp
@testable import BrowserUI

/// Previews of files on a real `folio serve` that are not downloaded here. The preview's provider
/// reaches the server through a ``CountingProxy`` (what it asked for, what it was sent); the files
/// are put there by another provider, straight to the server.
@Suite(.offThePool)
struct FolioServerPreviewTests {
  static let work = DomainIdentifier(unchecked: "work")

  /// A server with ana, her provider straight to it, and the proxy a second provider of hers
  /// goes through.
  struct World {
    let server: ServerProcess
    let direct: FolioServerProvider
    let proxy: CountingProxy
    let viewer: FolioServerProvider

    init(faults: Bool = false, holdAfter: Int? = nil) async throws {
      server = try await ServerProcess(users: ["ana": "ana-password"], faults: faults)
      direct = Self.provider(server.baseURL)
      proxy = try CountingProxy(upstreamPort: server.port, holdAfter: holdAfter)
      viewer = Self.provider(URL(string: "http://127.0.0.1:\(proxy.port)")!)
    }

    static func provider(_ url: URL) -> FolioServerProvider {
      FolioServerProvider(
        domain: work, displayName: "Work", account: ServerAccount(baseURL: url, user: "ana"), password: .fixed("ana-password"))
    }

    /// Puts `bytes` on the server as `/name` (straight, not through the proxy); the item as the
    /// viewer lists it, with the proxy's record of that listing forgotten.
    func put(_ name: String, _ bytes: [UInt8], side: PreviewSide) async throws -> Item {
      _ = try await direct.createItem(
        ItemTemplate(parentIdentifier: .root, filename: ItemName(name), contentType: .data), fields: [.contents],
        contents: try localFile(bytes, in: side), options: [])
      let item = try await viewer.item(at: ItemPath("/" + name))
      proxy.reset()
      return item
    }

    /// The content requests the proxy saw (their Range headers).
    var contentGets: [String?] { gets(proxy.requests) { $0.contains("/content") } }

    /// Installs fault rules on the server (it runs with `--faults`).
    func faults(_ rules: [FaultRule]) async throws {
      var request = HTTPClientRequest(url: server.baseURL.absoluteString + "/v1/_faults")
      request.method = .POST
      request.headers.add(name: "Content-Type", value: "application/json")
      request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(FaultRulesRequest(rules: rules))))
      let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
      _ = try await response.body.collect(upTo: 1 << 20)
      guard response.status.code == 204 else { throw ServerProcess.Failure.adminFailed("faults: HTTP \(response.status.code)") }
    }

    func stop() {
      proxy.stop()
      server.stop()
    }
  }

  /// Issue 12: a file that is not downloaded is previewed from one ranged read of its first
  /// 64 KiB — one GET with `Range: bytes=0-65535`, answered 206 by the server (its log), 64 KiB
  /// and the heads relayed — and stays not downloaded.
  @Test func aFileNotDownloadedIsPreviewedFromOneRangedRead() async throws {
    let world = try await World()
    defer { world.stop() }
    let side = try PreviewSide()
    let data = randomBytes(1 << 20, seed: 41)
    let item = try await world.put("big.bin", data, side: side)
    let domain = side.domain(world.viewer, Self.work)

    let head = try await side.head(of: item, in: domain)

    try side.expectRemoteHead(head, of: data, item: item, in: domain)
    #expect(world.contentGets == ["bytes=0-65535"], "\(world.proxy.requests)")
    #expect(world.proxy.bytesToClient <= PreviewReader.headLimit + answerOverhead, "\(world.proxy.bytesToClient) bytes relayed")
    let contentPath = "/v1/items/\(item.identifier.rawValue)/content"
    #expect(world.server.log.contains("GET \(contentPath) 206"), "\(world.server.log)")
  }

  /// F07 for a preview: a server that ignores Range answers 200 with the whole 4 MiB. The first
  /// 64 KiB are kept and the connection is closed: the call returns while the proxy still holds
  /// everything after the first 512 KiB (a client that read on could not return), the file it
  /// wrote holds exactly the range, and a range further in is refused without a byte written.
  @Test func aServerIgnoringRangeIsReadNoFurtherThanTheRange() async throws {
    let held = 512 * 1024
    let world = try await World(faults: true, holdAfter: held)
    defer { world.stop() }
    let side = try PreviewSide()
    let data = randomBytes(4 << 20, seed: 43)
    let item = try await world.put("whole.bin", data, side: side)
    let domain = side.domain(world.viewer, Self.work)
    let contentPath = "/v1/items/\(item.identifier.rawValue)/content"
    try await world.faults([FaultRule(method: "GET", pathPrefix: contentPath, kind: .ignoreRange)])

    // The provider's partial fetch, into a file the test keeps.
    let part = side.dir.appendingPathComponent("part")
    let (_, got) = try await within(60) {
      try await world.viewer.fetchPartialContents(item.identifier, version: nil, range: 0..<65536, to: part)
    }
    #expect(got == 0..<65536)
    #expect(try Data(contentsOf: part) == Data(data.prefix(65536)), "exactly the range, nothing after it")
    #expect(world.server.log.contains("GET \(contentPath) 200"), "the server sent the whole content: \(world.server.log)")
    #expect(world.proxy.bytesToClient <= held + answerOverhead)

    // The preview, the same way.
    world.proxy.reset()
    let head = try await within(60) { try await side.head(of: item, in: domain) }
    try side.expectRemoteHead(head, of: data, item: item, in: domain)
    #expect(world.contentGets == ["bytes=0-65535"])

    // Further in, the bytes before the range would all have to come: refused, nothing written.
    let inside = side.dir.appendingPathComponent("inside")
    let refused = await #expect(throws: ProviderError.self) {
      _ = try await within(60) {
        try await world.viewer.fetchPartialContents(item.identifier, version: nil, range: 1_000_000..<1_065_536, to: inside)
      }
    }
    #expect(refused?.code == .cannotSynchronize, "\(String(describing: refused))")
    #expect(!FileManager.default.fileExists(atPath: inside.path))
  }

  /// A ZIP on the server that is not downloaded: the pane lists its entries from the head, the
  /// tail (its end record and, here, the whole directory) and nothing else — 64 KiB + 64 KiB +
  /// 22 bytes asked for, of a 4 MiB file.
  @Test func aRemoteZipIsListedFromItsHeadAndTail() async throws {
    let world = try await World()
    defer { world.stop() }
    let side = try PreviewSide()
    let zip = try TestZip(entries: 40, entrySize: 100_000, nameLength: 12, in: side)
    let item = try await world.put("photos.zip", zip.bytes, side: side)
    let domain = side.domain(world.viewer, Self.work)

    let made = await PreviewMaker.make(
      PreviewSubject(item: item, domain: Self.work, columns: 60, rows: 30),
      PreviewMaker.Context(domain: domain, store: side.store, services: PreviewServices(scratch: side.scratch)))

    let lines = try #require(made.preview.lines, "\(made.preview)")
    #expect(lines.count == 40 && zip.names.allSatisfy { name in lines.contains { $0.hasSuffix(name) } }, "\(lines)")
    #expect(made.preview.extent == "40 entries (listed from the server)")
    let size = Int64(zip.bytes.count)
    let tail = size - Int64(ZipDirectory.tailLength)
    #expect(world.contentGets == ["bytes=0-65535", "bytes=\(tail)-\(size - 1)"], "\(world.proxy.requests)")
    #expect(zip.directoryOffset > Int(tail), "the directory is in the tail")
    #expect(
      world.proxy.bytesToClient <= PreviewReader.headLimit + ZipDirectory.tailLength + answerOverhead,
      "\(world.proxy.bytesToClient) bytes relayed")
    #expect(try side.index.content(domain: Self.work, identifier: item.identifier) == nil)
    #expect(side.leftovers().isEmpty, "\(side.leftovers())")
  }

  /// A ZIP whose directory is larger than the tail: one more read, of the directory's first
  /// 64 KiB from where the end record says it starts — after every entry's data.
  @Test func aZipWithALargeDirectoryReadsItsStartAndNoData() async throws {
    let world = try await World()
    defer { world.stop() }
    let side = try PreviewSide()
    let zip = try TestZip(entries: 1500, entrySize: 2000, nameLength: 80, in: side)
    let item = try await world.put("many.zip", zip.bytes, side: side)
    let domain = side.domain(world.viewer, Self.work)
    #expect(zip.bytes.count - zip.directoryOffset > ZipDirectory.tailLength + PreviewReader.headLimit)

    let made = await PreviewMaker.make(
      PreviewSubject(item: item, domain: Self.work, columns: 60, rows: 30),
      PreviewMaker.Context(domain: domain, store: side.store, services: PreviewServices(scratch: side.scratch)))

    let lines = try #require(made.preview.lines, "\(made.preview)")
    // The first 4 × 30 entries, in the directory's order.
    #expect(lines.count == 120, "\(lines.count)")
    #expect(zip.names.prefix(120).enumerated().allSatisfy { lines[$0.offset].hasSuffix($0.element) }, "\(lines.prefix(3))")
    #expect(made.preview.extent == "first 120 of 1500 entries (listed from the server)")
    let size = zip.bytes.count
    let tail = size - ZipDirectory.tailLength
    let directory = zip.directoryOffset
    #expect(
      world.contentGets == [
        "bytes=0-65535", "bytes=\(tail)-\(size - 1)", "bytes=\(directory)-\(directory + PreviewReader.headLimit - 1)",
      ], "\(world.proxy.requests)")
    #expect(
      world.proxy.bytesToClient <= 2 * PreviewReader.headLimit + ZipDirectory.tailLength + answerOverhead,
      "\(world.proxy.bytesToClient) bytes relayed")
    #expect(side.leftovers().isEmpty, "\(side.leftovers())")
  }
}
