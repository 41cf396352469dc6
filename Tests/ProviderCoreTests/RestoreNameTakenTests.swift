import Foundation
import LocalProvider
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// Restore when the name is taken where the item was: Keep Both gives it the first free "name N"
/// (Finder's and Files' way), Replace sends the item holding the name to Recently Deleted first.
@Suite struct RestoreNameTakenTests {
  @Test func keepBothOnAMemoryLocationNumbersTheRestoredItem() async throws {
    let f = try MemoryFixture()
    let file = await f.memory.add(ItemName("a.txt"), content: Data("old".utf8))
    let trashed = try await f.service.trash(file, in: f.domain)
    let newer = await f.memory.add(ItemName("a.txt"), content: Data("new".utf8))
    _ = await f.memory.add(ItemName("a 2.txt"), content: Data("taken too".utf8))

    let restored = try await f.service.restore(trashed, in: f.domain, ifTaken: .keepBoth)
    #expect(restored.identifier == file.identifier)
    #expect(restored.path == ItemPath("/a 3.txt"))
    #expect(try await f.memory.item(at: ItemPath("/a.txt")).identifier == newer.identifier)
    #expect(try f.index.trashed().isEmpty)
  }

  @Test func replaceOnAMemoryLocationSendsTheOtherToRecentlyDeleted() async throws {
    let f = try MemoryFixture()
    let file = await f.memory.add(ItemName("a.txt"), content: Data("old".utf8))
    let trashed = try await f.service.trash(file, in: f.domain)
    let newer = await f.memory.add(ItemName("a.txt"), content: Data("new".utf8))

    let restored = try await f.service.restore(trashed, in: f.domain, ifTaken: .replace)
    #expect(restored.path == ItemPath("/a.txt"))
    #expect(try await f.memory.item(at: ItemPath("/a.txt")).identifier == file.identifier)
    #expect(try await f.memory.item(for: newer.identifier).isTrashed)
    #expect(try f.index.trashed().map(\.identifier) == [newer.identifier])
  }

  @Test func keepBothOnThisComputerRestoresBesideTheOtherFile() async throws {
    let f = try LocalFixture()
    let path = f.tmp.makeFile("notes.txt", content: "mine")
    let trashed = try await f.service.trash(try await f.item(path), in: f.domain)
    _ = f.tmp.makeFile("notes.txt", content: "theirs")

    let refused = await #expect(throws: ProviderError.self) { try await f.service.restore(trashed, in: f.domain) }
    #expect(refused?.code == .filenameCollision)
    let restored = try await f.service.restore(trashed, in: f.domain, ifTaken: .keepBoth)
    #expect(restored.path == path.parent.appending(ItemName("notes 2.txt")))
    #expect(try String(contentsOfFile: restored.path.lossyString, encoding: .utf8) == "mine")
    #expect(try String(contentsOfFile: path.lossyString, encoding: .utf8) == "theirs")
    #expect(try await f.service.trashedItems(in: f.domain).isEmpty)
  }

  @Test func replaceOnThisComputerTrashesTheOtherFile() async throws {
    let f = try LocalFixture()
    let path = f.tmp.makeFile("notes.txt", content: "mine")
    let trashed = try await f.service.trash(try await f.item(path), in: f.domain)
    _ = f.tmp.makeFile("notes.txt", content: "theirs")

    _ = try await f.service.restore(trashed, in: f.domain, ifTaken: .replace)
    #expect(try String(contentsOfFile: path.lossyString, encoding: .utf8) == "mine")
    let inTrash = try await f.service.trashedItems(in: f.domain)
    #expect(inTrash.count == 1 && inTrash.first?.originalPath == path)
  }
}
