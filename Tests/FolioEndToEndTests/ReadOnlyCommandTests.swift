import Foundation
import WorkingSetIndex
import TestExecution
import Testing

/// Commands that only read (`ls`, `info`, `recents`, `search`, `conflicts`, `--help`) leave every
/// file of Folio's as they found it: the index, its folder, the caches, the config (issue 13: `folio
/// ls` used to cost 4 `fdatasync`s and 18 page writes).
@Suite(.offThePool) struct ReadOnlyCommandTests {
  /// Every file under the sandbox's XDG folders and HOME: its size, modification time and content
  /// bytes. A file created, removed, written or touched changes the snapshot.
  static func snapshot(_ s: Sandbox) -> [String: String] {
    var files: [String: String] = [:]
    for folder in [s.dataHome, s.configHome, s.cacheHome, s.home] {
      guard let walker = FileManager.default.enumerator(atPath: folder) else { continue }
      while let relative = walker.nextObject() as? String {
        let path = folder + "/" + relative
        var st = stat()
        guard lstat(path, &st) == 0 else { continue }
        var line = "mode \(st.st_mode) size \(st.st_size) mtime \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
        if (st.st_mode & S_IFMT) == S_IFREG, let data = FileManager.default.contents(atPath: path) {
          line += " bytes " + data.base64EncodedString()
        }
        files[path] = line
      }
    }
    return files
  }

  @Test func readingCommandsWriteNothing() throws {
    let s = try Sandbox()
    try s.file("notes.txt", "some notes")
    try s.file("plan.md", "# plan")
    // An index with something in it: a tag, a use (Recents).
    #expect(try s.folio("tag", "notes.txt", "--add", "Red").succeeded)
    #expect(try s.folio("open", "plan.md", environment: ["EDITOR": "/bin/true"]).succeeded)

    let before = Self.snapshot(s)
    #expect(before.keys.contains { $0.hasSuffix("index.sqlite") }, "no index was made: \(before.keys.sorted())")
    let reads: [[Arg]] = [
      ["ls"], ["ls", "--json"], ["ls", "--sort", "date"], ["info", "notes.txt"], ["info", "--json", "plan.md"],
      ["recents"], ["recents", "--tag", "Red"], ["search", "notes"], ["conflicts"], ["--help"], ["ls", "--help"],
    ]
    for arguments in reads {
      let r = try s.folio(arguments)
      #expect(r.succeeded, "\(r)")
      let after = Self.snapshot(s)
      let changed = Set(before.keys).symmetricDifference(after.keys).union(
        before.keys.filter { after[$0] != nil && after[$0] != before[$0] })
      #expect(changed.isEmpty, "folio \(arguments) changed \(changed.sorted()): \(r)")
    }
    // What was read is what was written.
    #expect(try s.folio("recents").out.contains("plan.md"))
    #expect(try s.folio("search", "notes").out.contains("notes.txt"))
    #expect(try s.folio("ls").out.contains("Red"))
  }

  /// Before any command has written an index, reading commands still answer (from nothing) and
  /// create no index.
  @Test func readingWithoutAnIndexCreatesNone() throws {
    let s = try Sandbox()
    try s.file("a.txt", "a")
    for arguments: [Arg] in [["ls"], ["recents"], ["search", "a"], ["conflicts"], ["info", "a.txt"]] {
      let r = try s.folio(arguments)
      #expect(r.succeeded, "\(r)")
    }
    #expect(Self.snapshot(s).isEmpty, "\(Self.snapshot(s))")
  }

  /// With another Folio holding the index open (its `-wal` is there), a reader goes through that
  /// process's log and sees what it committed; and an index folder whose name SQLite would read as
  /// a URI (`?`, `#`, `%`) is read as a path.
  @Test func readingBesideAnOpenIndexAndUnderAnOddFolderName() throws {
    let s = try Sandbox()
    let data = s.root + "/da?ta#1%20 x"
    try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
    try s.file("notes.txt", "n")
    #expect(try s.folio(["tag", "notes.txt", "--add", "Blue"], environment: ["XDG_DATA_HOME": data]).succeeded)
    let closed = try s.folio(["search", "Blue"], environment: ["XDG_DATA_HOME": data])
    #expect(closed.succeeded && closed.out.contains("notes.txt"), "\(closed)")
    #expect(!FileManager.default.fileExists(atPath: data + "/folio/index.sqlite-wal"))

    let held = try WorkingSetIndex.open(at: URL(fileURLWithPath: data + "/folio/index.sqlite"))
    defer { try? held.close() }
    #expect(FileManager.default.fileExists(atPath: data + "/folio/index.sqlite-wal"))
    let open = try s.folio(["search", "Blue"], environment: ["XDG_DATA_HOME": data])
    #expect(open.succeeded && open.out.contains("notes.txt"), "\(open)")
  }
}
