import BrowserApp
import BrowserUI
import FolioConfig
import Foundation
import ProviderAPI
import ProviderCore
import TestSupport
import Testing
import WorkingSetIndex

/// Operations through the menu and pickers, checked in the provider, the index and on screen.
@MainActor
@Suite struct OperationHarnessTests {
  @Test func renameThroughTheMenuRenamesInTheProviderAndTheIndex() async throws {
    let h = try Harness()
    let f = await Fixture.populate(h.provider)
    try h.services.items.recordOpen(f.notes, in: h.domain)
    try await h.startAndLoad()
    try await h.select("notes.txt")
    try await h.chooseFromMenu("Rename…")
    try await waitUntil("the rename prompt with the old name") { h.prompt?.editor.string == "notes.txt" }
    h.type(.control("u"))
    h.type(text: "minutes.txt")
    try await waitUntil("the new name typed") { h.prompt?.editor.string == "minutes.txt" }
    try await h.waitForScreen(containing: "minutes.txt")
    h.type(.enter)
    try await waitUntil("the list with the new name") {
      h.state.overlay == nil && h.listedNames == ["Archive", "Documents", "minutes.txt", "photo.png"]
        && h.state.currentItem?.identifier == f.notes.identifier
    }
    try await h.waitForScreen(containing: "Renamed to minutes.txt")

    let renamed = try await h.provider.item(for: f.notes.identifier, pathHint: nil)
    #expect(renamed.filename == ItemName("minutes.txt"))
    #expect(renamed.path == ItemPath("/minutes.txt"))
    await #expect(throws: ProviderError.self) { try await h.provider.item(at: ItemPath("/notes.txt")) }
    let indexed = try h.index.item(domain: .local, identifier: f.notes.identifier)
    #expect(indexed?.name == ItemName("minutes.txt"))
    #expect(indexed?.path == ItemPath("/minutes.txt"))
    try await waitUntil("Recents to follow the rename") {
      h.state.recents.rows.map(\.item.filename) == [ItemName("minutes.txt")]
    }
    try await h.quit()
  }

  @Test func aRenameCollisionKeepsThePromptOpenWithTheError() async throws {
    let h = try Harness()
    let f = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.select("notes.txt")
    try await h.chooseFromMenu("Rename…")
    try await waitUntil("the rename prompt") { h.prompt != nil }
    h.type(.control("u"))
    h.type(text: "photo.png")
    h.type(.enter)
    try await waitUntil("the prompt to show the collision") { h.prompt?.error != nil }
    #expect(h.prompt?.error?.contains("already exists") == true)
    #expect(h.prompt?.editor.string == "photo.png")
    try await h.waitForScreen(containing: "already exists")
    // Nothing moved.
    let notes = try await h.provider.item(at: ItemPath("/notes.txt"))
    #expect(notes.identifier == f.notes.identifier)
    #expect(try await h.provider.item(at: ItemPath("/photo.png")).identifier == f.photo.identifier)

    // Fixed in place: the same prompt takes another name.
    h.type(.control("u"))
    h.type(text: "notes-2.txt")
    try await waitUntil("the error cleared while editing") { h.prompt?.error == nil && h.prompt?.editor.string == "notes-2.txt" }
    h.type(.enter)
    try await waitUntil("the list with the fixed name") {
      h.state.overlay == nil && h.listedNames == ["Archive", "Documents", "notes-2.txt", "photo.png"]
    }
    #expect(try await h.provider.item(at: ItemPath("/notes-2.txt")).identifier == f.notes.identifier)
    try await h.quit()
  }

  @Test func tagsThroughTheTagPicker() async throws {
    let h = try Harness()
    let f = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.select("notes.txt")
    try await h.chooseFromMenu("Tags…")
    try await waitUntil("the tag picker") { h.tagPicker != nil }
    try await h.waitForScreen(containing: "Purple")
    #expect(h.tagPicker?.tags.first?.name == "Red")
    h.type(.enter)
    try await waitUntil("Red stored by the provider") {
      try await h.provider.item(for: f.notes.identifier, pathHint: nil).tags == ["Red"]
    }
    try await waitUntil("Red checked in the picker") { h.tagPicker?.tags.first?.mark == .all }
    #expect(try h.index.tags(of: [f.notes.identifier], domain: .local)[f.notes.identifier] == ["Red"])
    h.type(.escape)
    try await waitUntil("the list and the sidebar to show the tag") {
      h.state.overlay == nil && h.state.browse.list.loadedItems.first { $0.identifier == f.notes.identifier }?.tags == ["Red"]
        && h.state.sidebar.tags.map(\.name) == ["Red"]
    }
    try await h.waitForScreen(containing: "Tags")
    #expect(h.screen.contains("● Red"))
    try await h.quit()
  }

  @Test func aFavoriteShowsInTheSidebarAndTakesYouThere() async throws {
    let h = try Harness()
    let f = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.select("Documents")
    try await h.chooseFromMenu("Favorite")
    try await waitUntil("Documents under Favorites") {
      h.state.sidebar.favorites.map(\.item.identifier) == [f.documents.identifier]
    }
    try await h.waitForScreen(containing: "★ Documents")
    #expect(h.screen.contains("Favorites"))
    #expect(try h.index.favorites().map(\.identifier) == [f.documents.identifier])
    try await waitUntil("the row marked favorite") {
      h.state.browse.list.loadedItems.first { $0.identifier == f.documents.identifier }?.isFavorite == true
    }

    try await h.chooseInSidebar("the Documents favorite") {
      if case .favorite(let row) = $0 { return row.item.identifier == f.documents.identifier }
      return false
    }
    try await h.waitUntilListed(in: ItemPath("/Documents"), ["report.txt"])
    try await h.waitForScreen(containing: "report.txt")

    // And back: the menu now offers Unfavorite.
    h.type(.backspace)
    try await h.waitUntilListed(in: .root, Fixture.topNames)
    try await waitUntil("the cursor on Documents") { h.state.currentItem?.identifier == f.documents.identifier }
    try await h.chooseFromMenu("Unfavorite")
    try await waitUntil("Favorites empty") { h.state.sidebar.favorites.isEmpty }
    #expect(try h.index.favorites().isEmpty)
    try await h.quit()
  }

  /// The sync engine (or `folio tag` in another terminal) writes the index while the browser is
  /// open: the sidebar follows without a key being pressed.
  @Test func theSidebarFollowsFavoritesAndTagsWrittenByOthers() async throws {
    let h = try Harness()
    let f = await Fixture.populate(h.provider)
    // A tag from before the start, so the first read is known to be done before the writes.
    try h.index.setTags(["Red"], of: f.photo, domain: .local)
    try await h.startAndLoad()
    try await waitUntil("the sidebar read once") { h.state.sidebar.tags.map(\.name) == ["Red"] }
    try h.index.setFavorite(true, item: f.documents, domain: .local)
    try h.index.setTags(["Green"], of: f.notes, domain: .local)
    try await waitUntil("Documents and Green in the sidebar", explain: { "\(h.state.sidebar)" }) {
      h.state.sidebar.favorites.map(\.item.identifier) == [f.documents.identifier]
        && h.state.sidebar.tags.map(\.name) == ["Green", "Red"]
    }
    try await h.waitForScreen(containing: "★ Documents")
    try h.index.setTags([], of: f.notes, domain: .local)
    try h.index.setFavorite(false, item: f.documents, domain: .local)
    try await waitUntil("Green and Documents gone", explain: { "\(h.state.sidebar)" }) {
      h.state.sidebar.tags.map(\.name) == ["Red"] && h.state.sidebar.favorites.isEmpty
    }
    try await h.quit()
  }

  @Test func deleteThenRestoreFromRecentlyDeleted() async throws {
    let h = try Harness()
    let f = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.select("notes.txt")
    try await h.chooseFromMenu("Delete")
    try await h.waitUntilListed(in: .root, ["Archive", "Documents", "photo.png"])
    try await h.waitForScreen(containing: "Moved notes.txt to Recently Deleted")
    #expect(!h.terminal.lines.dropLast().contains { $0.contains("notes.txt") }, "only the status message names it")
    #expect(try h.index.trashed(domain: .local).map(\.identifier) == [f.notes.identifier])

    try await h.chooseInSidebar("Recently Deleted") {
      if case .trash = $0 { return true }
      return false
    }
    try await waitUntil("Recently Deleted listing notes.txt") {
      h.isInTrash && !h.state.browse.isLoading && h.listedNames == ["notes.txt"]
    }
    try await h.waitForScreen(containing: "notes.txt")
    #expect(h.screen.contains(" Recently Deleted"))
    #expect(h.screen.contains("Deleted"))

    try await h.chooseFromMenu("Restore")
    try await waitUntil("Recently Deleted empty") { h.isInTrash && !h.state.browse.isLoading && h.listedNames.isEmpty }
    try await h.waitForScreen(containing: "Restored notes.txt")
    let restored = try await h.provider.item(at: ItemPath("/notes.txt"))
    #expect(restored.identifier == f.notes.identifier)
    #expect(try h.index.trashed(domain: .local).isEmpty)

    h.type(.backspace)
    try await h.waitUntilListed(in: .root, Fixture.topNames)
    try await h.waitForScreen(containing: "notes.txt")
    try await h.quit()
  }

  @Test func recentsShowsAnItemOnceItWasOpened() async throws {
    let h = try Harness()
    let f = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.select("notes.txt")
    #expect(h.state.recents.rows.isEmpty)
    h.type(.enter)
    // The opener has the terminal between suspend and resume; keys typed meanwhile wait.
    h.type(.tab)
    // Recents can list the item before the opener returns (the content cache records the copy
    // it made for the opener in the working set), so wait for the opener first.
    try await waitUntil("the opener to return and the screen redrawn after it") {
      guard h.terminal.count(of: .resume) == 1, !h.terminal.isSuspended,
        let resumed = h.terminal.events.lastIndex(of: .resume)
      else { return false }
      return h.terminal.events[resumed...].contains(.present)
    }
    try await waitUntil("Recents listing notes.txt") {
      h.state.tab == .recents && h.state.recents.rows.map(\.item.identifier) == [f.notes.identifier]
    }
    // The Recents screen, drawn (the state changes a turn before the screen does).
    try await waitUntil("Recents on the screen") {
      h.screen.contains(" Recents") && h.terminal.statusLine.contains("1 recent item")
    }
    #expect(h.screen.contains("notes.txt"))
    #expect(try h.index.recents(limit: 10).map(\.identifier) == [f.notes.identifier])

    let events = h.terminal.events
    #expect(h.terminal.count(of: .suspend) == 1)
    #expect(h.terminal.count(of: .resume) == 1)
    let suspended = try #require(events.firstIndex(of: .suspend))
    let resumed = try #require(events.firstIndex(of: .resume))
    #expect(suspended < resumed)
    #expect(events[resumed...].contains(.present), "a full redraw after the opener")
    #expect(!h.terminal.isSuspended)
    try await h.quit()
  }

  @Test func anOpenerThatFailsSaysSo() async throws {
    let failing = OpenerResolver(
      rules: [OpenerRule(match: .extensions(["txt"]), argv: ["/bin/false", "{path}"])], environment: [:],
      isAvailable: { _ in false })
    let h = try Harness(openers: failing)
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.select("notes.txt")
    h.type(.enter)
    try await h.waitForScreen(containing: "exited with status 1")
    #expect(h.terminal.count(of: .suspend) == 1 && h.terminal.count(of: .resume) == 1)
    try await h.quit()
  }

  /// Issue 9 item 7: a file locked by someone else opened writable with no warning, and the
  /// edit only failed at upload. It is said before opening, and the opener gets the copy
  /// read-only (its write permission is given back afterwards).
  @Test func aFileLockedBySomeoneElseOpensReadOnlyAndSaysWhy() async throws {
    let record = FileManager.default.temporaryDirectory.appendingPathComponent("folio-ro-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: record) }
    let script = record.path + ".sh"
    // The mode, not `test -w` (which root passes whatever the mode).
    // Written aside and renamed: the file is complete whenever the test sees it (the shell made
    // it empty before stat wrote, and a run under load read it then).
    try "#!/bin/sh\nstat -c %A \"$1\" > '\(record.path).tmp' && mv '\(record.path).tmp' '\(record.path)'\n"
      .write(toFile: script, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: script) }
    chmod(script, 0o755)
    let opener = OpenerResolver(
      rules: [OpenerRule(match: .extensions(["md"]), argv: [script, "{path}"])], environment: [:], isAvailable: { _ in false })
    let h = try Harness(openers: opener)
    let item = await h.provider.add(
      ItemName("Release checklist.md"), content: Data("- [ ] tag\n".utf8), userInfo: ["locked": .bool(true), "lockedBy": .string("ben")],
      capabilities: ItemCapabilities.all.subtracting(.writing))
    try await h.startAndLoad()
    try await h.select("Release checklist.md")
    h.type(.enter)
    try await waitUntil("the opener ran") { FileManager.default.fileExists(atPath: record.path) }
    let mode = try String(contentsOf: record, encoding: .utf8)
    #expect(mode.hasPrefix("-r") && !mode.contains("w"), "the opener got \(mode)")
    try await h.waitForScreen(containing: "Release checklist.md is locked by ben: it was opened read-only")
    let copy = try #require(try h.engine.store.localFile(domain: .local, identifier: item.identifier))
    let after = try FileManager.default.attributesOfItem(atPath: copy.url.path)[.posixPermissions] as? Int
    #expect((after ?? 0) & 0o200 != 0, "the cache's copy is writable again")
    try await h.quit()
  }

  @Test func aProviderActionAppearsInTheMenuAndRuns() async throws {
    let pin = ActionIdentifier("com.example.pin")
    let share = ActionIdentifier("com.example.share")
    let p = InMemoryProvider(
      domain: .local,
      actions: [
        ActionDeclaration(identifier: pin, name: "Pin for Offline", activationRule: try ActivationRule(parsing: "isFolder == NO")),
        ActionDeclaration(
          identifier: share, name: "Share Folder", activationRule: try ActivationRule(parsing: "count == 1 AND isFolder == YES")),
      ])
    let h = try Harness(provider: p)
    let f = await Fixture.populate(p)
    try await h.startAndLoad()
    try await h.select("notes.txt")
    h.type(.character("m"))
    try await waitUntil("the menu") { h.menu != nil }
    try await h.waitForScreen(containing: "Pin for Offline")
    #expect(!h.screen.contains("Share Folder"))
    h.type(.escape)
    try await waitUntil("the menu closed") { h.state.overlay == nil }

    try await h.chooseFromMenu("Pin for Offline")
    try await waitUntil("the provider to perform the action") { await p.performedActions.count == 1 }
    let performed = await p.performedActions
    #expect(performed.first?.0 == pin)
    #expect(performed.first?.1 == [f.notes.identifier])
    try await h.waitForScreen(containing: "Pin for Offline done")
    #expect(h.terminal.count(of: .suspend) == 0, "a provider action runs without giving the terminal away")
    try await h.quit()
  }
}
