import Foundation
import ProviderAPI
import ProviderCore
import Testing
import TestSupport

/// A server that ignores `Range`: a ``ScriptedHTTPServer`` that describes one file (HEAD for S3,
/// PROPFIND for WebDAV) and answers every GET with 200 and the whole of it, behind a
/// ``CountingProxy`` that passes each connection's first `held` bytes and holds the rest. A client
/// that waited for the whole body could not return; one that gives up on the 200 (or keeps what it
/// needs and closes) returns, and its connection closes.
final class RangeIgnoringServer: Sendable {
  let bytes: [UInt8]
  let scripted: ScriptedHTTPServer
  let proxy: CountingProxy
  static let held = 256 * 1024
  static let etag = "\"whole-1\""
  static let modified = "Mon, 01 Jan 2024 00:00:00 GMT"

  /// - Parameter davPath: The file's path on the server, for the PROPFIND answer's `href`.
  init(bytes: [UInt8], davPath: String = "/dav/big.bin") throws {
    self.bytes = bytes
    let size = bytes.count
    let file = [("ETag", Self.etag), ("Last-Modified", Self.modified), ("Content-Type", "application/octet-stream")]
    scripted = try ScriptedHTTPServer { request, _ in
      switch request.method {
      case "HEAD": return ScriptedHTTPServer.answer("200 OK", headers: file, contentLength: size)
      case "PROPFIND":
        return ScriptedHTTPServer.answer(
          "207 Multi-Status",
          xml: """
            <?xml version="1.0" encoding="utf-8"?>
            <D:multistatus xmlns:D="DAV:"><D:response><D:href>\(davPath)</D:href><D:propstat><D:prop>\
            <D:resourcetype/><D:getcontentlength>\(size)</D:getcontentlength>\
            <D:getlastmodified>\(Self.modified)</D:getlastmodified><D:getetag>\(Self.etag)</D:getetag>\
            </D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response></D:multistatus>
            """)
      case "GET": return ScriptedHTTPServer.answer("200 OK", headers: file, body: bytes)
      default: return ScriptedHTTPServer.answer("405 Method Not Allowed")
      }
    }
    proxy = try CountingProxy(upstreamPort: scripted.port, holdAfter: Self.held)
  }

  var endpoint: String { "http://127.0.0.1:\(proxy.port)" }

  func stop() {
    proxy.stop()
    scripted.stop()
  }
}

extension RangeIgnoringServer {
  /// What a provider that refuses a 200 to a ranged read must do here (S3, WebDAV): the preview of
  /// `item` fails as `cannotSynchronize` after one ranged GET, the client closes the connection
  /// while the body is still held back, and no temporary is left.
  func expectPreviewRefused(
    _ item: Item, in domain: Domain, by side: PreviewSide, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let error = await #expect(throws: ProviderError.self, sourceLocation: sourceLocation) {
      _ = try await within(60) { try await side.head(of: item, in: domain) }
    }
    #expect(error?.code == .cannotSynchronize, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(gets(proxy.requests) == ["bytes=0-65535"], "\(proxy.requests)", sourceLocation: sourceLocation)
    _ = try await eventually("the client closed the connection") { proxy.openConnections == 0 ? true : nil }
    #expect(proxy.bytesToClient <= Self.held + answerOverhead, sourceLocation: sourceLocation)
    #expect(side.leftovers().isEmpty, "\(side.leftovers())", sourceLocation: sourceLocation)
  }
}
