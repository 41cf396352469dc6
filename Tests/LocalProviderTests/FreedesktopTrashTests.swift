import Foundation
import Glibc
import ProviderAPI
import TestExecution
import Testing

@testable import LocalProvider

/// FreedesktopTrash against temporary folders and against the real trash-cli, so the files we write
/// are the files other desktop tools read (and the other way round).
///
/// Every test builds its own sandbox with its own `$HOME`, `$XDG_DATA_HOME` and an empty mount
/// table: `list()` and `empty()` then only see the sandbox's trash, never a real user's trash on
/// some mounted filesystem (this machine is shared).
@Suite struct FreedesktopTrashTests {
  // MARK: - Interoperability with trash-cli

  @Test func trashThenTrashListShowsTheOriginalPath() throws {
    let box = try TrashSandbox()
    defer { box.remove() }
    let file = box.work.appending(try ItemName.validated("report 100% #1 é.txt"))
    try TestFS.write(file, "quarterly")

    let entry = try box.trash.trash(file)

    #expect(entry.originalPath == file)
    #expect(entry.name == ItemName("report 100% #1 é.txt"))
    #expect(entry.trashDirectory == box.homeTrash)
    #expect(!TestFS.exists(file))
    #expect(try TestFS.read(entry.filePath) == Array("quarterly".utf8))
    for folder in [box.homeTrash, PosixPath.child(box.homeTrash, "files"), PosixPath.child(box.homeTrash, "info")] {
      #expect(try PosixPath.lstat(folder).permissions == 0o700, "\(folder)")
    }

    // The info file is what trash-cli would have written, byte for byte (Python's quote(path, '/')).
    let info = String(decoding: try TestFS.read(entry.infoPath), as: UTF8.self)
    let quoted = try TestTools.run(
      "python3",
      ["-c", "import sys; from urllib.parse import quote; sys.stdout.write(quote(sys.argv[1], '/'))", file.lossyString])
    let date = try #require(entry.deletionDate)
    #expect(info == "[Trash Info]\nPath=\(quoted.stdoutString)\nDeletionDate=\(TrashInfoFormat.formatDate(date))\n")
    #expect(abs(date.timeIntervalSinceNow) < 10)

    let listing = try TestTools.run("trash-list", [], environment: box.toolEnvironment)
    #expect(listing.status == 0, "trash-list failed: \(listing.stderrString)")
    let expected = "\(TrashInfoFormat.formatDate(date).replacingOccurrences(of: "T", with: " ")) \(file.lossyString)"
    #expect(box.lines(of: listing).contains(expected), "trash-list printed: \(listing.stdoutString)")
  }

  @Test func trashPutThenListFindsItAndRestorePutsItBack() throws {
    let box = try TrashSandbox()
    defer { box.remove() }
    let file = box.work.appending(try ItemName.validated("from trash-put #%.txt"))
    try TestFS.write(file, "put by trash-cli")

    let put = try TestTools.run("trash-put", [file.lossyString], environment: box.toolEnvironment)
    #expect(put.status == 0, "trash-put failed: \(put.stderrString)")
    #expect(!TestFS.exists(file))

    let entries = try box.trash.list()
    let entry = try #require(entries.first { $0.originalPath == file }, "list() found \(entries)")
    #expect(entry.hasInfoFile)
    #expect(!entry.isDirectory)
    #expect(entry.size == Int64("put by trash-cli".utf8.count))
    #expect(abs(try #require(entry.deletionDate).timeIntervalSinceNow) < 60)

    let restored = try box.trash.restore(entry)
    #expect(restored == file)
    #expect(try TestFS.read(file) == Array("put by trash-cli".utf8))
    #expect(!TestFS.exists(entry.infoPath))
    #expect(try box.trash.list().isEmpty)
    let listing = try TestTools.run("trash-list", [], environment: box.toolEnvironment)
    #expect(box.lines(of: listing).isEmpty, "trash-list still shows: \(listing.stdoutString)")
  }

  @Test func sameNameTwiceGetsTrashCliSuffixes() throws {
    let box = try TrashSandbox()
    defer { box.remove() }
    var originals: [ItemPath] = []
    for folder in ["a", "b", "c"] {
      let dir = box.work.appending(ItemName(folder))
      try TestFS.makeDirectory(dir)
      let file = dir.appending(ItemName("same.txt"))
      try TestFS.write(file, folder)
      originals.append(file)
    }

    let first = try box.trash.trash(originals[0])
    let second = try box.trash.trash(originals[1])
    // trash-cli, reserving names through the same info folder, takes the next free suffix.
    let put = try TestTools.run("trash-put", [originals[2].lossyString], environment: box.toolEnvironment)
    #expect(put.status == 0, "trash-put failed: \(put.stderrString)")

    #expect(first.name == ItemName("same.txt"))
    #expect(second.name == ItemName("same.txt_1"))
    let entries = try box.trash.list()
    #expect(entries.map(\.name) == [ItemName("same.txt"), ItemName("same.txt_1"), ItemName("same.txt_2")])
    #expect(entries.map(\.originalPath) == originals)

    let listing = try TestTools.run("trash-list", [], environment: box.toolEnvironment)
    let paths = box.lines(of: listing).map { String($0.split(separator: " ", maxSplits: 2)[2]) }
    #expect(Set(paths) == Set(originals.map(\.lossyString)))

    for entry in entries { try box.trash.restore(entry) }
    for (i, original) in originals.enumerated() {
      #expect(try TestFS.read(original) == Array(["a", "b", "c"][i].utf8))
    }
  }

  // MARK: - Hostile names (test plan §4.1)

  @Test(arguments: HostileName.corpus)
  func hostileNameRoundTripsThroughTrashListRestore(_ hostile: HostileName) throws {
    let box = try TrashSandbox()
    defer { box.remove() }
    let name = try ItemName.validated(hostile.bytes)
    let file = box.work.appending(name)
    try TestFS.write(file, hostile.bytes)

    let entry = try box.trash.trash(file)
    #expect(entry.originalPath?.bytes == file.bytes)
    #expect(entry.infoPath.lastComponent!.bytes.count <= 255)

    let listed = try box.trash.list()
    #expect(listed.count == 1)
    #expect(listed.first == entry)
    #expect(listed.first?.originalPath?.bytes == file.bytes)

    let restored = try box.trash.restore(try #require(listed.first))
    #expect(restored.bytes == file.bytes)
    #expect(try TestFS.read(file) == hostile.bytes)
    #expect(try box.trash.list().isEmpty)
  }

  @Test func hostileFolderNameRoundTrips() throws {
    let box = try TrashSandbox()
    defer { box.remove() }
    let folder = box.work.appending(ItemName(bytes: Array("caf".utf8) + [0xE9, 0x0A, 0x1B] + Array("[2J".utf8)))
    try TestFS.makeDirectory(folder)
    try TestFS.write(folder.appending(ItemName(bytes: [0xFE])), "inside")

    let entry = try box.trash.trash(folder)
    #expect(entry.isDirectory)
    try box.trash.restore(try #require(try box.trash.list().first))
    #expect(try TestFS.read(folder.appending(ItemName(bytes: [0xFE]))) == Array("inside".utf8))
  }

  @Test func aSymlinkIsTrashedItselfNotItsTarget() throws {
    let box = try TrashSandbox()
    defer { box.remove() }
    let target = box.work.appending(ItemName("target"))
    try TestFS.write(target, "stays")
    let link = box.work.appending(ItemName("link"))
    try TestFS.symlink(target, at: link)

    let entry = try box.trash.trash(link)
    #expect(entry.isSymbolicLink)
    #expect(try TestFS.read(target) == Array("stays".utf8))
    try box.trash.deletePermanently(entry)
    #expect(try TestFS.read(target) == Array("stays".utf8))
  }

  @Test func currentEnvironmentFollowsXDGDataHome() {
    let env = ProcessInfo.processInfo.environment
    let expected: String? =
      if let data = env["XDG_DATA_HOME"], data.hasPrefix("/") {
        data + "/Trash"
      } else if let home = env["HOME"], home.hasPrefix("/") { home + "/.local/share/Trash" } else { nil }
    #expect(FreedesktopTrash.current.homeTrash?.lossyString == expected)
    #expect(FreedesktopTrash.Environment.current.uid == getuid())
    let relative = FreedesktopTrash.Environment(home: ItemPath("/h"), dataHome: ItemPath("rel"), uid: 1)
    #expect(relative.homeTrash == ItemPath("/h/.local/share/Trash"))
  }

  @Test func trashListReadsOurInfoFilesForHostileNames() throws {
    let box = try TrashSandbox()
    defer { box.remove() }
    for hostile in HostileName.corpus {
      let file = box.work.appending(try ItemName.validated(hostile.bytes))
      try TestFS.write(file, "x")
      _ = try box.trash.trash(file)
    }
    let listing = try TestTools.run("trash-list", [], environment: box.toolEnvironment)
    #expect(listing.status == 0, "trash-list failed on our info files: \(listing.stderrString)")
    // trash-cli decodes Path as UTF-8 with replacement characters; printable names show up as is.
    let printed = listing.stdoutString
    for hostile in HostileName.corpus where hostile.isPrintableUTF8 {
      #expect(printed.contains(box.work.appending(ItemName(bytes: hostile.bytes)).lossyString), "\(hostile)")
    }
    #expect(printed.contains(box.work.lossyString + "/caf\u{FFFD}"))
    #expect(try box.trash.list().count == HostileName.corpus.count)
  }

  // MARK: - Restore

  @Test func restoreOntoAnExistingNameFailsAndChangesNothing() throws {
    let box = try TrashSandbox()
    defer { box.remove() }
    let file = box.work.appending(ItemName("notes.txt"))
    try TestFS.write(file, "old")
    let entry = try box.trash.trash(file)
    try TestFS.write(file, "new")

    let collision = #expect(throws: ProviderError.self) { try box.trash.restore(entry) }
    #expect(collision?.code == .filenameCollision)
    #expect(collision?.message.contains("already exists") == true)
    #expect(collision?.message.contains(file.displayString) == true)
    #expect(try TestFS.read(file) == Array("new".utf8))
    #expect(try TestFS.read(entry.filePath) == Array("old".utf8))
    #expect(TestFS.exists(entry.infoPath))
    #expect(try box.trash.list() == [entry])

    // A folder in the way is a collision too (RENAME_NOREPLACE, not "replace an empty folder").
    let folder = box.work.appending(ItemName("dir"))
    try TestFS.makeDirectory(folder)
    let folderEntry = try box.trash.trash(folder)
    try TestFS.makeDirectory(folder)
    #expect(throws: ProviderError.self) { try box.trash.restore(folderEntry) }
    #expect(TestFS.exists(folderEntry.filePath))
  }

  @Test func restoreRecreatesMissingParentFoldersAndAcceptsADestination() throws {
    let box = try TrashSandbox()
    defer { box.remove() }
    let deep = box.work.appending(ItemName("deep")).appending(ItemName("er"))
    try TestFS.makeDirectory(deep)
    let file = deep.appending(ItemName("file"))
    try TestFS.write(file, "deep")
    let entry = try box.trash.trash(file)
    try PosixPath.removeTree(box.work.appending(ItemName("deep")))

    #expect(try box.trash.restore(entry) == file)
    #expect(try TestFS.read(file) == Array("deep".utf8))

    let again = try box.trash.trash(file)
    let elsewhere = box.work.appending(ItemName("elsewhere")).appending(ItemName("renamed"))
    #expect(try box.trash.restore(again, to: elsewhere) == elsewhere)
    #expect(try TestFS.read(elsewhere) == Array("deep".utf8))
    #expect(!TestFS.exists(again.infoPath))
  }

  @Test func restoreOfAnEntryThatIsGoneFails() throws {
    let box = try TrashSandbox()
    defer { box.remove() }
    let file = box.work.appending(ItemName("gone"))
    try TestFS.write(file, "x")
    let entry = try box.trash.trash(file)
    try box.trash.deletePermanently(entry)
    let error = #expect(throws: ProviderError.self) { try box.trash.restore(entry) }
    #expect(error?.code == .noSuchItem)
    #expect(!TestFS.exists(file))
  }

  // MARK: - Deleting

  @Test func deletePermanentlyRemovesATreeWithoutFollowingSymlinks() throws {
    let box = try TrashSandbox()
    defer { box.remove() }
    let outside = box.root.appending(ItemName("outside"))
    try TestFS.makeDirectory(outside)
    let keep = outside.appending(ItemName("keep.txt"))
    try TestFS.write(keep, "precious")

    let tree = box.work.appending(ItemName("tree"))
    let sub = tree.appending(ItemName("sub"))
    let readOnly = sub.appending(ItemName("read-only"))
    try TestFS.makeDirectory(readOnly)
    try TestFS.write(tree.appending(ItemName("a.txt")), "a")
    try TestFS.write(sub.appending(ItemName(bytes: [0xFE, 0x0A])), "b")
    try TestFS.write(readOnly.appending(ItemName("c.txt")), "c")
    try TestFS.symlink(outside, at: tree.appending(ItemName("link-to-folder")))
    try TestFS.symlink(keep, at: sub.appending(ItemName("link-to-file")))
    try TestFS.symlink(ItemPath("/nonexistent/target"), at: sub.appending(ItemName("dangling")))
    _ = readOnly.withCString { chmod($0, 0o555) }

    let entry = try box.trash.trash(tree)
    try box.trash.deletePermanently(entry)

    #expect(try TestFS.read(keep) == Array("precious".utf8))
    #expect(try PosixPath.contentsOfDirectory(outside) == [ItemName("keep.txt")])
    #expect(!TestFS.exists(entry.filePath))
    #expect(!TestFS.exists(entry.infoPath))
    #expect(try box.trash.list().isEmpty)
  }

  @Test func emptyRemovesEntriesOrphansAndStaleInfoFiles() throws {
    let box = try TrashSandbox()
    defer { box.remove() }
    for name in ["one", "two"] {
      let file = box.work.appending(ItemName(name))
      try TestFS.write(file, name)
      _ = try box.trash.trash(file)
    }
    let folder = box.work.appending(ItemName("folder"))
    try TestFS.makeDirectory(folder.appending(ItemName("inner")))
    _ = try box.trash.trash(folder)
    let files = PosixPath.child(box.homeTrash, "files")
    let info = PosixPath.child(box.homeTrash, "info")
    try TestFS.write(files.appending(ItemName("orphan")), "no info")
    let stale = info.appending(ItemName("crashed.trashinfo"))
    try TestFS.write(stale, "[Trash Info]\nPath=/x\nDeletionDate=2001-01-01T00:00:00\n")
    try TestFS.setModificationTime(stale, secondsAgo: 3600)
    let inFlight = info.appending(ItemName("in-flight.trashinfo"))
    try TestFS.write(inFlight, "[Trash Info]\nPath=/y\nDeletionDate=2001-01-01T00:00:00\n")
    #expect(try box.trash.list().count == 4)

    try box.trash.empty()

    #expect(try box.trash.list().isEmpty)
    #expect(try PosixPath.contentsOfDirectory(files).isEmpty)
    // A fresh info without its file may belong to another program trashing right now: kept.
    #expect(try PosixPath.contentsOfDirectory(info) == [ItemName("in-flight.trashinfo")])
  }

  // MARK: - Tolerance and refusals

  @Test func malformedInfoFilesAndOrphansAreListedNotFatal() throws {
    let box = try TrashSandbox()
    defer { box.remove() }
    let files = PosixPath.child(box.homeTrash, "files")
    let info = PosixPath.child(box.homeTrash, "info")
    try TestFS.makeDirectory(files)
    try TestFS.makeDirectory(info)
    func add(_ name: String, info contents: [UInt8]?) throws {
      try TestFS.write(files.appending(ItemName(name)), name)
      if let contents { try TestFS.write(info.appending(ItemName(name + ".trashinfo")), contents) }
    }
    try add("garbage", info: [0x00, 0xFF, 0x5B, 0x0A, 0x25])
    try add("dotdot", info: Array("[Trash Info]\nPath=../../etc/passwd\nDeletionDate=2020-01-02T03:04:05\n".utf8))
    try add("nul", info: Array("[Trash Info]\nPath=/a%00b\n".utf8))
    try add("nopath", info: Array("[Trash Info]\nDeletionDate=2020-01-02T03:04:05\n".utf8))
    try add("crlf", info: Array("[Trash Info]\r\nPath=/x/y%20z%zz\r\nDeletionDate=2020-01-02T03:04:05\r\n".utf8))
    try add("relative", info: Array("[Trash Info]\nPath=rel/file\nDeletionDate=not a date\n".utf8))
    try add("othergroup", info: Array("[Other]\nPath=/wrong\n[Trash Info]\nPath=/right\n".utf8))
    try add("orphan", info: nil)
    try TestFS.write(info.appending(ItemName("no-file.trashinfo")), "[Trash Info]\nPath=/nothing\n")
    try TestFS.write(info.appending(ItemName("README")), "not an info file")

    let entries = Dictionary(uniqueKeysWithValues: try box.trash.list().map { ($0.name.lossyString, $0) })
    #expect(Set(entries.keys) == ["garbage", "dotdot", "nul", "nopath", "crlf", "relative", "othergroup", "orphan"])
    for bad in ["garbage", "dotdot", "nul", "nopath"] {
      #expect(entries[bad]?.originalPath == nil, "\(bad)")
      #expect(entries[bad]?.hasInfoFile == true, "\(bad)")
    }
    #expect(entries["crlf"]?.originalPath == ItemPath("/x/y z%zz"))
    let components = DateComponents(
      calendar: Calendar.current, year: 2020, month: 1, day: 2, hour: 3, minute: 4, second: 5)
    #expect(entries["crlf"]?.deletionDate == components.date)
    // Relative paths in the home trash are relative to the folder holding it ($XDG_DATA_HOME).
    #expect(entries["relative"]?.originalPath == box.dataHome.appending(ItemName("rel")).appending(ItemName("file")))
    #expect(entries["relative"]?.deletionDate == nil)
    #expect(entries["othergroup"]?.originalPath == ItemPath("/right"))
    #expect(entries["orphan"]?.hasInfoFile == false)
    #expect(entries["orphan"]?.originalPath == nil)

    // An orphan needs a destination; with one it restores.
    let orphan = try #require(entries["orphan"])
    #expect(throws: ProviderError.self) { try box.trash.restore(orphan) }
    let destination = box.work.appending(ItemName("recovered"))
    try box.trash.restore(orphan, to: destination)
    #expect(try TestFS.read(destination) == Array("orphan".utf8))
    try box.trash.deletePermanently(try #require(entries["garbage"]))
    #expect(!TestFS.exists(info.appending(ItemName("garbage.trashinfo"))))
  }

  @Test func trashingTheTrashOrSomethingInItIsRefused() throws {
    let box = try TrashSandbox()
    defer { box.remove() }
    let file = box.work.appending(ItemName("x"))
    try TestFS.write(file, "x")
    let entry = try box.trash.trash(file)

    for path in [box.homeTrash, entry.filePath, entry.infoPath, box.dataHome] {
      let error = #expect(throws: ProviderError.self) { try box.trash.trash(path) }
      #expect(error?.code == .invalidArgument)
      #expect(error?.message.contains("trash folder") == true, "\(String(describing: error))")
      #expect(TestFS.exists(path))
    }
  }

  @Test func errorsNameThePathEscaped() throws {
    let box = try TrashSandbox()
    defer { box.remove() }
    let missing = box.work.appending(ItemName(bytes: Array("\u{1B}[31mmissing".utf8) + [0xE9]))
    let error = try #require(#expect(throws: ProviderError.self) { try box.trash.trash(missing) })
    #expect(error.code == .noSuchItem)
    #expect(error.message.contains("\\e[31mmissing\\xE9"), "\(error.message)")
    #expect(!error.message.unicodeScalars.contains("\u{1B}") && !error.message.contains("\n"))
    #expect(throws: ProviderError.self) { try box.trash.trash(ItemPath("relative/path")) }
    #expect(throws: ProviderError.self) { try box.trash.trash(.root) }
  }

  @Test(.exclusive("topdir-trash")) func itemsOnAnotherFilesystemGoToItsTopFolderTrash() throws {
    let shm = ItemPath("/dev/shm")
    let box = try TrashSandbox(mounts: [shm])
    defer { box.remove() }
    guard let shmStatus = try? PosixPath.lstat(shm), shmStatus.isDirectory,
      shmStatus.device != (try PosixPath.lstat(box.root)).device, access("/dev/shm", W_OK) == 0
    else {
      // Not a failure of the code under test: this machine has no second writable filesystem.
      print("no separate writable /dev/shm here; top-folder trash test not run")
      return
    }
    // /dev/shm is shared by every process here: `.exclusive("topdir-trash")` serialises this test
    // with other runs of it and with the command-line trash tests, which list and empty it.
    let sharedTrash = PosixPath.child(shm, ".Trash")
    let userTrash = PosixPath.child(shm, ".Trash-\(getuid())")
    let userTrashExisted = TestFS.exists(userTrash)
    let work = try TestFS.makeTemporaryDirectory(in: "/dev/shm", prefix: "folio-trash-test-")
    defer {
      try? PosixPath.removeTree(work)
      if !userTrashExisted {
        for sub in ["files", "info", ""] { _ = PosixPath.child(userTrash, sub).withCString { rmdir($0) } }
      }
    }
    let relativeWork = work.lastComponent!.lossyString

    // 1. .Trash-$uid, created 0700, with a Path relative to the top folder.
    let file = work.appending(ItemName("shm file.txt"))
    try TestFS.write(file, "on tmpfs")
    let entry = try box.trash.trash(file)
    #expect(entry.trashDirectory == userTrash)
    #expect(try PosixPath.lstat(userTrash).permissions == 0o700 || userTrashExisted)
    let info = String(decoding: try TestFS.read(entry.infoPath), as: UTF8.self)
    #expect(info.contains("\nPath=\(relativeWork)/shm%20file.txt\n"))
    #expect(try box.trash.list().contains { $0.originalPath == file && $0.trashDirectory == userTrash })
    let listing = try TestTools.run("trash-list", [], environment: box.toolEnvironment)
    #expect(listing.stdoutString.contains(" \(file.lossyString)\n"), "trash-list printed: \(listing.stdoutString)")
    #expect(try box.trash.restore(entry) == file)
    #expect(try TestFS.read(file) == Array("on tmpfs".utf8))

    // 2. and 3. need /dev/shm/.Trash, which we may only create and remove if nobody else has one.
    guard !TestFS.exists(sharedTrash) else { return }
    defer { try? PosixPath.removeTree(sharedTrash) }

    // 2. A .Trash without the sticky bit is unsafe and ignored: back to .Trash-$uid.
    try TestFS.makeDirectory(sharedTrash)
    _ = sharedTrash.withCString { chmod($0, 0o777) }
    let unsafe = try box.trash.trash(file)
    #expect(unsafe.trashDirectory == userTrash)
    try box.trash.restore(unsafe)

    // 3. A sticky .Trash is preferred: .Trash/$uid is created in it.
    _ = sharedTrash.withCString { chmod($0, 0o1777) }
    let shared = try box.trash.trash(file)
    #expect(shared.trashDirectory == PosixPath.child(sharedTrash, String(getuid())))
    #expect(
      String(decoding: try TestFS.read(shared.infoPath), as: UTF8.self).contains(
        "\nPath=\(relativeWork)/shm%20file.txt\n"))
    let listed = try box.trash.list()
    #expect(listed.contains { $0.originalPath == file && $0.trashDirectory == shared.trashDirectory })
    let sharedListing = try TestTools.run("trash-list", [], environment: box.toolEnvironment)
    #expect(
      sharedListing.stdoutString.contains(" \(file.lossyString)\n"), "trash-list printed: \(sharedListing.stdoutString)"
    )
    try box.trash.restore(shared)
    #expect(try TestFS.read(file) == Array("on tmpfs".utf8))
  }

  // MARK: - Format details

  @Test func percentEncodingRoundTripsEveryByte() {
    let all = (0...255).map { UInt8($0) }
    let encoded = TrashInfoFormat.percentEncode(all)
    #expect(encoded.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0A && $0 != 0x20 })
    #expect(TrashInfoFormat.percentDecode(Array(encoded.utf8)) == all)
    #expect(TrashInfoFormat.percentEncode(Array("/a b/~_.-%#é".utf8)) == "/a%20b/~_.-%25%23%C3%A9")
    #expect(TrashInfoFormat.percentDecode(Array("%41%2f%zz%4".utf8)) == Array("A/%zz%4".utf8))
  }

  @Test func trashNamesFitNameMaxWithoutSplittingCharacters() {
    let emojiAtTheEdge = Array(String(repeating: "a", count: 243).utf8) + Array("👸🏼".utf8)  // 251 bytes
    let cut = FreedesktopTrash.trashName(for: emojiAtTheEdge, attempt: 0)
    #expect(cut.count <= 245)
    #expect(ItemName(bytes: cut).isValidUTF8)
    #expect(FreedesktopTrash.trashName(for: Array("x".utf8), attempt: 1) == Array("x_1".utf8))
    #expect(FreedesktopTrash.trashName(for: Array("x".utf8), attempt: 99) == Array("x_99".utf8))
    let long = FreedesktopTrash.trashName(for: [UInt8](repeating: 0xFE, count: 255), attempt: 150)
    #expect(long.count <= 245 && long.starts(with: [0xFE]))
  }

  @Test func mountTableEscapesAreDecoded() {
    #expect(FreedesktopTrash.unescapeMountField(Array("/mnt/a\\040b\\134c\\011".utf8)) == Array("/mnt/a b\\c\t".utf8))
  }
}

// MARK: - Fixtures

/// A file name from the hostile-name corpus (test plan §4.1 N02–N06, N12).
struct HostileName: Sendable, CustomTestStringConvertible {
  let label: String
  let bytes: [UInt8]

  var testDescription: String { label }

  /// True when trash-list can print it recognisably (valid UTF-8, no control characters).
  var isPrintableUTF8: Bool {
    guard let s = ItemName(bytes: bytes).utf8String else { return false }
    return !s.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) }
  }

  static let corpus: [HostileName] = [
    HostileName(label: "all C0 controls", bytes: Array(1...0x1F) + [0x7F] + Array("x".utf8)),
    HostileName(label: "ANSI colour", bytes: Array("\u{1B}[31mred".utf8)),
    HostileName(label: "OSC title", bytes: Array("\u{1B}]0;pwn\u{07}".utf8)),
    HostileName(label: "Latin-1 café", bytes: Array("caf".utf8) + [0xE9]),
    HostileName(label: "lone 0xFE", bytes: [0xFE]),
    HostileName(label: "8-bit CSI", bytes: [0x9B] + Array("31m".utf8)),
    HostileName(label: "overlong slash", bytes: [0xC0, 0xAF]),
    HostileName(label: "surrogate", bytes: [0xED, 0xA0, 0x80]),
    HostileName(label: "255 ASCII bytes", bytes: [UInt8](repeating: 0x61, count: 255)),
    HostileName(label: "255 bytes of CJK", bytes: Array(String(repeating: "測", count: 85).utf8)),
    HostileName(label: "emoji across the cut", bytes: Array(String(repeating: "b", count: 243).utf8) + Array("👸🏼".utf8)),
    HostileName(label: "spaces, percent, hash", bytes: Array(" lead %41 #frag ?q=1&x+y ".utf8)),
    HostileName(label: "escape lookalike", bytes: Array("test%46.txt".utf8)),
    HostileName(label: "dash", bytes: Array("-rf".utf8)),
    HostileName(label: "backslash and quotes", bytes: Array("a\\b'c\"d".utf8)),
    HostileName(label: "trailing newline", bytes: Array("name\n".utf8)),
    HostileName(label: "only spaces", bytes: Array("   ".utf8)),
    HostileName(label: "NFD é", bytes: Array("e\u{301}".utf8)),
    HostileName(label: "bidi override", bytes: Array("invoice\u{202E}fdp.exe".utf8)),
    HostileName(label: "looks like trashinfo", bytes: Array("x.trashinfo".utf8)),
  ]
}

/// A temporary `$HOME`, `$XDG_DATA_HOME`, mount table and work folder, all under /tmp.
struct TrashSandbox {
  let root: ItemPath
  let home: ItemPath
  let dataHome: ItemPath
  let work: ItemPath
  let trash: FreedesktopTrash

  var homeTrash: ItemPath { PosixPath.child(dataHome, "Trash") }

  /// - Parameter mounts: the mount points `list()` may look at; none by default, so the tests
  ///   never read or empty a real trash on this shared machine.
  init(mounts: [ItemPath] = []) throws {
    root = try TestFS.makeTemporaryDirectory(in: "/tmp", prefix: "folio-trash-")
    home = PosixPath.child(root, "home")
    dataHome = PosixPath.child(root, "data")
    work = PosixPath.child(root, "work")
    try TestFS.makeDirectory(home)
    try TestFS.makeDirectory(work)
    let table = PosixPath.child(root, "mounts")
    try TestFS.write(table, mounts.map { "tmpfs \($0.lossyString) tmpfs rw 0 0\n" }.joined())
    trash = FreedesktopTrash(
      environment: .init(home: home, dataHome: dataHome, uid: getuid(), mountTable: table))
  }

  /// The environment for trash-cli: the same home and data folders.
  var toolEnvironment: [String: String] {
    [
      "HOME": home.lossyString, "XDG_DATA_HOME": dataHome.lossyString, "LANG": "C.UTF-8",
      "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
    ]
  }

  /// The trash-list lines about this sandbox (the real tool also reads every mount's trash).
  func lines(of result: TestTools.Result) -> [String] {
    result.stdoutString.split(separator: "\n").map(String.init).filter { $0.contains(root.lossyString) }
  }

  func remove() { try? PosixPath.removeTree(root) }
}

/// Byte-path file helpers for tests (no Foundation paths, so hostile names survive).
enum TestFS {
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  static func makeTemporaryDirectory(in parent: String, prefix: String) throws -> ItemPath {
    var template = Array("\(parent)/\(prefix)XXXXXX".utf8).map { CChar(bitPattern: $0) } + [0]
    guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp in \(parent): errno \(errno)") }
    return ItemPath(bytes: PosixPath.bytes(ofCString: made))
  }

  static func makeDirectory(_ path: ItemPath) throws {
    try PosixPath.makeDirectories(path)
  }

  static func write(_ path: ItemPath, _ text: String) throws { try write(path, Array(text.utf8)) }

  static func write(_ path: ItemPath, _ bytes: [UInt8]) throws {
    let fd = path.withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
    guard fd >= 0 else { throw PosixPath.error(errno, "cannot create", path) }
    defer { close(fd) }
    let e = PosixPath.writeAll(fd, bytes)
    if e != 0 { throw PosixPath.error(e, "cannot write", path) }
  }

  static func read(_ path: ItemPath) throws -> [UInt8] {
    try PosixPath.readSmallFile(path, limit: 1 << 20)
  }

  static func exists(_ path: ItemPath) -> Bool {
    (try? PosixPath.lstatIfExists(path)) != nil
  }

  static func symlink(_ target: ItemPath, at path: ItemPath) throws {
    let rc = target.withCString { t in path.withCString { Glibc.symlink(t, $0) } }
    if rc != 0 { throw PosixPath.error(errno, "cannot create the symlink", path) }
  }

  static func setModificationTime(_ path: ItemPath, secondsAgo: Int) throws {
    let then = timespec(tv_sec: time(nil) - secondsAgo, tv_nsec: 0)
    var times = [then, then]
    let rc = path.withCString { utimensat(AT_FDCWD, $0, &times, AT_SYMLINK_NOFOLLOW) }
    if rc != 0 { throw PosixPath.error(errno, "cannot set the time of", path) }
  }
}

/// Runs the real trash-cli and attr tools. A missing tool fails the test with what to install:
/// these tests exist to prove interoperability, so skipping them silently would prove nothing.
enum TestTools {
  struct Result {
    let status: Int32
    let stdout: [UInt8]
    let stderr: [UInt8]
    var stdoutString: String { String(decoding: stdout, as: UTF8.self) }
    var stderrString: String { String(decoding: stderr, as: UTF8.self) }
  }

  static let packages = [
    "trash-put": "trash-cli", "trash-list": "trash-cli", "trash-restore": "trash-cli", "trash-empty": "trash-cli",
    "getfattr": "attr", "setfattr": "attr", "python3": "python3",
  ]

  static func path(of tool: String) -> String? {
    let search = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/bin:/bin:/usr/local/bin"
    for dir in search.split(separator: ":") where !dir.isEmpty {
      let candidate = "\(dir)/\(tool)"
      if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
  }

  static func run(_ tool: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Result {
    let package = packages[tool] ?? tool
    let executable = try #require(
      path(of: tool), "\(tool) is not installed: install it with `apt-get install -y \(package)` (CI installs it)")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe()
    // stderr goes to an unlinked temporary file, so reading stdout to the end cannot deadlock on a
    // full stderr pipe.
    var template = Array("/tmp/folio-tool-stderr-XXXXXX".utf8).map { CChar(bitPattern: $0) } + [0]
    let errFD = mkstemp(&template)
    guard errFD >= 0 else { throw TestFS.Failure(description: "mkstemp: errno \(errno)") }
    unlink(template)
    let err = FileHandle(fileDescriptor: errFD, closeOnDealloc: true)
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try err.seek(toOffset: 0)
    let errData = err.readDataToEndOfFile()
    return Result(status: process.terminationStatus, stdout: Array(outData), stderr: Array(errData))
  }
}
