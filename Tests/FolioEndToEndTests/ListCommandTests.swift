import Foundation
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `folio ls`: order, sorting, hidden items, limits, the JSON fields, and names that must never
/// reach a terminal raw.
@Suite(.offThePool) struct ListCommandTests {
  /// The names `ls --json` printed, in order.
  static func names(_ r: RunResult) throws -> [String] {
    try #require(r.json().array).map { $0["name"]?.string ?? "<no name>" }
  }

  /// The names of the human listing: the name is the last column, after the kind column; folders
  /// end with "/".
  static func humanNames(_ r: RunResult) -> [String] {
    r.outLines.map { line in
      // size(8) 2 date(16) 2 kind(14) 2 → the name starts at column 44.
      String(line.dropFirst(44))
    }
  }

  static func date(_ iso: String) -> Date { ISO8601DateFormatter().date(from: iso)! }

  /// Folders first, then names in natural order: case-insensitive, digit runs as numbers.
  @Test func naturalOrderWithFoldersFirst() throws {
    let s = try Sandbox()
    for name in ["file10.txt", "file2.txt", "File1.txt", "beta", "x9", "X10"] { try s.file(name, name) }
    try s.folder("zeta")
    try s.folder("Alpha")
    let expected = ["Alpha", "zeta", "beta", "File1.txt", "file2.txt", "file10.txt", "x9", "X10"]

    let json = try s.folio("ls", "--json")
    #expect(json.succeeded, "\(json)")
    #expect(try Self.names(json) == expected)

    let human = try s.folio("ls")
    #expect(human.succeeded, "\(human)")
    #expect(Self.humanNames(human) == ["Alpha/", "zeta/", "beta", "File1.txt", "file2.txt", "file10.txt", "x9", "X10"], "\(human)")

    let mixed = try s.folio("ls", "--json", "--no-folders-first")
    #expect(try Self.names(mixed) == ["Alpha", "beta", "File1.txt", "file2.txt", "file10.txt", "x9", "X10", "zeta"])

    // A path argument lists that folder, not the working directory.
    try s.file("zeta/inner.txt")
    #expect(try Self.names(s.folio("ls", "--json", "zeta")) == ["inner.txt"])
    #expect(try Self.names(s.folio("ls", "--json", Arg(s.path("zeta")))) == ["inner.txt"])
  }

  @Test func sortBySizeDateKindAndReverse() throws {
    let s = try Sandbox()
    try s.folder("dir")
    try s.file("small.txt", String(repeating: "s", count: 10), modified: Self.date("2020-01-01T00:00:00Z"))
    try s.file("big.md", String(repeating: "b", count: 3000), modified: Self.date("2001-01-01T00:00:00Z"))
    try s.file("mid.png", String(repeating: "m", count: 200), modified: Self.date("2010-06-01T00:00:00Z"))

    // As the browser and `ls -S` / `ls -t`: largest and newest first; --reverse turns them.
    #expect(try Self.names(s.folio("ls", "--json", "--sort", "size")) == ["dir", "big.md", "mid.png", "small.txt"])
    // Reversing keeps folders first, as Finder does.
    #expect(try Self.names(s.folio("ls", "--json", "--sort", "size", "--reverse")) == ["dir", "small.txt", "mid.png", "big.md"])
    #expect(try Self.names(s.folio("ls", "--json", "--sort", "date")) == ["dir", "small.txt", "mid.png", "big.md"])
    #expect(try Self.names(s.folio("ls", "--json", "--sort", "date", "--reverse")) == ["dir", "big.md", "mid.png", "small.txt"])
    // Kind: by the kind's description, case-insensitively: "Markdown" < "Plain text" < "PNG image".
    #expect(try Self.names(s.folio("ls", "--json", "--sort", "kind")) == ["dir", "big.md", "small.txt", "mid.png"])
    #expect(try Self.names(s.folio("ls", "--json", "--reverse")) == ["dir", "small.txt", "mid.png", "big.md"])
  }

  @Test func hiddenItemsOnlyWithAll() throws {
    let s = try Sandbox()
    try s.file(".hidden", "h")
    try s.folder(".config")
    try s.file("shown", "s")
    #expect(try Self.names(s.folio("ls", "--json")) == ["shown"])
    #expect(try Self.names(s.folio("ls", "--json", "--all")) == [".config", ".hidden", "shown"])
    #expect(try Self.names(s.folio("ls", "--json", "-a")) == [".config", ".hidden", "shown"])
    #expect(try s.folio("ls").outLines.count == 1)
  }

  @Test func limitPrintsTheFirstItemsOfTheOrder() throws {
    let s = try Sandbox()
    for i in 1...12 { try s.file("f\(i)") }
    #expect(try Self.names(s.folio("ls", "--json", "--limit", "3")) == ["f1", "f2", "f3"])
    #expect(try Self.names(s.folio("ls", "--json", "--limit", "2", "--reverse")) == ["f12", "f11"])
    #expect(try Self.names(s.folio("ls", "--json", "--limit", "0")) == [])
    #expect(try Self.names(s.folio("ls", "--json", "--limit", "100")).count == 12)
    let human = try s.folio("ls", "--limit", "5")
    #expect(human.succeeded && human.outLines.count == 5, "\(human)")
    #expect(try s.folio("ls", "--limit=-1").status == 2)
    // A negative number is a number, refused as one (it was read as a missing value).
    let negative = try s.folio("ls", "--limit", "-1")
    #expect(negative.failedCleanly(2), "\(negative)")
    #expect(negative.err.contains("--limit must be 0 or more"), "\(negative)")
    let recents = try s.folio("recents", "--limit", "-3")
    #expect(recents.failedCleanly(2) && recents.err.contains("--limit must be 0 or more"), "\(recents)")
    let search = try s.folio("search", "f1", "--limit", "-3")
    #expect(search.failedCleanly(2) && search.err.contains("--limit must be 0 or more"), "\(search)")
  }

  /// Sorted by size, folders have no size to compare: among themselves they go by name, A to Z,
  /// whichever way the sizes run (largest first put them in reverse name order).
  @Test func sortBySizeKeepsFoldersInNameOrder() throws {
    let s = try Sandbox()
    for name in ["b-dir", "a-dir", "c-dir"] { try s.folder(name) }
    // A folder with many entries has a larger st_size than an empty one: not a size to sort by.
    for i in 0..<300 { try s.file("c-dir/entry-with-a-long-name-\(i)") }
    try s.file("one.txt", "1")
    try s.file("two.txt", "22")
    try s.file("also-two.txt", "22")
    for reverse in [false, true] {
      let arguments: [Arg] = ["ls", "--json", "--sort", "size"] + (reverse ? ["--reverse"] : [])
      let files = reverse ? ["one.txt", "also-two.txt", "two.txt"] : ["also-two.txt", "two.txt", "one.txt"]
      #expect(try Self.names(s.folio(arguments)) == ["a-dir", "b-dir", "c-dir"] + files, "reverse: \(reverse)")
    }
    let mixed = try Self.names(s.folio("ls", "--json", "--sort", "size", "--no-folders-first"))
    #expect(mixed == ["also-two.txt", "two.txt", "one.txt", "a-dir", "b-dir", "c-dir"])
  }

  /// A folder that can be read but not searched (mode 644): `ls` lists its names and says it
  /// cannot access the rest. Folio printed nothing and exited 0, as for an empty folder.
  @Test func aFolderWithoutSearchPermissionListsItsNamesAndFails() throws {
    let s = try Sandbox()
    try s.file("locked/notes.txt", "n")
    try s.file("locked/photo.png", "p")
    try s.folder("locked/inner")
    #expect(chmod(s.path("locked"), 0o644) == 0)
    defer { _ = chmod(s.path("locked"), 0o755) }

    let human = try s.folioBoundByPermissions("ls", "locked")
    #expect(human.status == 1, "\(human)")
    #expect(Self.humanNames(human) == ["inner/", "notes.txt", "photo.png"], "\(human)")
    #expect(human.outLines.allSatisfy { $0.hasPrefix("       ?  ?") }, "\(human)")
    #expect(human.errLines.count == 1 && human.err.hasPrefix("folio: 3 items of \(s.path("locked")) listed by name only: "), "\(human)")
    #expect(human.err.contains("Permission denied") && human.err.contains("x permission"), "\(human)")

    let json = try s.folioBoundByPermissions("ls", "--json", "locked")
    #expect(json.status == 1, "\(json)")
    let items = try #require(json.json().array)
    #expect(items.map { $0["name"]?.string ?? "?" } == ["inner", "notes.txt", "photo.png"])
    #expect(items.map { $0["kind"]?.string ?? "?" } == ["folder", "file", "file"])
    #expect(items.allSatisfy { $0["error"]?.string?.contains("Permission denied") == true }, "\(items)")
    #expect(Set(items.compactMap { $0["id"]?.string }).count == 3, "each keeps its own identifier")
  }

  /// No read permission at all (mode 311, 000): a clear error, never an empty listing.
  @Test(arguments: [0o311, 0o000] as [mode_t])
  func aFolderWithoutReadPermissionIsAnError(_ mode: mode_t) throws {
    let s = try Sandbox()
    try s.file("locked/notes.txt", "n")
    #expect(chmod(s.path("locked"), mode) == 0)
    defer { _ = chmod(s.path("locked"), 0o755) }
    let r = try s.folioBoundByPermissions("ls", "locked")
    #expect(r.failedCleanly(), "\(r)")
    #expect(r.err.contains("Permission denied") && r.err.contains(s.path("locked")), "\(r)")
  }

  /// Every item carries the documented fields with the right types, `null` where unknown.
  @Test func jsonFields() throws {
    let s = try Sandbox()
    try s.file("report.txt", "12345", modified: Self.date("2001-02-03T04:05:06Z"))
    try s.folder("folder")
    let tag = try s.folio("tag", "report.txt", "--add", "Red")
    #expect(tag.succeeded, "\(tag)")
    #expect(try s.folio("favorite", "report.txt").succeeded)

    let items = try #require(s.folio("ls", "--json").json().array)
    try #require(items.count == 2)
    let folder = items[0]
    let file = items[1]

    #expect(file["name"] == .string("report.txt"))
    #expect(file["path"] == .string(s.path("report.txt")))
    #expect(file["location"] == .string("local"))
    #expect(file["kind"] == .string("file"))
    #expect(file["size"] == .number(5))
    #expect(file["modified"] == .string("2001-02-03T04:05:06Z"))
    #expect(file["tags"] == .array([.string("Red")]))
    #expect(file["favorite"] == .bool(true))
    #expect(file["id"]?.string?.isEmpty == false)
    #expect(file["nameBytes"] == nil, "a UTF-8 name carries no nameBytes")

    #expect(folder["name"] == .string("folder"))
    #expect(folder["kind"] == .string("folder"))
    #expect(folder["favorite"] == .bool(false))
    #expect(folder["tags"] == .array([]))
    #expect(folder["size"] == .null, "a folder's size is unknown, and says so")
    #expect(folder["modified"]?.string != nil)
    for key in ["id", "name", "path", "location", "kind", "size", "modified", "tags", "favorite"] {
      #expect(folder[key] != nil, "the folder has no '\(key)': \(folder)")
      #expect(file[key] != nil, "the file has no '\(key)': \(file)")
    }
    // Identifiers are distinct and stable from one run to the next.
    #expect(folder["id"] != file["id"])
    let again = try #require(s.folio("ls", "--json").json().array)
    #expect(again.map { $0["id"] } == items.map { $0["id"] })
  }

  /// A name that is not UTF-8 carries its exact bytes in base64, and those bytes name the file.
  @Test func invalidUTF8NameCarriesExactBytes() throws {
    let s = try Sandbox()
    let name: [UInt8] = Array("bad".utf8) + [0xFE, 0xC0, 0xAF, 0xED, 0xA0, 0x80] + Array("caf".utf8) + [0xE9]
    try s.file(bytes: name, "abc")
    let item = try #require(s.folio("ls", "--json").json().array?.first)
    let base64 = try #require(item["nameBytes"]?.string, "no nameBytes in \(item)")
    #expect(Data(base64Encoded: base64).map(Array.init) == name)
    let pathBase64 = try #require(item["pathBytes"]?.string)
    #expect(Data(base64Encoded: pathBase64).map(Array.init) == s.path(bytes: name))
    // The text fields are a visible escape, never U+FFFD (which would make two names look alike).
    let shown = try #require(item["name"]?.string)
    #expect(shown.hasPrefix("bad") && !shown.contains("\u{FFFD}"), "\(shown)")

    // The exact bytes given back as an argument name the same file.
    let info = try s.folio("info", "--json", Arg(bytes: name))
    #expect(info.succeeded, "\(info)")
    #expect(try info.json()["nameBytes"] == .string(base64))
  }

  /// Names that are escape sequences, bidi controls, C0/C1 controls and invalid UTF-8: the human
  /// listing shows every one of them on its own line, and not one control byte reaches stdout.
  @Test func hostileNamesNeverReachTheTerminalRaw() throws {
    let s = try Sandbox()
    let hostile = hostileNames
    for name in hostile { try s.file(bytes: name, "x") }

    for arguments: [Arg] in [["ls"], ["ls", "--all", "--sort", "size"]] {
      let r = try s.folio(arguments)
      #expect(r.succeeded, "\(r)")
      #expect(r.outLines.count == hostile.count, "one line per item: \(r)")
      expectTerminalSafe(r.stdout)
    }
    // info shows the name and the path; the path also crosses an error message.
    for name in hostile {
      let info = try s.folio("info", Arg(bytes: name))
      #expect(info.succeeded, "\(info)")
      expectTerminalSafe(info.stdout)
      let missing = try s.folio("info", Arg(bytes: name + Array(".missing".utf8)))
      #expect(missing.failedCleanly(), "\(missing)")
      expectTerminalSafe(missing.stderr)
    }
  }

  /// A folder of several pages (the command asks for pages of 1000): one JSON array, every item
  /// once, in order across the page boundaries; --limit stops inside a page.
  @Test func severalPages() throws {
    let s = try Sandbox()
    let count = 2345
    for i in 0..<count { try s.file("f\(i)") }
    let all = try Self.names(s.folio("ls", "--json"))
    #expect(all == (0..<count).map { "f\($0)" })
    let reversed = try Self.names(s.folio("ls", "--json", "--reverse", "--limit", "1500"))
    #expect(reversed == (0..<count).reversed().prefix(1500).map { "f\($0)" })
    let human = try s.folio("ls")
    #expect(human.succeeded && human.outLines.count == count, "\(human.outLines.count) lines")
  }

  @Test func listingAFileOrAMissingFolder() throws {
    let s = try Sandbox()
    try s.file("one.txt", "1")
    let file = try s.folio("ls", "--json", "one.txt")
    #expect(try Self.names(file) == ["one.txt"])
    let missing = try s.folio("ls", "nowhere")
    #expect(missing.failedCleanly(), "\(missing)")
    #expect(missing.err.contains(s.path("nowhere")), "\(missing)")
  }

  /// The date column is local time as the C library reads it (`TZ`), DST included: the same
  /// instant reads differently in New York, Kolkata and UTC, as a Gregorian calendar in each zone
  /// says (the command no longer builds an ICU date formatter; docs/DECISIONS.md).
  @Test func datesAreInTheLocalTimeZone() throws {
    let s = try Sandbox()
    // Summer in New York (EDT, UTC-4) and winter (EST, UTC-5), a half-hour zone in Kolkata.
    let instants = ["2024-07-04T03:30:00Z", "2024-01-15T03:30:00Z"]
    for (i, iso) in instants.enumerated() { try s.file("f\(i).txt", "x", modified: Self.date(iso)) }
    for zone in ["America/New_York", "Asia/Kolkata", "UTC"] {
      let tz = try #require(TimeZone(identifier: zone))
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = tz
      let listing = try s.folio("ls", environment: ["TZ": zone])
      #expect(listing.succeeded, "\(listing)")
      for (i, iso) in instants.enumerated() {
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: Self.date(iso))
        let expected = String(format: "%04d-%02d-%02d %02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!)
        let line = listing.outLines.first { $0.hasSuffix("f\(i).txt") } ?? ""
        #expect(line.dropFirst(10).hasPrefix(expected), "\(zone): \(line)")
      }
    }
  }
}
