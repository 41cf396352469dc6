import FolioProtocol
import Foundation
import ProviderAPI
import Testing

@testable import FolioServerProvider

/// The mapping of server items, and the refusal of anything that could become a path
/// (test-plan N01, F08). The real server refuses hostile names, so they are fed to the mapper here.
@Suite("WireItemMapper")
struct WireItemMapperTests {
  let mapper = WireItemMapper(rootName: ItemName("Work"), user: "ana")

  func wire(
    id: String = "i42", parent: String = "root", name: String = "notes.txt", kind: String = "file",
    path: String? = nil
  ) -> WireItem {
    WireItem(
      id: id, parent: parent, name: name, kind: kind, path: path ?? "/" + name, size: 12, created: 1_763_800_000.5,
      modified: 1_763_800_001.25, version: WireVersion(content: 3, metadata: 5), sha256: String(repeating: "a", count: 64),
      tags: ["Red"], favoriteRank: 7, lastUsed: 1_763_800_002, owner: "ben", mostRecentEditor: "cy", shared: true,
      userInfo: ["locked": .bool(true), "lockedBy": .string("ben"), "n": .number(2)], decorations: ["locked", "sharedBy"])
  }

  @Test func mapsEveryField() throws {
    let item = try mapper.item(wire())
    #expect(item.identifier == ItemIdentifier("i42"))
    #expect(item.parentIdentifier == .root)
    #expect(item.filename == ItemName("notes.txt"))
    #expect(item.path == ItemPath("/notes.txt"))
    #expect(item.contentType == .plainText)
    #expect(item.version == (try ItemVersion(content: "3", metadata: "5")))
    #expect(item.documentSize == 12)
    #expect(item.creationDate == Date(timeIntervalSince1970: 1_763_800_000.5))
    #expect(item.contentModificationDate == Date(timeIntervalSince1970: 1_763_800_001.25))
    #expect(item.lastUsedDate == Date(timeIntervalSince1970: 1_763_800_002))
    #expect(item.tags == ["Red"] && item.favoriteRank == 7)
    #expect(item.isShared && item.ownerName == "ben" && item.mostRecentEditorName == "cy")
    #expect(item.userInfo == ["locked": .bool(true), "lockedBy": .string("ben"), "n": .number(2)])
    #expect(item.decorations == [DecorationIdentifier("locked"), DecorationIdentifier("sharedBy")])
    // Dataless until the core downloads it.
    #expect(!item.isDownloaded && !item.isMostRecentVersionDownloaded && item.isUploaded)
    // Locked by somebody else: not writable for ana.
    #expect(!item.capabilities.contains(.writing) && item.capabilities.contains(.renaming))
  }

  @Test func foldersTrashAndRoot() throws {
    let folder = try mapper.item(wire(id: "f1", name: "Docs", kind: "folder"))
    #expect(folder.isFolder && folder.documentSize == nil && folder.isDownloaded)
    let trashed = try mapper.item(wire(id: "t1", parent: "trash", name: "old.md", path: "/old.md"))
    #expect(trashed.isTrashed && trashed.contentType.identifier == "net.daringfireball.markdown")
    #expect(trashed.capabilities == [.reading, .deleting, .reparenting])
    let root = try mapper.item(wire(id: "root", parent: "root", name: "", kind: "folder", path: "/"))
    #expect(root.identifier == .root && root.filename == ItemName("Work") && root.path == .root && root.isFolder)
    let trash = try mapper.item(wire(id: "trash", parent: "root", name: "", kind: "folder", path: "/"))
    #expect(trash.identifier == .trash && trash.filename == ItemName("Recently Deleted"))
  }

  @Test func reservedIdentifiersMapBothWays() throws {
    #expect(try WireItemMapper.identifier("root") == .root)
    #expect(try WireItemMapper.identifier("trash") == .trash)
    #expect(try WireItemMapper.wireID(.root) == "root")
    #expect(try WireItemMapper.wireID(.trash) == "trash")
    #expect(try WireItemMapper.wireID(ItemIdentifier("i9")) == "i9")
    #expect(throws: ProviderError.self) { try WireItemMapper.wireID(.workingSet) }
  }

  @Test func versionsAreDecimalRevisions() throws {
    let v = WireItemMapper.version(WireVersion(content: 12, metadata: 40))
    #expect(WireItemMapper.contentRevision(v) == 12 && WireItemMapper.metadataRevision(v) == 40)
    #expect(WireItemMapper.contentRevision(try ItemVersion(content: "12:5", metadata: "")) == nil)
    #expect(WireItemMapper.contentRevision(.empty) == nil)
  }

  /// N01: names that are paths, or not names at all, refuse the item.
  @Test(arguments: ["", ".", "..", "a/b", "../x", "/etc/passwd", "x\u{0}y", String(repeating: "n", count: 256)])
  func hostileNamesAreRefused(_ name: String) {
    let error = #expect(throws: ProviderError.self) { try mapper.item(wire(name: name, path: "/" + name)) }
    #expect(error?.code == .cannotSynchronize)
    #expect(error?.message.contains("invalid name") == true || error?.message.contains("invalid path") == true)
  }

  /// `..\x` is an ordinary name on Linux: kept whole, one component, under its parent.
  @Test func aBackslashNameStaysOneComponent() throws {
    let item = try mapper.item(wire(name: "..\\x", path: "/Docs/..\\x"))
    #expect(item.filename.bytes == Array("..\\x".utf8))
    #expect(item.path.lastComponent == item.filename && item.path.parent == ItemPath("/Docs"))
  }

  /// Escape sequences in names are kept as bytes and shown escaped.
  @Test func controlCharactersAreKeptButNeverShownRaw() throws {
    let item = try mapper.item(wire(name: "\u{1B}]0;pwn\u{7}x", path: "/\u{1B}]0;pwn\u{7}x"))
    #expect(item.filename.bytes.first == 0x1B)
    #expect(!item.filename.displayString.contains("\u{1B}") && !item.filename.displayString.contains("\u{7}"))
  }

  @Test(arguments: [
    ("relative/path.txt", "path.txt"), ("/a//path.txt", "path.txt"), ("/a/../path.txt", "path.txt"),
    ("/other.txt", "notes.txt"), ("/a/./notes.txt", "notes.txt"),
  ])
  func pathsThatDoNotNameTheItemAreRefused(_ path: String, _ name: String) {
    let error = #expect(throws: ProviderError.self) { try mapper.item(wire(name: name, path: path)) }
    #expect(error?.code == .cannotSynchronize)
  }

  @Test(arguments: ["", ".", "..", "a/b", "a\\b", "#root", "#working-set", "a b", "é", "x\u{0}"])
  func hostileIdentifiersAreRefused(_ id: String) {
    #expect(throws: ProviderError.self) { try mapper.item(wire(id: id)) }
    #expect(throws: ProviderError.self) { try mapper.item(wire(parent: id)) }
  }

  @Test func unknownKindsAndNegativeSizesAreRefused() {
    #expect(throws: ProviderError.self) { try mapper.item(wire(kind: "symlink")) }
    var w = wire()
    w.size = -1
    #expect(throws: ProviderError.self) { try mapper.item(w) }
    w = wire()
    w.originalPath = "../../etc"
    #expect(throws: ProviderError.self) { try mapper.item(w) }
  }

  /// F08: one bad entry refuses the whole listing; entries must belong to the listed folder.
  @Test func aListingIsAcceptedWholeOrNotAtAll() throws {
    let good = [wire(id: "a", name: "a.txt"), wire(id: "b", name: "b.txt")]
    #expect(try mapper.items(good, in: .root).count == 2)
    let oneBad = good + [wire(id: "c", name: "..", path: "/..")]
    #expect(throws: ProviderError.self) { try mapper.items(oneBad, in: .root) }
    let stranger = good + [wire(id: "c", parent: "f9", name: "c.txt", path: "/f/c.txt")]
    let error = #expect(throws: ProviderError.self) { try mapper.items(stranger, in: .root) }
    #expect(error?.message.contains("does not belong") == true)
    #expect(throws: ProviderError.self) { try mapper.items(good + [wire(id: "a", name: "z.txt")], in: .root) }
    #expect(throws: ProviderError.self) { try mapper.items(good + [wire(id: "z", name: "a.txt")], in: .root) }
    #expect(throws: ProviderError.self) { try mapper.items([wire(id: "root", name: "", kind: "folder", path: "/")], in: .root) }
    // The trash may hold two items of one name.
    let trashed = [
      wire(id: "a", parent: "trash", name: "x.txt", path: "/x.txt"), wire(id: "b", parent: "trash", name: "x.txt", path: "/x.txt"),
    ]
    #expect(try mapper.items(trashed, in: .trash).count == 2)
  }

  @Test func conflictMarkingNamesTheCopy() throws {
    var item = try mapper.item(wire())
    let copy = try mapper.item(wire(id: "c1", name: "notes (conflict, ana).txt"))
    FolioServerProvider.markConflict(&item, copy: copy)
    #expect(item.uploadingError?.code == .localVersionConflictingWithServer)
    #expect(item.uploadingError?.existingItem == ItemIdentifier("c1"))
    #expect(item.decorations.contains(FolioServerProvider.conflictDecoration))
  }
}
