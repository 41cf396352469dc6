import BrowserApp
import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore
import Testing
import TestSupport
import WorkingSetIndex

/// Acting on items through the loop and a provider (issue 13 §4): cut and paste moves, undo and
/// redo check the world before they touch it, the folder size is counted in the background.
@MainActor
@Suite struct ActsHarnessTests {
  /// Renames notes.txt to memo.txt with `r`.
  func renameNotes(_ h: Harness) async throws {
    try await h.select("notes.txt")
    h.type(.character("r"), .control("u"))
    h.type(text: "memo.txt")
    h.type(.enter)
    try await h.waitUntilListed(in: .root, ["Archive", "Documents", "memo.txt", "photo.png"])
  }

  @Test func aRenameIsUndoneAndRedoneKeepingTheItem() async throws {
    let h = try Harness()
    let f = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await renameNotes(h)
    h.type(.character("u"))
    try await h.waitUntilListed(in: .root, Fixture.topNames)
    try await h.waitForScreen(containing: "Undid the rename of “notes.txt”")
    #expect(try await h.provider.item(at: ItemPath("/notes.txt")).identifier == f.notes.identifier)
    h.type(.character("U"))
    try await h.waitUntilListed(in: .root, ["Archive", "Documents", "memo.txt", "photo.png"])
    try await h.waitForScreen(containing: "Redid the rename of “notes.txt”")
    #expect(try await h.provider.item(at: ItemPath("/memo.txt")).identifier == f.notes.identifier)
    try await h.quit()
  }

  @Test func anUndoIsRefusedWhenTheItemChangedSinceAndNothingIsTouched() async throws {
    let h = try Harness()
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await renameNotes(h)
    // Edited elsewhere after the rename: its content version moves on.
    let memo = try await h.provider.item(at: ItemPath("/memo.txt"))
    let edit = FileManager.default.temporaryDirectory.appendingPathComponent("folio-acts-\(UUID().uuidString)")
    try Data("edited".utf8).write(to: edit)
    defer { try? FileManager.default.removeItem(at: edit) }
    _ = try await h.provider.modifyItem(ItemTemplate(memo), baseVersion: memo.version, changedFields: .contents, contents: edit)
    h.type(.character("u"))
    try await h.waitForScreen(containing: "Cannot undo: “memo.txt” was changed since")
    #expect(await h.provider.content(of: memo.identifier) == Data("edited".utf8))
    #expect(try await h.provider.item(at: ItemPath("/memo.txt")).identifier == memo.identifier)
    await #expect(throws: ProviderError.self) { try await h.provider.item(at: ItemPath("/notes.txt")) }
    try await h.quit()
  }

  @Test func anUndoIsRefusedWhenTheOldNameIsTakenMeanwhile() async throws {
    let h = try Harness()
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await renameNotes(h)
    let other = await h.provider.add(ItemName("notes.txt"), content: Data("new".utf8))
    h.type(.character("u"))
    try await h.waitForScreen(containing: "Cannot undo: “notes.txt” is taken in /")
    #expect(try await h.provider.item(at: ItemPath("/notes.txt")).identifier == other.identifier)
    try await h.quit()
  }

  @Test func aDeletionIsUndoneFromRecentlyDeleted() async throws {
    let h = try Harness()
    let f = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.select("notes.txt")
    h.type(.character("d"))
    try await h.waitUntilListed(in: .root, ["Archive", "Documents", "photo.png"])
    h.type(.character("u"))
    try await h.waitUntilListed(in: .root, Fixture.topNames)
    try await h.waitForScreen(containing: "Undid the deletion of “notes.txt”")
    #expect(try await h.provider.item(at: ItemPath("/notes.txt")).identifier == f.notes.identifier)
    #expect(try h.index.trashed(domain: .local).isEmpty)
    // Redo deletes it again.
    h.type(.character("U"))
    try await h.waitUntilListed(in: .root, ["Archive", "Documents", "photo.png"])
    #expect(try h.index.trashed(domain: .local).map(\.identifier) == [f.notes.identifier])
    try await h.quit()
  }

  @Test func cutAndPasteMovesWithinALocationAndUndoPutsItBack() async throws {
    let h = try Harness()
    let f = await Fixture.populate(h.provider)
    try h.index.setFavorite(true, item: f.notes, domain: .local)
    try await h.startAndLoad()
    try await h.select("notes.txt")
    h.type(.character("x"))
    try await h.waitForScreen(containing: "Cut “notes.txt” — p moves it here")
    try await h.select("Documents")
    h.type(.enter)
    try await h.waitUntilListed(in: ItemPath("/Documents"), ["report.txt"])
    h.type(.character("p"))
    try await h.waitUntilListed(in: ItemPath("/Documents"), ["notes.txt", "report.txt"])
    try await h.waitForScreen(containing: "Moved “notes.txt” here")
    let moved = try await h.provider.item(at: ItemPath("/Documents/notes.txt"))
    #expect(moved.identifier == f.notes.identifier, "a move, the same item")
    let listed = h.state.browse.list.loadedItems.first { $0.identifier == moved.identifier }
    #expect(listed?.isFavorite == true, "its favorite went with it")
    #expect(h.state.clipboard == nil)
    h.type(.character("u"))
    try await h.waitUntilListed(in: ItemPath("/Documents"), ["report.txt"])
    #expect(try await h.provider.item(at: ItemPath("/notes.txt")).identifier == f.notes.identifier)
    try await h.quit()
  }

  @Test func aCutPastedWhereTheNameIsTakenKeepsBoth() async throws {
    let h = try Harness()
    let f = await Fixture.populate(h.provider)
    let top = await h.provider.add(ItemName("report.txt"), content: Data("top".utf8))
    try await h.startAndLoad()
    try await h.select("report.txt")
    h.type(.character("x"))
    try await h.select("Documents")
    h.type(.enter)
    try await h.waitUntilListed(in: ItemPath("/Documents"), ["report.txt"])
    h.type(.character("p"))
    try await h.waitUntilListed(in: ItemPath("/Documents"), ["report 2.txt", "report.txt"])
    try await h.waitForScreen(containing: "(1 renamed: the name was taken)")
    #expect(try await h.provider.item(at: ItemPath("/Documents/report 2.txt")).identifier == top.identifier)
    #expect(try await h.provider.item(at: ItemPath("/Documents/report.txt")).identifier == f.report.identifier)
    try await h.quit()
  }

  @Test func aCutPastedIntoAnotherLocationIsCopiedThenRemovedFromTheSource() async throws {
    let disk = try PasteHarnessTests.Disk()
    defer { disk.remove() }
    let h = try Harness(more: [disk.domain])
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad(at: disk.location)
    try await h.select("a.txt")
    h.type(.character("x"))
    try await h.waitForScreen(containing: "Cut “a.txt”")
    try await h.chooseInSidebar("Memory") {
      if case .location(let l) = $0 { return l.domain == .local }
      return false
    }
    try await waitUntil("the memory location") { h.browsePath == .root && h.listedNames == Fixture.topNames }
    h.type(.character("p"))
    try await waitUntil("a.txt uploaded and removed from the disk") {
      disk.bytes("a.txt") == nil
    }
    let uploaded = try await h.provider.item(at: ItemPath("/a.txt"))
    #expect(await h.provider.content(of: uploaded.identifier) == Data("alpha".utf8))
    try await h.waitForScreen(containing: "Moved “a.txt” to")
    try await h.quit()
  }

  /// Rename in Editor undoes as one step: a swap of two names goes back through temporary names.
  @Test(arguments: [false, true])
  func aBulkRenameSwapIsUndoneAsOneStep(pathKeyed: Bool) async throws {
    let (editor, script) = try BulkRenameHarnessTests.reversingEditor()
    defer { try? FileManager.default.removeItem(atPath: script) }
    let h = try Harness(openers: editor, pathKeyed: pathKeyed)
    await h.provider.add(ItemName("first.txt"), content: Data("1".utf8))
    await h.provider.add(ItemName("second.txt"), content: Data("2".utf8))
    try await h.startAndLoad()
    h.type(.character("R"))
    try await h.waitForScreen(containing: "Renamed 2 items")
    func contentAt(_ name: String) async throws -> String {
      let item = try await h.provider.item(at: ItemPath("/" + name))
      return String(decoding: await h.provider.content(of: item.identifier) ?? Data(), as: UTF8.self)
    }
    #expect(try await contentAt("first.txt") == "2")
    h.type(.character("u"))
    try await h.waitForScreen(containing: "Undid the rename of 2 items")
    #expect(try await contentAt("first.txt") == "1")
    #expect(try await contentAt("second.txt") == "2")
    try await waitUntil("no temporary name left") { h.listedNames == ["first.txt", "second.txt"] }
    try await h.quit()
  }

  @Test func theSizeOfAFolderIsCountedInInfoAndAnUnreadableFolderIsCounted() async throws {
    let h = try Harness()
    let f = await Fixture.populate(h.provider)
    let deep = await h.provider.add(ItemName("Deep"), in: f.documents.identifier, folder: true)
    await h.provider.add(ItemName("five.txt"), in: deep.identifier, content: Data("12345".utf8))
    try await h.startAndLoad()
    try await h.select("Documents")
    h.type(.character("i"))
    try await h.waitForScreen(containing: "press z to compute")
    h.type(.character("z"))
    // Documents: report.txt (2 bytes), Deep/, Deep/five.txt (5 bytes).
    try await h.waitForScreen(containing: "7 B (7 bytes) in 3 items")

    // The second folder listed refuses: it is counted as unreadable, the walk goes on.
    let enumerations = LockedCounter()
    await h.provider.setHook { call throws(ProviderError) in
      if call == .enumerate, enumerations.next() == 2 { throw ProviderError(.noPermission, "no") }
    }
    h.type(.character("z"))
    try await h.waitForScreen(containing: "2 B (2 bytes) in 2 items, 1 unreadable folder")
    h.type(.escape)
    try await waitUntil("Info closed") { h.state.overlay == nil }
    try await h.quit()
  }
}

extension ActsHarnessTests {
  /// A provider that stalls while the folder is counted: keys still act, Esc stops the count
  /// (Info stays, saying so), and what the stalled walk answers later is dropped.
  @Test func aStalledCountBlocksNoKeyAndEscStopsIt() async throws {
    let h = try Harness()
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.select("Documents")
    h.type(.character("i"))
    try await h.waitForScreen(containing: "press z to compute")
    let released = LockedCounter()
    await h.provider.setHook { call throws(ProviderError) in
      guard call == .enumerate else { return }
      while released.value == 0 { try? await Task.sleep(for: .milliseconds(5)) }
    }
    h.type(.character("z"))
    try await h.waitForScreen(containing: "counting… 0 items")
    h.type(.escape)
    try await h.waitForScreen(containing: "stopped at 0 items")
    h.type(.escape)
    try await waitUntil("Info closed") { h.state.overlay == nil }
    let before = h.state.browse.cursor
    h.type(.character("j"))
    try await waitUntil("the cursor moved while the walk is stalled") { h.state.browse.cursor == before + 1 }
    _ = released.next()
    try await h.quit()
  }
}

/// A counter a provider hook can step from any task.
final class LockedCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var n = 0
  var value: Int {
    lock.lock()
    defer { lock.unlock() }
    return n
  }
  func next() -> Int {
    lock.lock()
    defer { lock.unlock() }
    n += 1
    return n
  }
}

extension ActsHarnessTests {
  /// A folder moved on the disk, then given a new file inside: its move is still undone (a
  /// folder's content version follows what it holds; only a file's edits refuse).
  @Test func aFolderMovedThenFilledIsStillMovedBack() async throws {
    let disk = try PasteHarnessTests.Disk()
    defer { disk.remove() }
    let h = try Harness(more: [disk.domain])
    try await h.startAndLoad(at: disk.location)
    try await h.select("Folder")
    h.type(.character("x"))
    try await h.select("Docs")
    h.type(.enter)
    let docs = disk.path.appending(ItemName("Docs"))
    try await waitUntil("Docs, empty") { h.browsePath == docs && !h.state.browse.isLoading }
    h.type(.character("p"))
    try await h.waitUntilListed(in: docs, ["Folder"])
    // A second later, so the folder's modification time surely moves.
    let later = Date().addingTimeInterval(5)
    try Data("n".utf8).write(to: disk.root.appendingPathComponent("Docs/Folder/new.txt"))
    try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: disk.root.appendingPathComponent("Docs/Folder").path)
    h.type(.character("u"))
    try await h.waitForScreen(containing: "Undid the move of “Folder”")
    #expect(disk.bytes("Folder/new.txt") == Data("n".utf8) && disk.bytes("Folder/inner.txt") == Data("inside".utf8))
    try await h.quit()
  }
}
