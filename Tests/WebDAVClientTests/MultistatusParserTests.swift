import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import WebDAVClient

/// What the parser takes from a multistatus and what it refuses (remote-providers.md §4.1,
/// test-plan F08), on small documents written the way real servers write them.
@Suite struct MultistatusParserTests {
  struct Parsed {
    var children: [WebDAVEntry] = []
    var outcome: MultistatusReader.Outcome?
    var error: WebDAVError?
  }

  /// Runs `xml` through the reader in 7-byte chunks (every element boundary falls mid-chunk).
  static func parse(_ xml: String, base: String = "/dav/", requested: String = "", depth: Int = 1) async throws -> Parsed {
    try await parse(bytes: Array(xml.utf8), base: base, requested: requested, depth: depth)
  }

  static func parse(bytes: [UInt8], base: String = "/dav/", requested: String = "", depth: Int = 1) async throws -> Parsed {
    let reader = MultistatusReader(
      resolver: HrefResolver(basePath: Array(base.utf8)), requested: try WebDAVPath(requested), depth: depth,
      batchSize: 2, server: "test")
    let producer = Task {
      let loop = MultiThreadedEventLoopGroup.singleton.next()
      var offset = 0
      while offset < bytes.count {
        let end = min(offset + 7, bytes.count)
        try await reader.feed.push(ByteBuffer(bytes: bytes[offset..<end]), on: loop).get()
        offset = end
      }
      reader.feed.finish()
    }
    var parsed = Parsed()
    while let batch = await reader.next() {
      parsed.children += batch
      reader.processed()
    }
    try await producer.value
    do throws(WebDAVError) {
      parsed.outcome = try reader.result()
    } catch {
      parsed.error = error
    }
    return parsed
  }

  @Test func apacheStyleAnswerWithPerPropstatStatuses() async throws {
    let xml = """
      <?xml version="1.0" encoding="utf-8"?>
      <D:multistatus xmlns:D="DAV:" xmlns:ns1="http://owncloud.org/ns">
      <D:response xmlns:lp1="DAV:" xmlns:g1="http://owncloud.org/ns">
      <D:href>/dav/</D:href>
      <D:propstat><D:prop><lp1:resourcetype><D:collection/></lp1:resourcetype>
      <lp1:getetag>"1000-6612f84ff62e8"</lp1:getetag></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>
      <D:propstat><D:prop><lp1:getcontentlength/><g1:fileid/></D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>
      </D:response>
      <D:response xmlns:lp1="DAV:">
      <D:href>http://127.0.0.1:8080/dav/a%20b%25c</D:href>
      <D:propstat><D:prop><lp1:resourcetype/><lp1:getcontentlength>12</lp1:getcontentlength>
      <lp1:getlastmodified>Sun, 06 Nov 1994 08:49:37 GMT</lp1:getlastmodified><lp1:getetag>W/"3-5e0"</lp1:getetag>
      <D:getcontenttype>text/plain</D:getcontenttype></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>
      </D:response>
      <D:response><D:href>/dav/sub/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype>
      </D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
      <D:response><D:href>/dav/caf%e9</D:href><D:propstat><D:prop><D:resourcetype/></D:prop>
      <D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
      </D:multistatus>
      """
    let parsed = try await Self.parse(xml)
    #expect(parsed.error == nil)
    let outcome = try #require(parsed.outcome)
    #expect(outcome.requested?.isCollection == true)
    #expect(outcome.requested?.etag == "\"1000-6612f84ff62e8\"")
    #expect(outcome.requested?.size == nil)
    #expect(outcome.failedResponses == 0)
    #expect(parsed.children.map(\.name) == [Array("a b%c".utf8), Array("sub".utf8), [0x63, 0x61, 0x66, 0xE9]])
    let file = parsed.children[0]
    #expect(file.isCollection == false)
    #expect(file.size == 12)
    #expect(file.etag == "W/\"3-5e0\"")
    #expect(file.isETagWeak)
    #expect(file.contentType == "text/plain")
    #expect(file.lastModified == Date(timeIntervalSince1970: 784_111_777))
    #expect(parsed.children[1].isCollection)
  }

  @Test func namespacesCountNotPrefixes() async throws {
    // wsgidav's ns0:, a default namespace, and ownCloud's properties under yet another prefix.
    let xml = """
      <?xml version="1.0"?><multistatus xmlns="DAV:" xmlns:x="http://owncloud.org/ns"><response><href>/dav/</href>
      <propstat><prop><resourcetype><collection/></resourcetype><quota-available-bytes>-3</quota-available-bytes>
      <quota-used-bytes>1024</quota-used-bytes></prop><status>HTTP/1.1 200 OK</status></propstat></response>
      <ns0:response xmlns:ns0="DAV:"><ns0:href>/dav/f</ns0:href><ns0:propstat><ns0:prop><x:fileid>00000042oc</x:fileid>
      <x:permissions>RDNVW</x:permissions><x:size>77</x:size><wrong:getcontentlength xmlns:wrong="urn:other">9</wrong:getcontentlength>
      </ns0:prop><ns0:status>HTTP/1.1 200 OK</ns0:status></ns0:propstat></ns0:response></multistatus>
      """
    let parsed = try await Self.parse(xml)
    #expect(parsed.error == nil)
    #expect(parsed.outcome?.requested?.quotaAvailableBytes == -3)
    #expect(parsed.outcome?.requested?.quotaUsedBytes == 1024)
    let file = try #require(parsed.children.first)
    #expect(file.fileID == "00000042oc")
    #expect(file.permissions == "RDNVW")
    #expect(file.ocSize == 77)
    #expect(file.size == nil)  // a getcontentlength in another namespace is not DAV:'s
  }

  @Test func aFailedPropstatOrResponseMakesTheListingIncomplete() async throws {
    let xml = """
      <D:multistatus xmlns:D="DAV:"><D:response><D:href>/dav/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/>
      </D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
      <D:response><D:href>/dav/gone</D:href><D:status>HTTP/1.1 500 Internal Server Error</D:status></D:response>
      <D:response><D:href>/dav/half</D:href><D:propstat><D:prop><D:resourcetype/></D:prop><D:status>HTTP/1.1 200 OK</D:status>
      </D:propstat><D:propstat><D:prop><D:getetag/></D:prop><D:status>HTTP/1.1 500 Oops</D:status></D:propstat></D:response>
      </D:multistatus>
      """
    let parsed = try await Self.parse(xml)
    #expect(parsed.outcome?.failedResponses == 2)
    #expect(parsed.children.map(\.name) == [Array("half".utf8)])
  }

  @Test(arguments: [
    ("/elsewhere/x", "outside"),
    ("/dav/../etc/passwd", "'..'"),
    ("/dav/a/./b", "'..'"),
    ("/dav//x", "'..'"),
    ("/dav/a/b", "not in it"),
    ("/dav/bad%zz", "%-escape"),
    ("relative", "absolute"),
  ])
  func hrefsThatDoNotNameAChildRejectTheListing(href: String, said: String) async throws {
    let xml = """
      <D:multistatus xmlns:D="DAV:"><D:response><D:href>/dav/</D:href><D:propstat><D:prop><D:resourcetype>
      <D:collection/></D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
      <D:response><D:href>\(href)</D:href><D:propstat><D:prop><D:resourcetype/></D:prop>
      <D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response></D:multistatus>
      """
    let parsed = try await Self.parse(xml)
    #expect(parsed.error?.code == .malformedResponse)
    #expect(parsed.error?.message.contains(said) == true)
  }

  @Test func brokenDocumentsAreRefused() async throws {
    let truncated = "<D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>/dav/</D:href>"
    #expect(try await Self.parse(truncated).error?.code == .malformedResponse)
    let notDAV = "<html><body>Login</body></html>"
    #expect(try await Self.parse(notDAV).error?.code == .malformedResponse)
    let deep = "<D:multistatus xmlns:D=\"DAV:\">" + String(repeating: "<D:x>", count: 500)
    #expect(try await Self.parse(deep).error?.code == .malformedResponse)
    let huge =
      "<D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>/dav/"
      + String(repeating: "a", count: 100_000) + "</D:href></D:response></D:multistatus>"
    #expect(try await Self.parse(huge).error?.code == .malformedResponse)
  }

  @Test func depthZeroTakesOnlyTheItemItself() async throws {
    let xml = """
      <D:multistatus xmlns:D="DAV:"><D:response><D:href>/dav/f%20g</D:href><D:propstat><D:prop><D:resourcetype/>
      <D:getcontentlength>3</D:getcontentlength></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
      </D:multistatus>
      """
    let parsed = try await Self.parse(xml, requested: "f g", depth: 0)
    #expect(parsed.outcome?.requested?.size == 3)
    #expect(parsed.children.isEmpty)
    let other = try await Self.parse(xml, requested: "other", depth: 0)
    #expect(other.error?.code == .malformedResponse)
  }

  /// A PROPPATCH's 207 (SabreDAV's form, any prefix): one status per propstat, so a property
  /// refused inside a 207 is seen; what is not a multistatus gives none.
  @Test func propPatchAnswersGiveEachPropstatsStatus() {
    let set = """
      <?xml version="1.0"?>
      <d:multistatus xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns"><d:response><d:href>/f/a.txt</d:href>\
      <d:propstat><d:prop><oc:favorite/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>
      """
    #expect(PropPatchAnswer.statuses(Array(set.utf8)) == [200])
    let refused = """
      <D:multistatus xmlns:D="DAV:"><D:response><D:href>/f/a.txt</D:href><D:propstat><D:prop><x:y xmlns:x="urn:x"/></D:prop>\
      <D:status>HTTP/1.1 403 Forbidden</D:status></D:propstat><D:propstat><D:prop/><D:status>HTTP/1.1 424 Failed Dependency</D:status>\
      </D:propstat></D:response></D:multistatus>
      """
    #expect(PropPatchAnswer.statuses(Array(refused.utf8)) == [403, 424])
    #expect(PropPatchAnswer.statuses(Array("<html>error</html>".utf8)).isEmpty)
    #expect(PropPatchAnswer.statuses(Array("<d:multistatus xmlns:d=\"DAV:\">".utf8)).isEmpty, "cut short")
  }

  /// Foundation's XMLParser traps on an element or attribute name that is not UTF-8
  /// (swift-corelibs-foundation 5534; found by folio-fuzz, Fuzz/corpus/webdav-*/regression-*): the
  /// body is refused at the first such byte, split across chunks or not.
  @Test(arguments: [[0xFF], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC0, 0xAF]] as [[UInt8]])
  func aBodyThatIsNotUTF8IsMalformedNotATrap(_ bad: [UInt8]) async throws {
    let bytes =
      Array("<D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>/dav/</D:href><D:s".utf8) + bad
      + Array("tatus>HTTP/1.1 200 OK</D:status></D:response></D:multistatus>".utf8)
    let parsed = try await Self.parse(bytes: bytes)
    #expect(parsed.error?.code == .malformedResponse)
    #expect(parsed.error?.message.contains("not UTF-8") == true)
    #expect(PropPatchAnswer.statuses(bytes) == [])
  }

  @Test func aUTF8NameSplitAcrossChunksStillParses() async throws {
    let parsed = try await Self.parse(
      "<D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>/dav/%C3%A9t%C3%A9</D:href><D:propstat><D:prop>"
        + "<D:displayname>été été</D:displayname></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>"
        + "</D:response></D:multistatus>")
    #expect(parsed.error == nil)
    #expect(parsed.children.map(\.name) == [Array("été".utf8)])
  }

  /// XMLParser calls strlen on the NULL data of a processing instruction without any (found by
  /// libFuzzer; Fuzz/corpus/webdav-*/regression-processing-instruction): refused as it streams.
  @Test func aProcessingInstructionIsMalformedNotACrash() async throws {
    let xml = "<?xml version=\"1.0\"?><D:multistatus xmlns:D=\"DAV:\"><?x?><D:response><D:href>/dav/</D:href>"
      + "</D:response></D:multistatus>"
    let parsed = try await Self.parse(xml)
    #expect(parsed.error?.code == .malformedResponse)
    #expect(parsed.error?.message.contains("processing instruction") == true)
    #expect(PropPatchAnswer.statuses(Array(xml.utf8)) == [])
    let leading = try await Self.parse("<?xmlx?><D:multistatus xmlns:D=\"DAV:\"></D:multistatus>")
    #expect(leading.error?.message.contains("processing instruction") == true)
  }
}
