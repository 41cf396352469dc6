import BrowserApp
import BrowserUI
import Foundation
import LocalProvider
import ProviderAPI
import ProviderCore
import Testing
import TestSupport
import WorkingSetIndex

/// Copy (`y`) and Paste (`p`) through the loop: within a folder on disk (the provider copies), from
/// disk into the remote memory location (uploads journaled, then sent by the transfer queue), and
/// back (downloaded, then written here).
@MainActor
@Suite struct PasteHarnessTests {
  nonisolated static let disk = DomainIdentifier(unchecked: "disk")

  /// A temporary folder shown as the location "Disk": `a.txt`, `Docs/`, `Folder/inner.txt`.
  struct Disk {
    let root: URL
    let domain: Domain
    var path: ItemPath { ItemPath(root.path) }
    var location: FolderLocation { FolderLocation(domain: PasteHarnessTests.disk, identifier: nil, path: path, name: "Disk") }

    init() throws {
      root = FileManager.default.temporaryDirectory.appendingPathComponent("folio-paste-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: root.appendingPathComponent("Docs"), withIntermediateDirectories: true)
      try FileManager.default.createDirectory(at: root.appendingPathComponent("Folder"), withIntermediateDirectories: true)
      try Data("alpha".utf8).write(to: root.appendingPathComponent("a.txt"))
      try Data("inside".utf8).write(to: root.appendingPathComponent("Folder/inner.txt"))
      let path = ItemPath(root.path)
      domain = Domain(
        identifier: PasteHarnessTests.disk, displayName: "Disk", provider: LocalProvider(domain: PasteHarnessTests.disk, root: path, displayName: "Disk"),
        localRoot: path)
    }

    func bytes(_ relative: String) -> Data? { try? Data(contentsOf: root.appendingPathComponent(relative)) }
    func remove() { try? FileManager.default.removeItem(at: root) }
  }

  @Test func aPasteInTheSameLocationIsTheProvidersCopy() async throws {
    let disk = try Disk()
    defer { disk.remove() }
    let h = try Harness(more: [disk.domain])
    try await h.startAndLoad(at: disk.location)
    try await h.select("a.txt")
    h.type(.character("y"))
    try await h.waitForScreen(containing: "Copied “a.txt” — p pastes")
    try await h.select("Docs")
    h.type(.enter)
    try await waitUntil("Docs, empty") { h.browsePath == disk.path.appending(ItemName("Docs")) }
    try await h.waitForListing()
    h.type(.character("p"))
    try await waitUntil("the copy listed in Docs") { h.listedNames == ["a.txt"] }
    try await h.waitForScreen(containing: "Copied 1 item")
    #expect(disk.bytes("Docs/a.txt") == Data("alpha".utf8))
    #expect(disk.bytes("a.txt") == Data("alpha".utf8), "a copy, not a move")
    try await h.quit()
  }

  @Test func aPasteFromDiskIntoTheRemoteLocationQueuesUploadsThatReachTheProvider() async throws {
    let disk = try Disk()
    defer { disk.remove() }
    let h = try Harness(more: [disk.domain])
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad(at: disk.location)
    try await h.select("Folder")
    h.type(.character(" "))
    // Space marks and moves down: wait for it before moving from where the cursor then is.
    try await waitUntil("Folder marked") { h.state.browse.marked.count == 1 && h.terminal.pendingKeys == 0 }
    try await h.select("a.txt")
    h.type(.character(" "), .character("y"))
    try await h.waitForScreen(containing: "Copied 2 items — p pastes")
    try await h.chooseInSidebar("Memory") {
      if case .location(let l) = $0 { return l.domain == .local }
      return false
    }
    try await waitUntil("the memory location") { h.browsePath == .root && h.listedNames == Fixture.topNames }
    try await h.waitForListing()
    h.type(.character("p"))
    try await h.waitForScreen(containing: "Queued 2 uploads, made 1 folder")
    // The queue sends them; the folder lists them once they are there.
    try await waitUntil("both uploads on the provider") {
      let a = try? await h.provider.item(at: ItemPath("/a.txt"))
      let inner = try? await h.provider.item(at: ItemPath("/Folder/inner.txt"))
      guard let a, let inner else { return false }
      let aBytes = await h.provider.content(of: a.identifier)
      let innerBytes = await h.provider.content(of: inner.identifier)
      return aBytes == Data("alpha".utf8) && innerBytes == Data("inside".utf8)
    }
    try await waitUntil("the folder listing the pasted items") {
      h.listedNames.contains("a.txt") && h.listedNames.contains("Folder")
    }
    try await h.quit()
  }

  @Test func aPasteFromTheRemoteLocationIntoDiskDownloadsAndNeverReplaces() async throws {
    let disk = try Disk()
    defer { disk.remove() }
    try Data("mine".utf8).write(to: disk.root.appendingPathComponent("notes.txt"))
    let h = try Harness(more: [disk.domain])
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.select("notes.txt")
    h.type(.character("y"))
    try await h.waitForScreen(containing: "Copied “notes.txt”")
    try await h.openLocation("Disk", disk.domain.identifier)
    h.type(.character("p"))
    try await waitUntil("the copy listed beside the file it did not replace") { h.listedNames.contains("notes 2.txt") }
    try await h.waitForScreen(containing: "Copied 1 file here")
    #expect(disk.bytes("notes.txt") == Data("mine".utf8))
    #expect(disk.bytes("notes 2.txt") == Data("hello".utf8))
    try await h.quit()
  }

  /// A remote folder into a local one: made here, its files downloaded and written inside.
  @Test func aRemoteFolderPastedIntoDiskBringsItsFiles() async throws {
    let disk = try Disk()
    defer { disk.remove() }
    let h = try Harness(more: [disk.domain])
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.select("Documents")
    h.type(.character("y"))
    try await h.waitForScreen(containing: "Copied “Documents”")
    try await h.openLocation("Disk", disk.domain.identifier)
    h.type(.character("p"))
    try await h.waitForScreen(containing: "Copied 1 file here, made 1 folder")
    try await waitUntil("the folder listed") { h.listedNames.contains("Documents") }
    #expect(disk.bytes("Documents/report.txt") == Data("q3".utf8))
    try await h.quit()
  }

  /// One remote location into another: each file downloaded from the first, its upload queued to
  /// the second; folders made there first.
  @Test func aPasteBetweenTwoRemoteLocationsDownloadsThenUploads() async throws {
    let team = DomainIdentifier(unchecked: "team")
    let other = InMemoryProvider(domain: team)
    let h = try Harness(more: [Domain(identifier: team, displayName: "Team", provider: other, localRoot: nil)])
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.select("Documents")
    h.type(.character(" "))
    try await waitUntil("Documents marked") { h.state.browse.marked.count == 1 && h.terminal.pendingKeys == 0 }
    try await h.select("notes.txt")
    h.type(.character(" "), .character("y"))
    try await h.waitForScreen(containing: "Copied 2 items — p pastes")
    try await h.openLocation("Team", team)
    h.type(.character("p"))
    try await h.waitForScreen(containing: "Queued 2 uploads, made 1 folder")
    try await waitUntil("both files on the other provider, byte for byte") {
      guard let notes = try? await other.item(at: ItemPath("/notes.txt")),
        let report = try? await other.item(at: ItemPath("/Documents/report.txt"))
      else { return false }
      let a = await other.content(of: notes.identifier)
      let b = await other.content(of: report.identifier)
      return a == Data("hello".utf8) && b == Data("q3".utf8)
    }
    try await waitUntil("the pasted items listed in Team") {
      h.listedNames.contains("Documents") && h.listedNames.contains("notes.txt")
    }
    // The source is untouched: a copy, not a move.
    let source = try await h.provider.item(at: ItemPath("/Documents/report.txt"))
    #expect(await h.provider.content(of: source.identifier) == Data("q3".utf8))
    try await h.quit()
  }

  /// Issue 9 item 6: a server location that cannot be reached takes the paste as `folio put`
  /// does (journaled, sent when it is back), into the folder on screen; only a folder, which
  /// nothing journals, is refused.
  @Test func aPasteIntoAnUnreachableLocationQueuesTheFiles() async throws {
    let disk = try Disk()
    defer { disk.remove() }
    let team = DomainIdentifier(unchecked: "team")
    let other = InMemoryProvider(domain: team)
    let docs = try await other.add(ItemName("Docs"), folder: true)
    let h = try Harness(more: [disk.domain, Domain(identifier: team, displayName: "Team", provider: other, localRoot: nil)])
    try await h.startAndLoad(at: disk.location)
    try await h.select("Folder")
    h.type(.character(" "))
    try await waitUntil("Folder marked") { h.state.browse.marked.count == 1 && h.terminal.pendingKeys == 0 }
    try await h.select("a.txt")
    h.type(.character(" "), .character("y"))
    try await h.waitForScreen(containing: "Copied 2 items — p pastes")
    try await h.openLocation("Team", team)
    try await h.select("Docs")
    h.type(.enter)
    try await waitUntil("in Docs") { h.browsePath == ItemPath("/Docs") }
    try await h.waitForListing()
    await other.setHook { _ throws(ProviderError) in throw ProviderError(.serverUnreachable, "cannot reach Team: Connection refused") }
    h.type(.character("p"))
    try await waitUntil("the paste said something") { 
      let t = h.state.message?.text ?? ""
      return t.contains("Queued") || t.contains("Could not") || t.contains("Nothing")
    }
    #expect(h.state.message?.text.hasPrefix("Queued 1 upload (the server cannot be reached: they go when it is back)") == true, "\(h.state.message?.text ?? "")")
    let journal = try h.index.pendingTransfers(domain: team)
    #expect(journal.count == 1)
    #expect(journal.first?.parentIdentifier == docs.identifier && journal.first?.name == ItemName("a.txt"), "\(journal)")
    let said = h.state.message?.text ?? ""
    #expect(said.contains("Could not paste Folder: Team cannot be reached"), "the folder is said, not dropped: \(said)")
    try await h.quit()
  }

  @Test func aSignedOutTargetAsksToSignInThenPastesWhatWasLeft() async throws {
    let disk = try Disk()
    defer { disk.remove() }
    let team = DomainIdentifier(unchecked: "team")
    let backing = InMemoryProvider(domain: team)
    let auth = AuthenticatingProvider(backing: backing, user: "ana", secret: "pw")
    try await auth.authenticate(Credentials(user: "ana", secret: "pw"))
    let h = try Harness(more: [disk.domain, Domain(identifier: team, displayName: "Team", provider: auth, localRoot: nil)])
    try await h.startAndLoad(at: disk.location)
    try await h.select("a.txt")
    h.type(.character("y"))
    try await h.openLocation("Team", team)
    await auth.signOut()
    h.type(.character("p"))
    try await waitUntil("the sign-in prompt for Team") {
      if case .auth(let a) = h.state.overlay { return a.domain == team }
      return false
    }
    let early = try? await backing.item(at: ItemPath("/a.txt"))
    #expect(early == nil, "nothing pasted before the sign-in")
    h.type(text: "ana")
    h.type(.enter)
    h.type(text: "pw")
    h.type(.enter)
    try await waitUntil("the upload on the provider after the sign-in") {
      guard let a = try? await backing.item(at: ItemPath("/a.txt")) else { return false }
      return await backing.content(of: a.identifier) == Data("alpha".utf8)
    }
    try await h.quit()
  }

  @Test func pasteIntoRecentlyDeletedIsRefusedWithoutAnyCall() async throws {
    let h = try Harness()
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.select("notes.txt")
    h.type(.character("y"))
    try await h.chooseInSidebar("Recently Deleted") {
      if case .trash = $0 { return true }
      return false
    }
    try await waitUntil("Recently Deleted") { h.isInTrash }
    try await h.waitForListing()
    h.type(.character("p"))
    try await h.waitForScreen(containing: "Cannot paste into Recently Deleted")
    try await h.quit()
  }
}

extension Harness {
  /// Chooses the location `name` in the sidebar and waits until its top folder is listed.
  func openLocation(_ name: String, _ domain: DomainIdentifier, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await chooseInSidebar(name, sourceLocation: sourceLocation) {
      if case .location(let l) = $0 { return l.domain == domain }
      return false
    }
    try await waitUntil("\(name), listed", sourceLocation: sourceLocation) { state.browse.location.domain == domain }
    try await waitForListing(sourceLocation: sourceLocation)
  }
}
