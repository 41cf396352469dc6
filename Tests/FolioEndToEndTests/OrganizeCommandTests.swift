import Foundation
import TestExecution
import Testing

/// info, tag, favorite, rename, mv, cp, mkdir: what each prints and what is on disk afterwards,
/// and that a refused operation changes nothing.
@Suite(.offThePool) struct OrganizeCommandTests {
  @Test func infoHumanAndJSON() throws {
    let s = try Sandbox()
    try s.file("notes.txt", "hello", modified: ISO8601DateFormatter().date(from: "2001-02-03T04:05:06Z"))

    let human = try s.folio("info", "notes.txt")
    #expect(human.succeeded, "\(human)")
    let rows = Dictionary(
      human.outLines.compactMap { line -> (String, String)? in
        guard let colon = line.firstIndex(of: ":") else { return nil }
        return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
      }, uniquingKeysWith: { a, _ in a })
    #expect(rows["Name"] == "notes.txt", "\(human)")
    #expect(rows["Path"] == s.path("notes.txt"), "\(human)")
    #expect(rows["Size"] == "5 bytes", "\(human)")
    #expect(rows["Modified"] == "2001-02-03 04:05", "\(human)")
    #expect(rows["Tags"] == "none", "\(human)")
    #expect(rows["Favorite"] == "no", "\(human)")
    #expect(rows["Kind"]?.hasPrefix("Plain text") == true, "\(human)")

    let json = try s.folio("info", "--json", "notes.txt")
    #expect(json.succeeded, "\(json)")
    let item = try json.json()
    #expect(item["name"] == .string("notes.txt"))
    #expect(item["path"] == .string(s.path("notes.txt")))
    #expect(item["size"] == .number(5))
    #expect(item["kind"] == .string("file"))
    #expect(item["location"] == .string("local"))
    #expect(item["modified"] == .string("2001-02-03T04:05:06Z"))
    #expect(item["capabilities"]?.strings?.contains("renaming") == true, "\(item)")
    // The same identifier as ls gives, so a script can match the two.
    let listed = try #require(s.folio("ls", "--json").json().array?.first)
    #expect(item["id"] == listed["id"])
  }

  /// Tags live in `user.xdg.tags` (comma-separated), which other tools read.
  @Test func tagAddListRemoveAndOtherToolsSeeThem() throws {
    let s = try Sandbox()
    try s.file("doc.txt", "d")

    let add = try s.folio("tag", "doc.txt", "--add", "Red", "--add", "work stuff")
    #expect(add.succeeded, "\(add)")
    #expect(add.outLines == ["Red", "work stuff"], "prints the tags it leaves: \(add)")
    #expect(try xattrTags(s, "doc.txt") == "Red,work stuff")

    let list = try s.folio("tag", "doc.txt")
    #expect(list.succeeded && list.outLines == ["Red", "work stuff"], "\(list)")
    let json = try s.folio("tag", "doc.txt", "--json")
    #expect(try json.json() == .array([.string("Red"), .string("work stuff")]))
    #expect(try s.folio("info", "--json", "doc.txt").json()["tags"] == .array([.string("Red"), .string("work stuff")]))

    let remove = try s.folio("tag", "doc.txt", "--remove", "Red")
    #expect(remove.succeeded && remove.outLines == ["work stuff"], "\(remove)")
    #expect(try xattrTags(s, "doc.txt") == "work stuff")

    // Removing a tag the item does not have, or adding one with a comma (the separator), is refused
    // and leaves the tags as they were.
    for arguments: [Arg] in [["--remove", "Blue"], ["--add", "a,b"], ["--add", ""]] {
      let bad = try s.folio(["tag", "doc.txt"] + arguments)
      #expect(bad.failedCleanly(), "\(bad)")
      #expect(try xattrTags(s, "doc.txt") == "work stuff")
    }
    // Removing the last tag and reading them back: none.
    #expect(try s.folio("tag", "doc.txt", "--remove", "work stuff").succeeded)
    #expect(try s.folio("tag", "doc.txt").stdout.isEmpty)
  }

  /// The value of `user.xdg.tags` as getfattr reads it ("" when absent).
  private func xattrTags(_ s: Sandbox, _ relative: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let r = try s.tool("getfattr", "--only-values", "-n", "user.xdg.tags", Arg(s.path(relative)), package: "attr")
    if r.status != 0 {
      // "No such attribute" means no tags; anything else (no xattrs on this filesystem) is a failure.
      #expect(r.err.contains("No such attribute"), "getfattr failed: \(r)", sourceLocation: sourceLocation)
      return ""
    }
    return r.out
  }

  @Test func favoriteAndOff() throws {
    let s = try Sandbox()
    try s.file("fav.txt", "f")
    try s.file("other.txt", "o")
    #expect(try s.folio("info", "--json", "fav.txt").json()["favorite"] == .bool(false))

    let on = try s.folio("favorite", "fav.txt")
    #expect(on.succeeded, "\(on)")
    #expect(try s.folio("info", "--json", "fav.txt").json()["favorite"] == .bool(true))
    #expect(try s.folio("info", "--json", "other.txt").json()["favorite"] == .bool(false))
    let listing = try s.folio("ls")
    #expect(listing.outLines.first { $0.hasSuffix("fav.txt  ★") } != nil, "\(listing)")
    #expect(listing.outLines.first { $0.hasSuffix("other.txt") } != nil, "\(listing)")

    let off = try s.folio("favorite", "fav.txt", "--off")
    #expect(off.succeeded, "\(off)")
    #expect(try s.folio("info", "--json", "fav.txt").json()["favorite"] == .bool(false))
    #expect(s.contents("fav.txt") == "f")
  }

  @Test func renameKeepsContentsAndIdentity() throws {
    let s = try Sandbox()
    try s.file("old.txt", "contents")
    let before = try s.folio("info", "--json", "old.txt").json()["id"]
    let r = try s.folio("rename", "old.txt", "new name.txt")
    #expect(r.succeeded, "\(r)")
    #expect(s.textNames() == ["new name.txt"])
    #expect(s.contents("new name.txt") == "contents")
    #expect(try s.folio("info", "--json", "new name.txt").json()["id"] == before, "identifiers survive a rename")
  }

  /// A name that is not UTF-8 goes in and comes out as the same bytes.
  @Test func renameWithBytesThatAreNotUTF8() throws {
    let s = try Sandbox()
    let from: [UInt8] = Array("from".utf8) + [0xFF, 0x9B]
    let to: [UInt8] = Array("to".utf8) + [0xC0, 0xAF, 0x80]
    try s.file(bytes: from, "b")
    let r = try s.folio("rename", Arg(bytes: from), Arg(bytes: to))
    #expect(r.succeeded, "\(r)")
    #expect(s.names() == [to])
  }

  /// Two names that differ only in invalid bytes read the same once decoded ("a\u{FFFD}"): each
  /// argument must still name its own file.
  @Test func argumentsThatDecodeAlikeStayDistinct() throws {
    let s = try Sandbox()
    let fe: [UInt8] = [0x61, 0xFE]
    let ff: [UInt8] = [0x61, 0xFF]
    try s.file(bytes: fe, "fe")
    let rename = try s.folio("rename", Arg(bytes: fe), Arg(bytes: ff))
    #expect(rename.succeeded, "\(rename)")
    #expect(s.names() == [ff], "renamed onto itself instead")

    try s.file(bytes: fe, "fe again")
    try s.file("keep", "k")
    let rm = try s.folio("rm", Arg(bytes: ff), Arg(bytes: fe))
    #expect(rm.succeeded, "\(rm)")
    #expect(s.textNames() == ["keep"])
    let trashed = try #require(s.folio("trash", "--json").json().array)
    let bytes = Set(trashed.compactMap { $0["nameBytes"]?.string.flatMap { Data(base64Encoded: $0) }.map(Array.init) })
    #expect(bytes == [fe, ff])
  }

  /// A rename onto a taken name never replaces: exit 1, one line, both files as they were.
  @Test func renameCollisionChangesNothing() throws {
    let s = try Sandbox()
    try s.file("a.txt", "A")
    try s.file("b.txt", "B")
    let r = try s.folio("rename", "a.txt", "b.txt")
    #expect(r.failedCleanly(), "\(r)")
    #expect(r.err.contains("b.txt"), "\(r)")
    #expect(s.textNames() == ["a.txt", "b.txt"])
    #expect(s.contents("a.txt") == "A")
    #expect(s.contents("b.txt") == "B")

    // Names that are not names are refused the same way.
    for bad in ["x/y", "..", ".", ""] {
      let refused = try s.folio("rename", "a.txt", Arg(bad))
      #expect(refused.failedCleanly(), "\(refused)")
    }
    #expect(s.textNames() == ["a.txt", "b.txt"])
  }

  @Test func moveSeveralItems() throws {
    let s = try Sandbox()
    try s.file("a.txt", "A")
    try s.file("b.txt", "B")
    try s.file("dir/inner.txt", "I")
    try s.folder("dest")
    let r = try s.folio("mv", "a.txt", "b.txt", "dir", "dest")
    #expect(r.succeeded, "\(r)")
    #expect(s.textNames() == ["dest"])
    #expect(s.textNames(in: "dest") == ["a.txt", "b.txt", "dir"])
    #expect(s.contents("dest/dir/inner.txt") == "I")
    #expect(s.contents("dest/a.txt") == "A")
  }

  /// One bad source (missing, or a name already taken in the destination) and nothing moves.
  @Test func moveWithABadSourceMovesNothing() throws {
    let s = try Sandbox()
    try s.file("a.txt", "A")
    try s.file("b.txt", "B")
    try s.folder("dest")

    let missing = try s.folio("mv", "a.txt", "missing.txt", "b.txt", "dest")
    #expect(missing.failedCleanly(), "\(missing)")
    #expect(missing.err.contains("missing.txt"), "\(missing)")
    #expect(s.textNames() == ["a.txt", "b.txt", "dest"])
    #expect(s.textNames(in: "dest").isEmpty)

    try s.file("dest/b.txt", "taken")
    let taken = try s.folio("mv", "a.txt", "b.txt", "dest")
    #expect(taken.failedCleanly(), "\(taken)")
    #expect(taken.err.contains("b.txt"), "\(taken)")
    #expect(s.textNames() == ["a.txt", "b.txt", "dest"])
    #expect(s.textNames(in: "dest") == ["b.txt"])
    #expect(s.contents("dest/b.txt") == "taken")

    let notFolder = try s.folio("mv", "a.txt", "b.txt")
    #expect(notFolder.failedCleanly(), "\(notFolder)")
    let intoItself = try s.folio("mv", "dest", "dest")
    #expect(intoItself.failedCleanly(), "\(intoItself)")
    #expect(s.textNames() == ["a.txt", "b.txt", "dest"])
    #expect(s.contents("b.txt") == "B")
  }

  @Test func copyFilesAndFolders() throws {
    let s = try Sandbox()
    try s.file("a.txt", "A")
    try s.file("dir/inner.txt", "I")
    try s.folder("dest")
    let r = try s.folio("cp", "a.txt", "dir", "dest")
    #expect(r.succeeded, "\(r)")
    #expect(s.textNames() == ["a.txt", "dest", "dir"])
    #expect(s.contents("dest/a.txt") == "A")
    #expect(s.contents("dest/dir/inner.txt") == "I")

    // A taken name gets " copy", as in Finder; the original is untouched.
    let again = try s.folio("cp", "a.txt", "dest")
    #expect(again.succeeded, "\(again)")
    #expect(s.textNames(in: "dest") == ["a.txt", "a copy.txt", "dir"])
    #expect(s.contents("dest/a copy.txt") == "A")

    let missing = try s.folio("cp", "a.txt", "nope.txt", "dest")
    #expect(missing.failedCleanly(), "\(missing)")
    #expect(s.textNames(in: "dest") == ["a.txt", "a copy.txt", "dir"])
  }

  /// A copy keeps the tags of its original (files, and the folders of a tree), as Finder does.
  @Test func copiesKeepTheirTags() throws {
    let s = try Sandbox()
    try s.file("a.txt", "A")
    try s.file("dir/inner.txt", "I")
    try s.folder("dest")
    #expect(try s.folio("tag", "a.txt", "--add", "Red").succeeded)
    #expect(try s.folio("tag", "dir", "--add", "Blue").succeeded)
    #expect(try s.folio("tag", "dir/inner.txt", "--add", "Green").succeeded)
    #expect(try s.folio("cp", "a.txt", "dir", "dest").succeeded)
    for (path, tag) in [("dest/a.txt", "Red"), ("dest/dir", "Blue"), ("dest/dir/inner.txt", "Green")] {
      let r = try s.tool("getfattr", "--only-values", "-n", "user.xdg.tags", Arg(path), package: "attr")
      #expect(r.status == 0 && r.out == tag, "\(path): \(r)")
    }
  }

  @Test func makeFolders() throws {
    let s = try Sandbox()
    let made = try s.folio("mkdir", "new")
    #expect(made.succeeded, "\(made)")
    #expect(try s.folio("info", "--json", "new").json()["kind"] == .string("folder"))

    let exists = try s.folio("mkdir", "new")
    #expect(exists.failedCleanly(), "\(exists)")
    #expect(exists.err.contains("already exists"), "\(exists)")

    let nested = try s.folio("mkdir", "x/y/z")
    #expect(nested.failedCleanly(), "\(nested)")
    #expect(!s.exists("x"), "a failed mkdir created a parent")

    let parents = try s.folio("mkdir", "-p", "x/y/z")
    #expect(parents.succeeded, "\(parents)")
    #expect(s.textNames(in: "x/y") == ["z"])
    #expect(try s.folio("mkdir", "-p", "x/y/z").succeeded, "-p accepts an existing folder")
    #expect(try s.folio("mkdir", "--parents", Arg(s.path("abs/olute"))).succeeded)
    #expect(s.textNames(in: "abs") == ["olute"])

    // -p does not accept a file where the folder should be.
    try s.file("file", "f")
    let onFile = try s.folio("mkdir", "-p", "file")
    #expect(onFile.failedCleanly(), "\(onFile)")
    #expect(s.contents("file") == "f")
  }

  /// Symlinks are items of their own: listed with their target, never followed by rm or mv, and a
  /// loop or a dangling one breaks nothing.
  @Test func symlinksAreItemsNotTheirTargets() throws {
    let s = try Sandbox()
    try s.file("target.txt", "t")
    try s.folder("dir")
    for (name, target) in [("loop", "loop"), ("dangling", "nowhere"), ("etc", "/etc"), ("link", "target.txt")] {
      try FileManager.default.createSymbolicLink(atPath: s.path(name), withDestinationPath: target)
    }
    let r = try s.folio("ls", "--json")
    #expect(r.succeeded, "\(r)")
    let items = try #require(r.json().array)
    let byName = Dictionary(uniqueKeysWithValues: items.map { ($0["name"]?.string ?? "", $0) })
    #expect(byName["loop"]?["kind"] == .string("symlink"))
    #expect(byName["loop"]?["symlinkTarget"] == .string("loop"))
    #expect(byName["dangling"]?["symlinkTarget"] == .string("nowhere"))
    #expect(byName["etc"]?["symlinkTarget"] == .string("/etc"))
    let human = try s.folio("ls")
    #expect(human.outLines.contains { $0.hasSuffix("  link@") }, "\(human)")

    #expect(try s.folio("info", "--json", "dangling").json()["kind"] == .string("symlink"))
    #expect(try s.folio("rm", "link", "dangling").succeeded)
    #expect(s.contents("target.txt") == "t", "rm followed the link")
    #expect(!s.exists("link") && !s.exists("dangling"))
    #expect(try s.folio("mv", "loop", "etc", "dir").succeeded)
    #expect(s.textNames(in: "dir") == ["loop", "etc"])
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: s.path("dir/etc")) == "/etc")
    #expect(FileManager.default.fileExists(atPath: "/etc/passwd"))
  }
}
