import Foundation
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `rm` and `trash`: the freedesktop Trash, shared both ways with trash-cli.
/// Every trash of every mount is listed and emptied here, /dev/shm's too: one at a time with the
/// LocalProvider test that puts an item there.
@Suite(.offThePool, .exclusive("topdir-trash")) struct TrashCommandTests {
  /// The original paths `trash-list` shows (its lines are "DATE TIME PATH").
  static func trashCLIPaths(_ s: Sandbox, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
    let r = try s.tool("trash-list", package: "trash-cli", sourceLocation: sourceLocation)
    #expect(r.status == 0, "\(r)", sourceLocation: sourceLocation)
    return r.outLines.map { line in line.split(separator: " ", maxSplits: 2).dropFirst(2).joined() }.sorted()
  }

  static func trashedPaths(_ s: Sandbox, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
    let r = try s.folio("trash", "--json")
    #expect(r.succeeded, "\(r)", sourceLocation: sourceLocation)
    return try #require(r.json().array, sourceLocation: sourceLocation).map { $0["originalPath"]?.string ?? "?" }.sorted()
  }

  /// `folio demo` keeps its own data in a private `$XDG_DATA_HOME` it removes on quit, and sets
  /// `$FOLIO_TRASH_DATA_HOME` to yours: a local file deleted there must land in your Trash.
  @Test func theTrashDataHomeStandsForXDGDataHomeWhenSet() throws {
    let s = try Sandbox()
    try s.file("a.txt", "A")
    let yours = s.root + "/your-data"
    try FileManager.default.createDirectory(atPath: yours, withIntermediateDirectories: true)
    let r = try s.folio("rm", "a.txt", environment: ["FOLIO_TRASH_DATA_HOME": yours])
    #expect(r.succeeded, "\(r)")
    #expect(s.contents(yours + "/Trash/files/a.txt") == "A", "in your Trash")
    #expect(!FileManager.default.fileExists(atPath: s.dataHome + "/Trash/files/a.txt"), "not in the private one")
  }

  @Test func removeGoesToTheTrashThatTrashCLIReads() throws {
    let s = try Sandbox()
    try s.file("a.txt", "A")
    try s.file("dir/inner.txt", "I")
    try s.file("keep.txt", "K")
    let r = try s.folio("rm", "a.txt", "dir")
    #expect(r.succeeded, "\(r)")
    #expect(s.textNames() == ["keep.txt"])
    #expect(try Self.trashCLIPaths(s) == [s.path("a.txt"), s.path("dir")])

    let listed = try s.folio("trash", "--json")
    let items = try #require(listed.json().array)
    let file = try #require(items.first { $0["name"] == .string("a.txt") })
    #expect(file["originalPath"] == .string(s.path("a.txt")))
    #expect(file["trashed"]?.string != nil, "\(file)")
    #expect(file["size"] == .number(1))
    // The contents are in the Trash, not gone.
    #expect(s.contents(s.dataHome + "/Trash/files/a.txt") == "A")

    let human = try s.folio("trash")
    #expect(human.succeeded && human.outLines.count == 2, "\(human)")
    #expect(human.outLines.contains { $0.hasSuffix(s.path("dir") + "/") }, "\(human)")
  }

  /// A missing item among several: nothing is deleted.
  @Test func removeWithAMissingItemDeletesNothing() throws {
    let s = try Sandbox()
    try s.file("a.txt", "A")
    let r = try s.folio("rm", "a.txt", "missing.txt")
    #expect(r.failedCleanly(), "\(r)")
    #expect(s.textNames() == ["a.txt"])
    #expect(try Self.trashedPaths(s) == [])
  }

  @Test func trashPutItemsAreListedAndRestored() throws {
    let s = try Sandbox()
    try s.file("put.txt", "from trash-cli")
    let put = try s.tool("trash-put", Arg(s.path("put.txt")), package: "trash-cli")
    #expect(put.status == 0, "\(put)")
    #expect(!s.exists("put.txt"))

    #expect(try Self.trashedPaths(s) == [s.path("put.txt")])

    let restore = try s.folio("trash", "restore", Arg(s.path("put.txt")))
    #expect(restore.succeeded, "\(restore)")
    #expect(s.contents("put.txt") == "from trash-cli")
    #expect(try Self.trashCLIPaths(s) == [])
    #expect(try Self.trashedPaths(s) == [])
  }

  /// Restoring by a relative path or by the name, and refusing what is not there.
  @Test func restoreByNameAndRefusals() throws {
    let s = try Sandbox()
    try s.file("one.txt", "1")
    try s.file("two.txt", "2")
    #expect(try s.folio("rm", "one.txt", "two.txt").succeeded)

    #expect(try s.folio("trash", "restore", "one.txt").succeeded)
    #expect(s.contents("one.txt") == "1")

    let nothing = try s.folio("trash", "restore", "three.txt")
    #expect(nothing.failedCleanly(), "\(nothing)")

    // The original place is taken again: the restore refuses rather than replacing.
    try s.file("two.txt", "new")
    let taken = try s.folio("trash", "restore", Arg(s.path("two.txt")))
    #expect(taken.failedCleanly(), "\(taken)")
    #expect(s.contents("two.txt") == "new")
    #expect(try Self.trashedPaths(s) == [s.path("two.txt")])

    // Keep Both: it comes back beside the new one, as "two 2.txt".
    let both = try s.folio("trash", "restore", "--keep-both", Arg(s.path("two.txt")))
    #expect(both.succeeded, "\(both)")
    #expect(s.contents("two 2.txt") == "2" && s.contents("two.txt") == "new")
    #expect(try Self.trashedPaths(s).isEmpty)
    // Replace: the item holding the name goes to Recently Deleted first.
    #expect(try s.folio("rm", Arg(s.path("two 2.txt"))).succeeded)
    try s.file("two 2.txt", "in the way")
    let replaced = try s.folio("trash", "restore", "--replace", Arg(s.path("two 2.txt")))
    #expect(replaced.succeeded, "\(replaced)")
    #expect(s.contents("two 2.txt") == "2")
    #expect(try Self.trashedPaths(s) == [s.path("two 2.txt")], "the one in the way is in Recently Deleted")
    let both2 = try s.folio("trash", "restore", "--keep-both", "--replace", "x")
    #expect(!both2.succeeded, "\(both2)")
  }

  /// The JSON listing's `modified` is the item's own modification time; when it was deleted is
  /// `trashed` (both were the deletion time).
  @Test func trashedItemsKeepTheirModificationDate() throws {
    let s = try Sandbox()
    try s.file("old.txt", "o", modified: ISO8601DateFormatter().date(from: "2001-02-03T04:05:06Z")!)
    #expect(try s.folio("rm", "old.txt").succeeded)
    let item = try #require(s.folio("trash", "--json").json().array?.first)
    #expect(item["modified"]?.string == "2001-02-03T04:05:06Z", "\(item)")
    let trashed = try #require(item["trashed"]?.string.flatMap { ISO8601DateFormatter().date(from: $0) }, "\(item)")
    #expect(abs(trashed.timeIntervalSinceNow) < 3600, "\(item)")
  }

  /// Two deleted items of one path: a restore lists them and restores neither until told which
  /// (it restored one silently); each restore says what it put back.
  @Test func restoringOneOfSeveralItemsOfAPathAsksWhich() throws {
    let s = try Sandbox()
    try s.file("notes.txt", "first")
    #expect(try s.folio("rm", "notes.txt").succeeded)
    try s.file("notes.txt", "second")
    #expect(try s.folio("rm", "notes.txt").succeeded)
    try s.file("notes.txt", "third")
    #expect(try s.folio("rm", "notes.txt").succeeded)
    // Deleted in one second: their order is set in the .trashinfo files, a second apart.
    let trash = s.dataHome + "/Trash"
    for name in try FileManager.default.contentsOfDirectory(atPath: trash + "/files") {
      let second = ["first": 1, "second": 2, "third": 3][s.contents(trash + "/files/" + name) ?? ""] ?? 0
      let info = trash + "/info/" + name + ".trashinfo"
      let text = try #require(s.contents(info))
      let dated = text.split(separator: "\n").map { $0.hasPrefix("DeletionDate=") ? "DeletionDate=2020-01-01T00:00:0\(second)" : String($0) }
      try (dated.joined(separator: "\n") + "\n").write(toFile: info, atomically: true, encoding: .utf8)
    }

    for argument in [s.path("notes.txt"), "notes.txt"] {
      let refused = try s.folio("trash", "restore", Arg(argument))
      #expect(refused.status == 1 && refused.stdout.isEmpty, "\(refused)")
      #expect(refused.errLines.first?.hasPrefix("folio: 3 deleted items ") == true, "\(refused)")
      #expect(refused.errLines.first?.contains("nothing was restored") == true, "\(refused)")
      #expect(refused.errLines.count == 4, "one line per candidate: \(refused)")
      #expect(!s.exists("notes.txt"))
    }

    // Each candidate is named as the listing shows it: its place in the trash.
    let refused = try s.folio("trash", "restore", "notes.txt")
    let places = refused.errLines.dropFirst().map { String($0.split(separator: " ").last!) }
    let listed = try #require(s.folio("trash", "--json").json().array).map { $0["path"]?.string ?? "?" }
    #expect(Set(places) == Set(listed), "\(refused)")
    let second = try #require(places.first { s.contents($0) == "second" })
    let restored = try s.folio("trash", "restore", Arg(second))
    #expect(restored.succeeded, "\(restored)")
    #expect(restored.outLines == ["restored " + s.path("notes.txt")], "\(restored)")
    #expect(s.contents("notes.txt") == "second")

    // --newest: the last one deleted.
    #expect(rename(s.path("notes.txt"), s.path("kept.txt")) == 0)
    let newest = try s.folio("trash", "restore", "--newest", "notes.txt")
    #expect(newest.succeeded && newest.outLines == ["restored " + s.path("notes.txt")], "\(newest)")
    #expect(s.contents("notes.txt") == "third")
    #expect(try Self.trashedPaths(s) == [s.path("notes.txt")])
  }

  /// Emptying deletes forever, so without a terminal to ask on it needs --yes.
  @Test func emptyNeedsYesWithoutATerminal() throws {
    let s = try Sandbox()
    try s.file("a.txt", "A")
    try s.file("b.txt", "B")
    #expect(try s.folio("rm", "a.txt").succeeded)
    let put = try s.tool("trash-put", Arg(s.path("b.txt")), package: "trash-cli")
    #expect(put.status == 0, "\(put)")

    let refused = try s.folio("trash", "empty")
    #expect(refused.failedCleanly(), "\(refused)")
    #expect(refused.err.contains("--yes"), "\(refused)")
    #expect(try Self.trashCLIPaths(s) == [s.path("a.txt"), s.path("b.txt")])
    #expect(Set(try FileManager.default.contentsOfDirectory(atPath: s.dataHome + "/Trash/files")) == ["a.txt", "b.txt"])

    let emptied = try s.folio("trash", "empty", "--yes")
    #expect(emptied.succeeded, "\(emptied)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: s.dataHome + "/Trash/files").isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: s.dataHome + "/Trash/info").isEmpty)
    #expect(try Self.trashCLIPaths(s) == [])
    #expect(try s.folio("trash", "--json").json() == .array([]))
    #expect(try s.folio("trash", "empty").succeeded, "an empty Trash needs no confirmation")
  }

  /// A name that is not UTF-8 goes to the Trash and comes back as the same bytes, and the JSON
  /// listing carries them.
  @Test func bytesRoundTripThroughTheTrash() throws {
    let s = try Sandbox()
    let name: [UInt8] = Array("caf".utf8) + [0xE9, 0x9B] + Array(" x".utf8)
    try s.file(bytes: name, "bytes")
    #expect(try s.folio("rm", Arg(bytes: name)).succeeded)
    #expect(s.names().isEmpty)

    let item = try #require(s.folio("trash", "--json").json().array?.first)
    #expect(item["nameBytes"]?.string.flatMap { Data(base64Encoded: $0) }.map(Array.init) == name, "\(item)")

    let restore = try s.folio("trash", "restore", Arg(bytes: s.path(bytes: name)))
    #expect(restore.succeeded, "\(restore)")
    #expect(s.names() == [name])
    #expect(try Self.trashCLIPaths(s) == [])
  }
}
