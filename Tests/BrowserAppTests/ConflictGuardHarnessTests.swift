import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore
import Testing
import TestSupport

@testable import BrowserApp

/// A location's traits reach the browser's Info: storage that ignores conditional writes (the
/// probe's finding for nginx, `rclone serve`, some S3 stores) says it cannot detect conflicting
/// edits there; storage that honours them says nothing of it.
@MainActor
@Suite struct ConflictGuardHarnessTests {
  static let ignoring = ProviderTraits(
    content: .synced, changeFeed: .push, identity: .stable, hasTrash: true, rangedReads: true,
    conditionalWrites: .ignored, contentHash: .sha256, storesFavorites: true)

  @Test func infoOnStorageThatIgnoresConditionalWritesSaysItCannotDetectConflictingEdits() async throws {
    let h = try Harness(provider: InMemoryProvider(domain: .local, traits: Self.ignoring))
    #expect(h.services.locationEntries().map(\.detectsConflictingEdits) == [false])
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.select("notes.txt")
    h.type(.character("i"))
    try await h.waitForScreen(containing: "cannot detect conflicting edits")
    try await h.quit()

    let honouring = try Harness()
    #expect(honouring.services.locationEntries().map(\.detectsConflictingEdits) == [true])
  }
}
