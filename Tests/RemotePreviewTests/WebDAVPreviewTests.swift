import Foundation
import ProviderAPI
import ProviderCore
import TestExecution
import Testing
import TestSupport
import WebDAVProvider
import WebDAVTestSupport

/// Previews of files that are not downloaded, on Apache, nginx and rclone through a
/// ``CountingProxy``, and on a server that ignores Range.
@Suite(.offThePool)
struct WebDAVPreviewTests {
  static let domain = DomainIdentifier(unchecked: "dav")

  func provider(_ url: URL, user: String, password: String, pinned: Bool) -> WebDAVProvider {
    WebDAVProvider(
      domain: Self.domain, url: url, user: user, password: { () async throws(ProviderError) -> String? in password },
      conditionalWrites: pinned ? .honoured : .ignored)
  }

  /// Issue 12: a PROPFIND and one GET with `Range: bytes=0-65535`, 64 KiB and the heads relayed,
  /// the head exact, the file still not downloaded — on each server.
  @Test(arguments: DAVServerKind.allCases)
  func aFileNotDownloadedIsPreviewedFromOneRangedRead(_ kind: DAVServerKind) async throws {
    let server = try kind.start()
    defer { server.stop() }
    let proxy = try CountingProxy(upstreamPort: server.baseURL.port!)
    defer { proxy.stop() }
    let side = try PreviewSide()
    let data = randomBytes(1 << 20, seed: 61)
    try Data(data).write(to: URL(fileURLWithPath: server.files + "/big.bin"))
    var relayed = URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false)!
    relayed.port = proxy.port
    let viewer = provider(
      relayed.url!, user: server.user, password: server.password, pinned: kind.honoursConditionalWrites)
    let item = try await viewer.item(at: ItemPath("/big.bin"))
    proxy.reset()
    let domain = side.domain(viewer, Self.domain)

    let head = try await side.head(of: item, in: domain)

    try side.expectRemoteHead(head, of: data, item: item, in: domain)
    #expect(gets(proxy.requests) == ["bytes=0-65535"], "\(proxy.requests)")
    #expect(proxy.bytesToClient <= PreviewReader.headLimit + answerOverhead, "\(proxy.bytesToClient) bytes relayed")
  }

  /// A server that answers a ranged GET with 200 and the whole file: the client cancels the request
  /// when it sees the 200 (`rangeIgnored`), nothing is written, the preview says why at once while
  /// the rest of the body is still held back, and the connection is closed.
  @Test func aServerIgnoringRangeIsRefusedWithoutReadingTheBody() async throws {
    let data = randomBytes(4 << 20, seed: 67)
    let server = try RangeIgnoringServer(bytes: data, davPath: "/dav/big.bin")
    defer { server.stop() }
    let side = try PreviewSide()
    let viewer = provider(URL(string: server.endpoint + "/dav/")!, user: "alice", password: "secret", pinned: false)
    let item = try await viewer.item(at: ItemPath("/big.bin"))
    #expect(item.documentSize == Int64(data.count))
    let domain = side.domain(viewer, Self.domain)

    try await server.expectPreviewRefused(item, in: domain, by: side)
  }
}
