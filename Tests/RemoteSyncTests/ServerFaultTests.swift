import FolioProtocol
import FolioServerProvider
import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// Server faults of test-plan §4.3 through the sync engine and the provider, against the real
/// `folio serve` and its `--faults` switches: F03 (signed out mid-session), F05/F06 (a body that is
/// short or not the bytes its hash names), F07 (Range ignored or refused).
extension RemoteSyncTests {
  /// F03/D8: the password changes on the server mid-session (every token revoked, the stored
  /// password no longer works). Nothing the index knows is deleted, the edit waits latched on
  /// notAuthenticated without hammering the server, and a sign-in with the new password sends it.
  @Test func signedOutMidSessionIsUnknownNeverDeletedAndResumesAfterSignIn() async throws {
    let server = try await RemoteServer()
    let stored = StoredPassword("ana-password")
    let ana = try RemoteClient(server, user: "ana", password: PasswordSource { stored.value })
    _ = try await ana.engine.put(
      [try ana.file("a.txt", Data("a".utf8)), try ana.file("b.txt", Data("b".utf8))], into: try await ana.root(),
      in: ana.domain)
    #expect(await ana.engine.queue.drain().succeeded)
    let a = try await ana.item("/a.txt")
    let b = try await ana.item("/b.txt")
    for item in [a, b] { try ana.index.recordUse(of: item, domain: RemoteServer.work) }
    _ = try await ana.engine.syncChanges(of: RemoteServer.work)

    try server.server.admin(["user", "passwd", "ana", "--password-stdin"], stdin: "changed-password\n")
    let refused = await #expect(throws: ProviderError.self) {
      _ = try await ana.engine.syncChanges(of: RemoteServer.work)
    }
    #expect(refused?.code == .notAuthenticated, "\(String(describing: refused))")
    #expect(try ana.index.item(domain: RemoteServer.work, identifier: a.identifier) != nil, "a is unknown, not deleted")
    #expect(try ana.index.item(domain: RemoteServer.work, identifier: b.identifier) != nil, "b is unknown, not deleted")

    let latched = waitForEvent(ana.engine.events) {
      if case .domainThrottled(_, let e) = $0 { e.code == .notAuthenticated } else { false }
    }
    try await ana.edit(a, Data("edited while signed out".utf8))
    await ana.engine.queue.start()
    #expect(await latched.value != nil, "the domain latches on notAuthenticated")
    #expect(await ana.engine.queue.latchedError(for: RemoteServer.work)?.code == .notAuthenticated)
    let waiting = try ana.index.pendingTransfers(domain: RemoteServer.work)
    #expect(waiting.count == 1 && waiting.first?.state == .throttled && (waiting.first?.attempt ?? 9) <= 1, "\(waiting)")
    #expect(try ana.index.item(domain: RemoteServer.work, identifier: a.identifier) != nil)

    // The person signs in with the new password: the held edit goes by itself.
    let sent = waitForEvent(ana.engine.events) {
      if case .completed(let t, _) = $0 { t.identifier == a.identifier && t.direction == .upload } else { false }
    }
    stored.value = "changed-password"
    try await ana.provider.authenticate(Credentials(user: "ana", secret: "changed-password"))
    await ana.engine.queue.resolve(domain: RemoteServer.work)
    #expect(await sent.value != nil, "the edit was uploaded after the sign-in")
    await ana.engine.queue.stop()
    #expect(String(decoding: try await ana.serverBytes(a.identifier), as: UTF8.self) == "edited while signed out")
    let summary = try await ana.engine.syncChanges(of: RemoteServer.work)
    #expect(summary.deleted == 0)
    #expect(try ana.index.item(domain: RemoteServer.work, identifier: b.identifier) != nil)
  }

  /// F06 (and F05 through the engine): a body of the announced length whose bytes are not the
  /// ones its SHA-256 names, and a body cut short, are never committed to the content cache —
  /// no cached copy, no temporary file left — and the next clean download is exact.
  @Test func aCorruptOrShortDownloadIsNeverCommitted() async throws {
    let server = try await RemoteServer(faults: true)
    let ana = try RemoteClient(server, user: "ana")
    let data = randomData(700_000, seed: 23)
    _ = try await ana.engine.put([try ana.file("f.bin", data)], into: try await ana.root(), in: ana.domain)
    #expect(await ana.engine.queue.drain().succeeded)
    let ben = try RemoteClient(server, user: "ben")
    let item = try await ben.item("/f.bin")
    for kind in [FaultRule.Kind.corrupt, .truncate] {
      try await server.faults([
        FaultRule(method: "GET", pathPrefix: "/v1/items/\(item.identifier.rawValue)/content", kind: kind)
      ])
      let error = await #expect(throws: ProviderError.self, "\(kind)") {
        _ = try await ben.engine.materialize(item, in: ben.domain)
      }
      #expect(error?.code == .ioError || error?.code == .serverUnreachable, "\(kind): \(String(describing: error))")
      #expect(try ben.engine.store.localFile(domain: RemoteServer.work, identifier: item.identifier) == nil, "\(kind)")
      #expect(ben.cacheFiles().isEmpty, "\(kind) left \(ben.cacheFiles())")
    }
    try await server.faults([])
    let url = try await ben.engine.materialize(item, in: ben.domain)
    #expect(try Data(contentsOf: url) == data)
  }

  /// F07: a server that ignores Range answers with the whole content, from its first byte. A range
  /// from 0 gets its bytes and no more (the connection is closed after them); a range that holds
  /// the whole content gets it whole, checked against its hash; a range further in is refused
  /// without a file. A 416 fails cleanly and leaves no file.
  @Test func rangeIgnoredOrRefusedIsHandledCleanly() async throws {
    let server = try await RemoteServer(faults: true)
    let ana = try RemoteClient(server, user: "ana")
    let data = randomData(200_000, seed: 29)
    _ = try await ana.engine.put([try ana.file("r.bin", data)], into: try await ana.root(), in: ana.domain)
    #expect(await ana.engine.queue.drain().succeeded)
    let item = try await ana.item("/r.bin")
    let content = "/v1/items/\(item.identifier.rawValue)/content"

    try await server.faults([FaultRule(method: "GET", pathPrefix: content, kind: .ignoreRange)])
    let head = ana.dir.appendingPathComponent("head")
    let (_, range) = try await ana.provider.fetchPartialContents(item.identifier, version: nil, range: 0..<6000, to: head)
    #expect(range == 0..<6000)
    #expect(try Data(contentsOf: head) == data.prefix(6000))
    let whole = ana.dir.appendingPathComponent("whole")
    let (_, all) = try await ana.provider.fetchPartialContents(
      item.identifier, version: nil, range: 0..<Int64(data.count + 10), to: whole)
    #expect(all == 0..<Int64(data.count))
    #expect(try Data(contentsOf: whole) == data)
    let inside = ana.dir.appendingPathComponent("inside")
    let ignored = await #expect(throws: ProviderError.self) {
      _ = try await ana.provider.fetchPartialContents(item.identifier, version: nil, range: 4096..<6000, to: inside)
    }
    #expect(ignored?.code == .cannotSynchronize)
    #expect(!FileManager.default.fileExists(atPath: inside.path))

    try await server.faults([FaultRule(method: "GET", pathPrefix: content, kind: .status, status: 416)])
    let refused = ana.dir.appendingPathComponent("refused")
    await #expect(throws: ProviderError.self) {
      _ = try await ana.provider.fetchPartialContents(item.identifier, version: nil, range: 4096..<6000, to: refused)
    }
    #expect(!FileManager.default.fileExists(atPath: refused.path))

    // The fault spent, a range reads the bytes at their offsets.
    try await server.faults([])
    let part = ana.dir.appendingPathComponent("part")
    let (_, got) = try await ana.provider.fetchPartialContents(item.identifier, version: nil, range: 4096..<6000, to: part)
    #expect(got.lowerBound <= 4096 && got.upperBound >= 6000 && got.upperBound < Int64(data.count))
    let bytes = try Data(contentsOf: part)
    #expect(bytes[4096..<6000] == data[4096..<6000])
  }
}

/// A password that a test changes, as a person editing the credentials file would.
final class StoredPassword: @unchecked Sendable {
  private let lock = NSLock()
  private var current: String
  init(_ value: String) { current = value }
  var value: String {
    get { lock.withLock { current } }
    set { lock.withLock { current = newValue } }
  }
}
