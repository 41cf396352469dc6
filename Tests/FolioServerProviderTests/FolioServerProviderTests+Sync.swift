import FolioProtocol
import FolioServerProvider
import Foundation
import ProviderAPI
import TestSupport
import Testing

/// Signing in, failures of the connection, and the change log with its long-poll.
@Suite("FolioServerProvider sign-in and changes", .serialized)
struct FolioServerProviderSyncTests {
  @Test func aRevokedTokenSignsInAgainOnce() async throws {
    let fx = try await ServerFixture()
    let logins = Counter()
    let ana = fx.provider(
      password: PasswordSource {
        await logins.increment()
        return "ana-password"
      })
    _ = try await ana.item(for: .root, pathHint: nil)
    #expect(await logins.value == 1)
    _ = try await ana.item(for: .root, pathHint: nil)
    #expect(await logins.value == 1)
    try fx.server.admin(["token", "revoke", "ana"])
    _ = try await ana.item(for: .root, pathHint: nil)
    #expect(await logins.value == 2)
  }

  @Test func concurrentRequestsShareOneSignIn() async throws {
    let fx = try await ServerFixture()
    let logins = Counter()
    let ana = fx.provider(
      password: PasswordSource {
        await logins.increment()
        return "ana-password"
      })
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<8 { group.addTask { _ = try await ana.item(for: .root, pathHint: nil) } }
      try await group.waitForAll()
    }
    #expect(await logins.value == 1)
  }

  @Test func aWrongOrMissingPasswordIsNotAuthenticatedUntilSomeoneSignsIn() async throws {
    let fx = try await ServerFixture()
    let wrong = fx.provider(password: .fixed("nope"), hint: "run `folio domain login work`")
    let error = await #expect(throws: ProviderError.self) { try await wrong.item(for: .root, pathHint: nil) }
    #expect(error?.code == .notAuthenticated && error?.isResolvable == true)
    #expect(error?.message.contains("wrong user name or password") == true)
    #expect(error?.message.hasSuffix("run `folio domain login work`") == true)
    #expect(await wrong.accountStatus() == .needsSignIn(error!.message))

    let none = fx.provider(password: PasswordSource.none)
    let missing = await #expect(throws: ProviderError.self) { try await none.item(for: .root, pathHint: nil) }
    #expect(missing?.code == .notAuthenticated && missing?.message.contains("not signed in") == true)
    let typo = await #expect(throws: ProviderError.self) {
      try await none.authenticate(Credentials(user: "ana", secret: "typo"))
    }
    #expect(typo?.code == .notAuthenticated)
    try await none.authenticate(Credentials(user: "ana", secret: "ana-password"))
    #expect(try await none.item(for: .root, pathHint: nil).identifier == .root)
    // The typed password signs in again after a revocation, without asking.
    try fx.server.admin(["token", "revoke", "ana"])
    #expect(try await none.item(for: .root, pathHint: nil).identifier == .root)
    await none.signOut()
    await #expect(throws: ProviderError.self) { try await none.item(for: .root, pathHint: nil) }
  }

  @Test func aServerThatIsDownIsServerUnreachable() async throws {
    let fx = try await ServerFixture()
    let ana = fx.provider()
    _ = try await ana.item(for: .root, pathHint: nil)
    fx.server.stop()
    let start = Date()
    let error = await #expect(throws: ProviderError.self) { try await ana.item(for: .root, pathHint: nil) }
    #expect(error?.code == .serverUnreachable && error?.isResolvable == true)
    #expect(Date().timeIntervalSince(start) < 9)
    // Offline, with the cause of the moment (refused or reset: the same words are not the oracle).
    let status = await ana.accountStatus()
    if case .offline = status {} else { Issue.record("not offline: \(status)") }
    // Back on the same port: the same provider goes on.
    try await fx.server.start()
    #expect(try await ana.item(for: .root, pathHint: nil).identifier == .root)
  }

  @Test func changesSinceAnAnchorAndTheLongPollSignal() async throws {
    let fx = try await ServerFixture()
    let ana = fx.provider()
    let ben = fx.provider("ben")
    let start = try await ana.currentSyncAnchor(for: .workingSet)
    let empty = try await ana.changes(in: .workingSet, since: start)
    #expect(empty.updatedItems.isEmpty && empty.deletedIdentifiers.isEmpty && !empty.moreComing)

    let signals = ana.changeSignals(for: .workingSet)
    let waiter = Task { () -> Bool in
      for await _ in signals { return true }
      return false
    }
    // Ben's change reaches ana through the long-poll.
    let folder = try await ben.createItem(folderTemplate("from-ben"), fields: [], contents: nil, options: [])
    #expect(try await within(15) { await waiter.value })

    var batch = try await ana.changes(in: .workingSet, since: start)
    #expect(batch.updatedItems.map(\.identifier).contains(folder.identifier))
    #expect(batch.updatedItems.first { $0.identifier == folder.identifier }?.ownerName == "ben")
    #expect(batch.anchor != start)

    // A trash is an update; a delete forever is a deletion.
    var t = ItemTemplate(folder)
    t.parentIdentifier = .trash
    _ = try await ben.modifyItem(t, baseVersion: folder.version, changedFields: .parentItemIdentifier, contents: nil)
    batch = try await ana.changes(in: .workingSet, since: batch.anchor)
    #expect(batch.updatedItems.first { $0.identifier == folder.identifier }?.isTrashed == true)
    try await ben.deleteItem(folder.identifier, baseVersion: nil, options: .recursive)
    batch = try await ana.changes(in: .workingSet, since: batch.anchor)
    #expect(batch.deletedIdentifiers == [folder.identifier])

    let expired = await #expect(throws: ProviderError.self) {
      try await ana.changes(in: .workingSet, since: try SyncAnchor(Data("not-an-anchor".utf8)))
    }
    #expect(expired?.code == .syncAnchorExpired)
    await #expect(throws: ProviderError.self) { try await ana.currentSyncAnchor(for: .root) }
  }

  @Test func aBatchWithMoreComingIsPaged() async throws {
    let fx = try await ServerFixture()
    let ana = fx.provider()
    let start = try await ana.currentSyncAnchor(for: .workingSet)
    for i in 0..<520 { _ = try await ana.createItem(folderTemplate("f\(i)"), fields: [], contents: nil, options: []) }
    var anchor = start
    var seen = Set<ItemIdentifier>()
    var batches = 0
    while true {
      let batch = try await ana.changes(in: .workingSet, since: anchor)
      batches += 1
      seen.formUnion(batch.updatedItems.map(\.identifier))
      anchor = batch.anchor
      if !batch.moreComing { break }
    }
    #expect(batches >= 2 && seen.count == 520)
  }

  @Test func theSignalStreamEndsWhenCancelledAndSurvivesAnOutage() async throws {
    let fx = try await ServerFixture()
    let ana = fx.provider()
    let ben = fx.provider("ben")
    let signals = ana.changeSignals(for: .workingSet)
    let waiter = Task { () -> Int in
      var n = 0
      for await _ in signals {
        n += 1
        if n == 1 { break }
      }
      return n
    }
    // Let the loop reach its first wait, then take the server away and bring it back.
    _ = try await ana.currentSyncAnchor(for: .workingSet)
    fx.server.stop()
    try await Task.sleep(nanoseconds: 300_000_000)
    try await fx.server.start()
    _ = try await ben.createItem(folderTemplate("after-outage"), fields: [], contents: nil, options: [])
    #expect(try await within(300) { await waiter.value } == 1)

    let idle = ana.changeSignals(for: .workingSet)
    let consumer = Task { () -> Int in
      var n = 0
      for await _ in idle { n += 1 }
      return n
    }
    try await Task.sleep(nanoseconds: 200_000_000)
    consumer.cancel()
    #expect(try await within(10) { await consumer.value } == 0)
  }
}
