import Foundation
import ProviderAPI
import TestExecution
import Testing

@testable import LocalProvider

#if canImport(Glibc)
  import Glibc
#endif

/// Its provider lists every trash of the mounts, /dev/shm's top-folder trash included, where
/// FreedesktopTrashTests puts an item for a moment: the two take turns (a restore once failed
/// on the other's entry).
@Suite(.exclusive("topdir-trash")) struct LocalProviderMutationTests {
  @Test func createFolderAndCollision() async throws {
    let tmp = TemporaryFolder()
    let provider = testProvider(tmp)
    let root = try await provider.item(at: tmp.path)
    let made = try await provider.createItem(
      ItemTemplate(parentIdentifier: root.identifier, filename: ItemName("New Folder"), contentType: .folder), fields: [],
      contents: nil, options: [])
    #expect(made.isFolder)
    do {
      _ = try await provider.createItem(
        ItemTemplate(parentIdentifier: root.identifier, filename: ItemName("New Folder"), contentType: .folder),
        fields: [], contents: nil, options: [])
      Issue.record("expected a collision")
    } catch {
      #expect(error.code == .filenameCollision)
      #expect(error.existingItem == made.identifier)
    }
  }

  @Test func renameOntoAnExistingNameFailsAndChangesNothing() async throws {
    let tmp = TemporaryFolder()
    tmp.makeFile("a", content: "A")
    tmp.makeFile("b", content: "B")
    let provider = testProvider(tmp)
    let a = try await provider.item(at: tmp.child("a"))
    var t = ItemTemplate(a)
    t.filename = ItemName("b")
    await #expect(throws: ProviderError.self) {
      _ = try await provider.modifyItem(t, baseVersion: a.version, changedFields: .filename, contents: nil)
    }
    #expect(tmp.listing() == [Array("a".utf8), Array("b".utf8)])
    #expect(try String(contentsOfFile: tmp.child("b").lossyString, encoding: .utf8) == "B")
  }

  @Test(arguments: NameCorpus.names.prefix(30))
  func renameToAHostileNameRoundTrips(_ name: [UInt8]) async throws {
    let tmp = TemporaryFolder()
    tmp.makeFile("plain")
    let provider = testProvider(tmp)
    let item = try await provider.item(at: tmp.child("plain"))
    var t = ItemTemplate(item)
    t.filename = ItemName(bytes: name)
    let renamed = try await provider.modifyItem(t, baseVersion: item.version, changedFields: .filename, contents: nil)
    #expect(renamed.filename.bytes == name)
    #expect(tmp.listing() == [name])
    #expect(renamed.identifier == item.identifier)
  }

  @Test func invalidNamesAreRefused() async throws {
    let tmp = TemporaryFolder()
    tmp.makeFile("plain")
    let provider = testProvider(tmp)
    let item = try await provider.item(at: tmp.child("plain"))
    for bad in ["", ".", "..", "a/b", String(repeating: "x", count: 256)] {
      var t = ItemTemplate(item)
      t.filename = ItemName(bad)
      await #expect(throws: ProviderError.self) {
        _ = try await provider.modifyItem(t, baseVersion: item.version, changedFields: .filename, contents: nil)
      }
    }
    #expect(tmp.listing() == [Array("plain".utf8)])
  }

  @Test func copyNamesDuplicatesLikeFinder() async throws {
    let tmp = TemporaryFolder()
    tmp.makeFile("report.txt", content: "data")
    let provider = testProvider(tmp)
    let root = try await provider.item(at: tmp.path)
    let item = try await provider.item(at: tmp.child("report.txt"))
    let c1 = try await provider.copyItem(item.identifier, to: root.identifier, name: nil)
    let c2 = try await provider.copyItem(item.identifier, to: root.identifier, name: nil)
    #expect(c1.filename.lossyString == "report copy.txt")
    #expect(c2.filename.lossyString == "report copy 2.txt")
    #expect(try String(contentsOfFile: c2.path.lossyString, encoding: .utf8) == "data")
    #expect(c1.identifier != item.identifier)
  }

  @Test func copyFolderTreeKeepsSymlinksAsLinks() async throws {
    let tmp = TemporaryFolder()
    let src = tmp.makeFolder("src")
    tmp.makeFile(Array("src/inner.txt".utf8), content: "in")
    _ = "/etc/passwd".withCString { t in src.appending(ItemName("link")).withCString { symlink(t, $0) } }
    let provider = testProvider(tmp)
    let root = try await provider.item(at: tmp.path)
    let s = try await provider.item(at: src)
    let copy = try await provider.copyItem(s.identifier, to: root.identifier, name: ItemName("dst"))
    #expect(tmp.listing(copy.path) == [Array("inner.txt".utf8), Array("link".utf8)])
    let link = try await provider.item(at: copy.path.appending(ItemName("link")))
    #expect(link.isSymlink)
    #expect(link.symlinkTargetPath == ItemPath("/etc/passwd"))
  }

  @Test func copyIntoItselfIsRefused() async throws {
    let tmp = TemporaryFolder()
    let src = tmp.makeFolder("src")
    let provider = testProvider(tmp)
    let s = try await provider.item(at: src)
    await #expect(throws: ProviderError.self) { _ = try await provider.copyItem(s.identifier, to: s.identifier, name: nil) }
  }

  @Test func deleteNonEmptyFolderNeedsRecursive() async throws {
    let tmp = TemporaryFolder()
    let f = tmp.makeFolder("f")
    tmp.makeFile(Array("f/x".utf8))
    let provider = testProvider(tmp)
    let item = try await provider.item(at: f)
    do {
      try await provider.deleteItem(item.identifier, baseVersion: nil, options: [])
      Issue.record("expected directoryNotEmpty")
    } catch { #expect(error.code == .directoryNotEmpty) }
    try await provider.deleteItem(item.identifier, baseVersion: nil, options: .recursive)
    #expect(tmp.listing().isEmpty)
    // An unknown identifier is success.
    try await provider.deleteItem(item.identifier, baseVersion: nil, options: .recursive)
  }

  @Test func trashAndRestoreKeepIdentityAndBytes() async throws {
    let tmp = TemporaryFolder()
    let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(" \u{1B}[31m.txt".utf8)
    tmp.makeFile(name, content: "keep me")
    let provider = testProvider(tmp)
    let item = try await provider.item(at: tmp.child(name))
    var t = ItemTemplate(item)
    t.parentIdentifier = .trash
    let trashed = try await provider.modifyItem(t, baseVersion: item.version, changedFields: .parentItemIdentifier, contents: nil)
    #expect(trashed.isTrashed)
    #expect(trashed.identifier == item.identifier)
    #expect(trashed.originalPath == tmp.child(name))
    #expect(tmp.listing().filter { $0 != Array(".data".utf8) }.isEmpty)
    let listed = try await provider.enumerate(EnumerationRequest(container: .trash), page: nil, progress: { _ in })
    #expect(listed.items.map(\.identifier) == [item.identifier])
    let restored = try await provider.restoreItem(item.identifier, to: nil)
    #expect(restored.path == tmp.child(name))
    #expect(TemporaryFolder.read(restored.path) == Array("keep me".utf8))
    let after = try await provider.enumerate(EnumerationRequest(container: .trash), page: nil, progress: { _ in })
    #expect(after.items.isEmpty)
  }

  @Test func restoreOntoAnOccupiedNameFailsAndKeepsBoth() async throws {
    let tmp = TemporaryFolder()
    tmp.makeFile("doc", content: "old")
    let provider = testProvider(tmp)
    let item = try await provider.item(at: tmp.child("doc"))
    var t = ItemTemplate(item)
    t.parentIdentifier = .trash
    _ = try await provider.modifyItem(t, baseVersion: item.version, changedFields: .parentItemIdentifier, contents: nil)
    tmp.makeFile("doc", content: "new")
    do {
      _ = try await provider.restoreItem(item.identifier, to: nil)
      Issue.record("expected a collision")
    } catch { #expect(error.code == .filenameCollision) }
    let listed = try await provider.enumerate(EnumerationRequest(container: .trash), page: nil, progress: { _ in })
    #expect(listed.items.count == 1)
    #expect(try String(contentsOfFile: tmp.child("doc").lossyString, encoding: .utf8) == "new")
  }

  @Test func moveAcrossFilesystemsCopiesThenRemoves() async throws {
    // /dev/shm is a tmpfs: a different filesystem from /var/tmp on Linux.
    guard access("/dev/shm", W_OK) == 0 else { return }
    let tmp = TemporaryFolder()
    var template = Array("/dev/shm/folio-test-XXXXXX".utf8CString)
    let shm = ItemPath(String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }!))
    defer { _ = try? PosixPath.removeTree(shm) }
    tmp.makeFile("moving.txt", content: "payload")
    let provider = testProvider(tmp)
    let item = try await provider.item(at: tmp.child("moving.txt"))
    let dest = try await provider.item(at: shm)
    var t = ItemTemplate(item)
    t.parentIdentifier = dest.identifier
    let moved = try await provider.modifyItem(t, baseVersion: item.version, changedFields: .parentItemIdentifier, contents: nil)
    #expect(moved.path == shm.appending(ItemName("moving.txt")))
    #expect(tmp.listing().isEmpty)
    #expect(try String(contentsOfFile: moved.path.lossyString, encoding: .utf8) == "payload")
  }

  @Test func fetchContentsCopiesWithProgress() async throws {
    let tmp = TemporaryFolder()
    tmp.makeFile("src", content: String(repeating: "z", count: 5000))
    let provider = testProvider(tmp)
    let item = try await provider.item(at: tmp.child("src"))
    let dest = URL(fileURLWithPath: tmp.child("dest").lossyString)
    let log = ByteLog()
    _ = try await provider.fetchContents(item.identifier, version: nil, to: dest, progress: { log.add($0.completedBytes) })
    #expect(try Data(contentsOf: dest).count == 5000)
    #expect(log.last == 5000)
  }
}

final class ByteLog: @unchecked Sendable {
  private let lock = NSLock()
  private var values: [Int64] = []
  func add(_ v: Int64) { lock.withLock { values.append(v) } }
  var last: Int64? { lock.withLock { values.last } }
}
