import Foundation
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `open` runs the opener with an argv (never a shell) and records the use; `recents` and
/// `search` read that back from the index.
@Suite(.offThePool) struct OpenAndRecentsTests {
  /// A name that a shell would run: `$(touch pwned)` and `;` would create files, `-rf` would be an
  /// option if it led the operand (the operand is an absolute path, so it never does).
  static let shellBait = "$(touch pwned) -rf;x.txt"

  @Test func openRunsEditorWithExactArgvAndNoShell() throws {
    let s = try Sandbox()
    let argvFile = s.root + "/argv"
    let editor = try s.recordingScript("bin/editor", argvFile: argvFile)
    try s.file(Self.shellBait, "text")

    let r = try s.folio("open", Arg(Self.shellBait), environment: ["EDITOR": editor])
    #expect(r.succeeded, "\(r)")
    let argv = try #require(s.recordedArgv(argvFile), "the editor did not run: \(r)")
    #expect(argv == [Array(editor.utf8), Array(s.path(Self.shellBait).utf8)])
    #expect(!s.exists("pwned"), "a shell ran the name")
    #expect(!FileManager.default.fileExists(atPath: s.root + "/bin/pwned"))
    #expect(s.contents(Self.shellBait) == "text")

    let recents = try s.folio("recents", "--json")
    #expect(recents.succeeded, "\(recents)")
    let first = try #require(recents.json().array?.first, "Recents is empty: \(recents)")
    #expect(first["name"] == .string(Self.shellBait))
    #expect(first["path"] == .string(s.path(Self.shellBait)))
    let lastUsed = try #require(first["lastUsed"]?.string, "no lastUsed: \(first)")
    let when = try #require(ISO8601DateFormatter().date(from: lastUsed), "lastUsed is not ISO 8601: \(lastUsed)")
    #expect(abs(when.timeIntervalSinceNow) < 300, "lastUsed \(lastUsed) is not now")

    let human = try s.folio("recents")
    #expect(human.succeeded && human.outLines.count == 1, "\(human)")
    #expect(human.out.contains(s.path(Self.shellBait)), "\(human)")
  }

  /// VISUAL wins over EDITOR, as for every Unix tool that reads both.
  @Test func visualBeforeEditor() throws {
    let s = try Sandbox()
    let visualArgv = s.root + "/visual-argv"
    let editorArgv = s.root + "/editor-argv"
    let visual = try s.recordingScript("bin/visual", argvFile: visualArgv)
    let editor = try s.recordingScript("bin/editor", argvFile: editorArgv)
    try s.file("-n", "dash")
    let r = try s.folio("open", "./-n", environment: ["VISUAL": visual, "EDITOR": editor])
    #expect(r.succeeded, "\(r)")
    #expect(s.recordedArgv(visualArgv) == [Array(visual.utf8), Array(s.path("-n").utf8)])
    #expect(s.recordedArgv(editorArgv) == nil)
  }

  /// Recents is most recently used first, and opening again moves an item to the top.
  @Test func recentsOrderAndLimit() throws {
    let s = try Sandbox()
    let editor = try s.script("bin/editor", "exit 0\n")
    for name in ["first.txt", "second.txt", "third.txt"] {
      try s.file(name, name)
      let r = try s.folio("open", Arg(name), environment: ["EDITOR": editor])
      #expect(r.succeeded, "\(r)")
    }
    #expect(try s.folio("open", "first.txt", environment: ["EDITOR": editor]).succeeded)
    let names = try #require(s.folio("recents", "--json").json().array).map { $0["name"]?.string }
    #expect(names == ["first.txt", "third.txt", "second.txt"])
    let limited = try #require(s.folio("recents", "--json", "--limit", "1").json().array).map { $0["name"]?.string }
    #expect(limited == ["first.txt"])
  }

  /// A failing opener is reported (exit 1), and the item does not count as used: only what was
  /// opened belongs in Recents (issue 9).
  @Test func failingOpener() throws {
    let s = try Sandbox()
    let editor = try s.script("bin/editor", "exit 3\n")
    try s.file("a.txt", "a")
    let r = try s.folio("open", "a.txt", environment: ["EDITOR": editor])
    #expect(r.failedCleanly(), "\(r)")
    #expect(r.err.contains("status 3"), "\(r)")

    let missing = try s.folio("open", "nope.txt", environment: ["EDITOR": editor])
    #expect(missing.failedCleanly(), "\(missing)")
    #expect(try #require(s.folio("recents", "--json").json().array).isEmpty)

    // The same opener succeeding: now it is recent.
    let ok = try s.script("bin/ok-editor", "exit 0\n")
    #expect(try s.folio("open", "a.txt", environment: ["EDITOR": ok]).status == 0)
    let names = try #require(s.folio("recents", "--json").json().array).map { $0["name"]?.string }
    #expect(names == ["a.txt"])
  }

  /// A broken link, a loop of links and a FIFO are refused with their reason before any opener
  /// starts (it would fail, or wait for a writer forever), and none of them becomes recent.
  @Test func specialFilesAreRefusedBeforeTheOpener() throws {
    let s = try Sandbox()
    let marker = s.root + "/opener-ran"
    let editor = try s.script("bin/editor", "touch '\(marker)'\n")
    #expect(symlink("missing.txt", s.path("dangling")) == 0)
    #expect(mkfifo(s.path("pipe"), 0o600) == 0)
    #expect(symlink("loop", s.path("loop")) == 0)
    for (name, reason) in [("dangling", "broken link"), ("pipe", "named pipe"), ("loop", "loop of links")] {
      let r = try s.folio("open", Arg(name), environment: ["EDITOR": editor])
      #expect(r.failedCleanly(), "\(r)")
      #expect(r.err.contains(reason), "\(name): \(r)")
    }
    #expect(!FileManager.default.fileExists(atPath: marker), "no opener ran")
    #expect(try #require(s.folio("recents", "--json").json().array).isEmpty)
    // Info says so too.
    #expect(try s.folio("info", "dangling").out.contains("broken: its target is missing"))
    #expect(try s.folio("info", "loop").out.contains("broken: a loop of links"))
  }

  /// Issue 9: `folio recents` printed a renamed file at its old path, and a new file at that path
  /// with the old one's tags. Entries of this computer are checked (nothing is written): a moved
  /// one is printed where it is, a gone one is marked missing, without tags.
  @Test func recentsShowsWhereAMovedFileIsAndMarksAGoneOne() throws {
    let s = try Sandbox()
    let editor = try s.script("bin/editor", "exit 0\n")
    try s.file("moved.txt", "m")
    try s.file("gone.txt", "g")
    for name in ["moved.txt", "gone.txt"] {
      #expect(try s.folio("open", Arg(name), environment: ["EDITOR": editor]).status == 0)
      #expect(try s.folio("tag", Arg(name), "--add", "Red").status == 0)
    }
    #expect(rename(s.path("moved.txt"), s.path("renamed.txt")) == 0)
    #expect(unlink(s.path("gone.txt")) == 0)
    try s.file("gone.txt", "someone else's")
    let listed = try s.folio("recents")
    #expect(listed.status == 0, "\(listed)")
    #expect(listed.out.contains(s.path("renamed.txt")), "\(listed.out)")
    #expect(!listed.out.contains(s.path("moved.txt")), "\(listed.out)")
    let gone = try #require(listed.out.split(separator: "\n").first { $0.contains("gone.txt") })
    #expect(gone.contains("(missing)") && !gone.contains("Red"), "\(gone)")
    let json = try #require(s.folio("recents", "--json").json().array)
    let missing = json.filter { $0["missing"]?.bool == true }.map { $0["name"]?.string }
    #expect(missing == ["gone.txt"])
  }

  @Test func searchFindsOpenedItemsByNamePrefixAndTaggedItemsByTag() throws {
    let s = try Sandbox()
    let editor = try s.script("bin/editor", "exit 0\n")
    try s.file("Quarterly Report.txt", "q")
    try s.file("notes.md", "n")
    try s.file("untouched.txt", "u")
    #expect(try s.folio("open", "Quarterly Report.txt", environment: ["EDITOR": editor]).succeeded)
    #expect(try s.folio("tag", "notes.md", "--add", "Projectx").succeeded)

    func found(_ query: Arg...) throws -> [String?] {
      let r = try s.folio(["search", "--json"] + query)
      #expect(r.succeeded, "\(r)")
      return try #require(r.json().array).map { $0["name"]?.string }
    }
    #expect(try found("rep") == ["Quarterly Report.txt"])
    #expect(try found("quart") == ["Quarterly Report.txt"])
    #expect(try found("projectx") == ["notes.md"])
    #expect(try found("proj") == ["notes.md"])
    #expect(try found("untouched") == [], "search reads the index: an item never used is not in it")
    #expect(try found("zzz") == [])

    let tagged = try #require(s.folio("search", "--json", "Projectx").json().array?.first)
    #expect(tagged["tags"] == .array([.string("Projectx")]))
    #expect(tagged["path"] == .string(s.path("notes.md")))
    #expect(tagged["lastUsed"] == .null, "never opened, but the key is there: \(tagged)")

    let human = try s.folio("search", "report")
    #expect(human.succeeded && human.outLines.count == 1, "\(human)")
    #expect(human.out.contains(s.path("Quarterly Report.txt")), "\(human)")
  }

  /// Recents follows what Folio itself does to an item: moves, renames (of the item or of a folder
  /// above it), deletion and restore.
  @Test func recentsFollowsMovesRenamesAndTheTrash() throws {
    let s = try Sandbox()
    let editor = try s.script("bin/editor", "exit 0\n")
    try s.file("a.txt", "a")
    try s.folder("d")
    #expect(try s.folio("open", "a.txt", environment: ["EDITOR": editor]).succeeded)

    func first() throws -> JSONValue {
      try #require(s.folio("recents", "--json").json().array?.first)
    }
    #expect(try s.folio("mv", "a.txt", "d").succeeded)
    #expect(try first()["path"] == .string(s.path("d/a.txt")))
    #expect(try s.folio("rename", "d/a.txt", "b.txt").succeeded)
    #expect(try first()["path"] == .string(s.path("d/b.txt")))
    #expect(try s.folio("rename", "d", "e").succeeded)
    #expect(try first()["path"] == .string(s.path("e/b.txt")))

    #expect(try s.folio("rm", "e/b.txt").succeeded)
    let trashed = try first()
    #expect(trashed["name"] == .string("b.txt"))
    #expect(trashed["trashed"]?.string != nil, "\(trashed)")
    let human = try s.folio("recents")
    #expect(human.outLines.first?.hasSuffix("(deleted)") == true, "\(human)")
    #expect(human.outLines.first?.contains(s.path("e/b.txt") + "  (deleted)") == true, "where it was, not the Trash: \(human)")

    #expect(try s.folio("trash", "restore", "e/b.txt").succeeded)
    let restored = try first()
    #expect(restored["path"] == .string(s.path("e/b.txt")))
    #expect(restored["trashed"] == nil, "\(restored)")
  }
}
