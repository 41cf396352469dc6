import Foundation
import TestExecution
import Testing
@testable import WebDAVClient
@testable import WebDAVTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The failures a user meets: wrong password, a server that is down, a certificate not trusted.
@Suite(.offThePool)
struct WebDAVFailureTests {
  @Test(arguments: DAVServerKind.allCases)
  func aWrongPasswordIsSignInWithTheRealm(kind: DAVServerKind) async throws {
    let server = try kind.start()
    defer { server.stop() }
    let client = try server.client(password: "not the password")
    let error = await #expect(throws: WebDAVError.self) { try await client.list(.root) { _ in } }
    #expect(error?.code == .needsSignIn)
    #expect(error?.status == 401)
    let realm: String =
      switch kind {
      case .apache: "Folio test"
      case .nginx: "Folio nginx"
      case .rclone: "rclone"
      }
    #expect(error?.realm == realm)
    #expect(error?.message.contains("wonderland") == false)
    let put = await #expect(throws: WebDAVError.self) { try await client.upload(bytes: [1], to: try WebDAVPath("x")) }
    #expect(put?.code == .needsSignIn)
    #expect(try FileManager.default.contentsOfDirectory(atPath: server.files) == [])
  }

  @Test func aClosedPortIsUnreachable() async throws {
    // A port that was free a moment ago: nothing listens there.
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    let port = Int(UInt16(bigEndian: address.sin_port))
    close(fd)
    let client = WebDAVClient(
      try WebDAVConfiguration(url: URL(string: "http://127.0.0.1:\(port)/dav/")!, user: "u", password: "p"))
    let listing = await #expect(throws: WebDAVError.self) { try await client.list(.root) { _ in } }
    #expect(listing?.code == .unreachable)
    #expect(listing?.isTransient == true)
    let put = await #expect(throws: WebDAVError.self) { try await client.upload(bytes: [1], to: try WebDAVPath("x")) }
    #expect(put?.code == .unreachable)
  }

  @Test func aServerThatStopsMidSessionIsUnreachable() async throws {
    let server = try ApacheDAVServer()
    let client = try server.client()
    _ = try await client.upload(bytes: [1, 2, 3], to: try WebDAVPath("f"))
    server.stop()
    let error = await #expect(throws: WebDAVError.self) { try await client.stat(try WebDAVPath("f")) }
    #expect(error?.code == .unreachable)
  }

  @Test func httpsWithTheServersOwnCertificate() async throws {
    let server = try ApacheDAVServer(https: true)
    defer { server.stop() }
    let certificate = try #require(server.certificate)
    let trusting = WebDAVClient(
      try WebDAVConfiguration(url: server.baseURL, user: server.user, password: server.password, caFile: certificate))
    _ = try await trusting.upload(bytes: Array("over tls".utf8), to: try WebDAVPath("t"))
    #expect(try await WebDAVServerTests.contents(trusting, try WebDAVPath("t")) == Array("over tls".utf8))

    let system = try server.client()
    let refused = await #expect(throws: WebDAVError.self) { try await system.stat(try WebDAVPath("t")) }
    #expect(refused?.code == .tlsRefused)
  }

  @Test func aMissingServerProgramSaysWhatToInstall() {
    let error = #expect(throws: WebDAVFixtureError.self) {
      try LoopbackServer.program(["/usr/sbin/no-such-apache"], package: "apache2 apache2-utils")
    }
    #expect(error?.description == "/usr/sbin/no-such-apache is not installed: apt-get install apache2 apache2-utils (.ci/run does)")
  }
}
