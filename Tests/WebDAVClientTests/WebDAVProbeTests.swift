import Foundation
import TestExecution
import Testing
import WebDAVTestSupport

@testable import WebDAVClient

/// The probe of issue 11 §1 against what each server really does (measured with curl first:
/// Apache answers 412 to both conditionals; nginx and rclone answer 204/201 to both; rclone alone
/// lets a reader see a PUT's bytes before it ends).
@Suite(.offThePool)
struct WebDAVProbeTests {
  @Test(arguments: DAVServerKind.allCases)
  func theProbeSaysWhatTheServerDoesAndLeavesNothingBehind(kind: DAVServerKind) async throws {
    let server = try kind.start()
    defer { server.stop() }
    let client = try server.client()
    // rclone's in-place write shows when it is seen; under load that took longer than the 5 s the
    // probe watches by default (the answer came back "unknown"). The budget is a bound, not the oracle.
    let probe = try await client.probe(inPlaceBudget: kind == .rclone ? .seconds(120) : .seconds(5))
    switch kind {
    case .apache:
      #expect(probe == WebDAVProbe(refusesCreateOverExisting: true, refusesStaleIfMatch: true, replacesInPlace: false))
      #expect(probe.honoursConditionalWrites)
    case .nginx:
      #expect(probe == WebDAVProbe(refusesCreateOverExisting: false, refusesStaleIfMatch: false, replacesInPlace: false))
      #expect(!probe.honoursConditionalWrites)
    case .rclone:
      // It writes in place. Under load rclone can also hold a read of the file until the write
      // ends, and the probe then says it cannot tell (nil) — which Folio treats as in place too.
      // What must never come back is "replaces atomically".
      #expect(!probe.refusesCreateOverExisting && !probe.refusesStaleIfMatch)
      #expect(probe.replacesInPlace != false, "\(probe)")
      #expect(!probe.honoursConditionalWrites)
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: server.files) == [])
  }

  @Test func aScratchNameThatExistsIsNotTouched() async throws {
    let server = try ApacheDAVServer()
    defer { server.stop() }
    let client = try server.client()
    let name = Array(".folio-probe-taken".utf8)
    _ = try await client.upload(bytes: Array("mine".utf8), to: try WebDAVPath.root.appending(name))
    let error = await #expect(throws: WebDAVError.self) { try await client.probe(scratchName: name) }
    #expect(error?.code == .conflict)
    #expect(try await WebDAVServerTests.contents(client, try WebDAVPath.root.appending(name)) == Array("mine".utf8))
  }

  @Test func conditionalWritesWithRealVersionsOnApache() async throws {
    let server = try ApacheDAVServer()
    defer { server.stop() }
    let client = try server.client()
    let path = try WebDAVPath("doc.txt")
    _ = try await client.upload(bytes: Array("v1".utf8), to: path, condition: .ifNoneMatch)
    let exists = await #expect(throws: WebDAVError.self) {
      try await client.upload(bytes: Array("v1b".utf8), to: path, condition: .ifNoneMatch)
    }
    #expect(exists?.code == .preconditionFailed)
    // Apache's ETag is weak while the file is under a second old (its mtime could still change
    // unseen), and If-Match compares strongly: wait for a strong one, as a provider must.
    var entry = try await client.stat(path)
    while entry.isETagWeak {
      try await Task.sleep(for: .milliseconds(100))
      entry = try await client.stat(path)
    }
    let base = try #require(entry.etag)
    _ = try await client.upload(bytes: Array("v2".utf8), to: path, condition: .ifMatch(base))
    let stale = await #expect(throws: WebDAVError.self) {
      try await client.upload(bytes: Array("v3".utf8), to: path, condition: .ifMatch(base))
    }
    #expect(stale?.code == .preconditionFailed)
    #expect(try await WebDAVServerTests.contents(client, path) == Array("v2".utf8))
    let deleteStale = await #expect(throws: WebDAVError.self) { try await client.delete(path, ifMatch: base) }
    #expect(deleteStale?.code == .preconditionFailed)
  }
}
