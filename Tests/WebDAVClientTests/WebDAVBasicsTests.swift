import Foundation
import NIOHTTP1
import Testing

@testable import WebDAVClient

/// Configuration, paths, dates and status mapping: the parts that need no server.
@Suite struct WebDAVBasicsTests {
  @Test func plainHTTPIsRefusedUnlessTheServerIsThisMachine() throws {
    let error = #expect(throws: WebDAVError.self) {
      try WebDAVConfiguration(url: URL(string: "http://dav.example.com/remote.php/dav/files/me/")!, user: "me", password: "pw")
    }
    #expect(error?.code == .insecureTransport)
    #expect(error?.message.contains("https") == true)
    for local in ["http://127.0.0.1:8080/dav/", "http://localhost/dav", "http://[::1]:81/", "http://127.8.9.10/"] {
      #expect(throws: Never.self) { try WebDAVConfiguration(url: URL(string: local)!, user: "me", password: "pw") }
    }
    #expect(throws: Never.self) {
      try WebDAVConfiguration(url: URL(string: "https://dav.example.com/dav/")!, user: "me", password: "pw")
    }
  }

  @Test func unusableConfigurationsAreSaid() throws {
    let cases: [(String, String, String?)] = [
      ("ftp://127.0.0.1/x/", "me", nil),
      ("https://h/x/?q=1", "me", nil),
      ("https://h/x/", "a:b", nil),
      ("https://h/x/", "me", "/nonexistent/ca.pem"),
      ("http://127.0.0.1/x/", "me", "/etc/hostname"),
    ]
    for (url, user, ca) in cases {
      let error = #expect(throws: WebDAVError.self) {
        try WebDAVConfiguration(url: URL(string: url)!, user: user, password: "pw", caFile: ca)
      }
      #expect(error?.code == .badConfiguration, "\(url) \(user)")
    }
  }

  @Test func theBasePathGetsItsSlashAndKeepsItsEscapes() throws {
    let configuration = try WebDAVConfiguration(
      url: URL(string: "https://cloud.example.com:8443/remote.php/dav/files/me%40example.com")!, user: "me", password: "pw")
    #expect(configuration.baseURL.absoluteString == "https://cloud.example.com:8443/remote.php/dav/files/me%40example.com/")
    #expect(configuration.basePathBytes == Array("/remote.php/dav/files/me@example.com/".utf8))
    #expect(configuration.serverName == "cloud.example.com:8443")
    let path = try WebDAVPath([0x61, 0x20, 0x25, 0x23, 0x3F, 0x2B, 0x2F, 0xC3, 0xA9])  // "a %#?+/é"
    #expect(
      configuration.url(path)
        == "https://cloud.example.com:8443/remote.php/dav/files/me%40example.com/a%20%25%23%3F%2B/%C3%A9")
    #expect(configuration.url(try WebDAVPath("d"), collection: true).hasSuffix("/me%40example.com/d/"))
  }

  @Test func pathsRefuseNamesThatWouldNameSomethingElse() throws {
    for bad in ["", "a//b", "a/./b", "../x", "a/..", "/a", "a/"] where !bad.isEmpty {
      #expect(throws: WebDAVError.self, "\(bad)") { try WebDAVPath(bad) }
    }
    #expect(throws: WebDAVError.self) { try WebDAVPath([0x61, 0x00]) }
    #expect(throws: WebDAVError.self) { try WebDAVPath.root.appending(Array("a/b".utf8)) }
    let path = try WebDAVPath("a/b c/d")
    #expect(path.names.map { String(decoding: $0, as: UTF8.self) } == ["a", "b c", "d"])
    #expect(path.parent == (try WebDAVPath("a/b c")))
    #expect(path.isWithin(try WebDAVPath("a")))
    #expect(!(try WebDAVPath("ab")).isWithin(try WebDAVPath("a")))
    #expect(WebDAVPath.root.parent == nil)
  }

  @Test func theThreeHTTPDateForms() {
    let expected = Date(timeIntervalSince1970: 784_111_777)
    #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
    #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
    #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
    #expect(HTTPDate.parse("Thu, 29 Feb 2024 23:59:60 GMT") == Date(timeIntervalSince1970: 1_709_251_200))
    #expect(HTTPDate.parse("yesterday") == nil)
    #expect(HTTPDate.parse("Sun, 06 Nov 1994 25:49:37 GMT") == nil)
  }

  @Test func statusesBecomeCodes() {
    var challenge = HTTPHeaders()
    challenge.add(name: "WWW-Authenticate", value: "Basic realm=\"Folio \\\"test\\\"\", charset=\"UTF-8\"")
    let signIn = StatusMapping.error(status: 401, headers: challenge, operation: .list, subject: "/", server: "h")
    #expect(signIn.code == .needsSignIn)
    #expect(signIn.realm == "Folio \"test\"")
    var busy = HTTPHeaders()
    busy.add(name: "Retry-After", value: "120")
    let retry = StatusMapping.error(status: 503, headers: busy, operation: .get, subject: "/f", server: "h")
    #expect(retry.code == .retryable)
    #expect(retry.retryAfter == 120)
    #expect(StatusMapping.error(status: 429, headers: [:], operation: .put, subject: "/f", server: "h").code == .retryable)
    let table: [(Int, DAVOperation, WebDAVError.Code)] = [
      (403, .get, .permissionDenied), (404, .stat, .notFound), (405, .mkcol, .conflict), (409, .mkcol, .parentMissing),
      (409, .move, .parentMissing), (412, .move, .preconditionFailed), (412, .put, .preconditionFailed), (423, .delete, .locked),
      (507, .put, .insufficientStorage), (301, .list, .unexpectedStatus), (501, .list, .unexpectedStatus),
    ]
    for (status, operation, code) in table {
      #expect(StatusMapping.error(status: status, headers: [:], operation: operation, subject: "/f", server: "h").code == code)
    }
  }

  @Test func contentRanges() {
    #expect(WebDAVClient.contentRange("bytes 10-19/100")! == (10, 19, 100))
    #expect(WebDAVClient.contentRange("bytes 10-19/*")! == (10, 19, nil))
    #expect(WebDAVClient.contentRange("bytes */100") == nil)
    #expect(WebDAVClient.contentRange(nil) == nil)
  }
}
