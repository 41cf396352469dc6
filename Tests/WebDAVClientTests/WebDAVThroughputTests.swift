import Foundation
import TestExecution
import Testing
import WebDAVTestSupport

@testable import WebDAVClient

#if canImport(Glibc)
  import Glibc
#endif

/// GET and PUT of one large file against curl on the same Apache, measured only when asked
/// (`WEBDAV_BENCH_MIB=256 swift test --filter WebDAVThroughputTests`): a time, not a check.
@Suite(.offThePool, .enabled(if: ProcessInfo.processInfo.environment["WEBDAV_BENCH_MIB"] != nil))
struct WebDAVThroughputTests {
  @Test func aLargeFileAgainstCurl() async throws {
    let mib = Int(ProcessInfo.processInfo.environment["WEBDAV_BENCH_MIB"] ?? "") ?? 256
    let server = try ApacheDAVServer()
    defer { server.stop() }
    let client = try server.client()
    let scratch = try LocalScratch()
    defer { scratch.remove() }
    let source = try scratch.randomFile("source", size: mib << 20)
    let clock = ContinuousClock()

    let upload = try await clock.measure {
      _ = try await client.upload(file: source.path, to: try WebDAVPath("big"))
    }
    let curlUpload = try clock.measure {
      _ = try Self.curl(["-T", source.path, server.baseURL.absoluteString + "big-curl"], server)
    }
    let target = scratch.folder + "/target"
    let fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    defer { close(fd) }
    // Best of three each: the first read of the file warms the server's page cache.
    var download = Duration.seconds(3600)
    var curlDownload = Duration.seconds(3600)
    for _ in 0..<3 {
      download = min(download, try await clock.measure { _ = try await client.download(try WebDAVPath("big"), to: fd) })
      curlDownload = min(
        curlDownload,
        try clock.measure { _ = try Self.curl(["-o", scratch.folder + "/curl-target", server.baseURL.absoluteString + "big"], server) })
    }
    #expect(try LocalScratch.sha256(target) == source.sha256)
    print(
      "WebDAV \(mib) MiB on Apache: download \(download) (curl \(curlDownload)), upload \(upload) (curl \(curlUpload))")
  }

  static func curl(_ arguments: [String], _ server: any WebDAVTestServer) throws -> Int32 {
    var pid: pid_t = 0
    let argv = (["/usr/bin/curl", "-s", "-f", "-u", "\(server.user):\(server.password)"] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    guard posix_spawn(&pid, "/usr/bin/curl", nil, nil, argv, environ) == 0 else { throw WebDAVFixtureError("no curl") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return status
  }
}
