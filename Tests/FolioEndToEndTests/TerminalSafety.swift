import Foundation
import TestExecution
import Testing

/// Names built to attack a terminal (test-plan §4.1 N02–N04, N06, N09): escape sequences, bidi
/// controls, C0/C1 controls and invalid UTF-8 (including a raw 8-bit CSI).
let hostileNames: [[UInt8]] = [
  Array("\u{1B}[31mred".utf8),
  Array("\u{1B}]0;pwn\u{07}".utf8),
  Array("\u{1B}]52;c;cHduZWQ=\u{07}".utf8),
  Array("\u{1B}[2J\u{1B}[1A\rharmless".utf8),
  Array("\u{1B}P$q;touch p\u{1B}\\".utf8),
  Array("invoice\u{202E}fdp.exe".utf8),
  Array("iso\u{2066}late\u{2069}\u{200E}\u{200F}\u{061C}".utf8),
  Array("line\nbreak\ttab\u{7F}del\u{0B}".utf8),
  Array("c1 \u{9B}31m \u{85}".utf8),
  Array("raw csi ".utf8) + [0x9B] + Array("2J".utf8),
  Array("latin1 caf".utf8) + [0xE9, 0xFE, 0x80],
]

/// The bytes are valid UTF-8 and contain no C0 control but "\n", no DEL, no C1 control and no
/// bidi or invisible direction control.
func expectTerminalSafe(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
  guard let text = String(validating: bytes, as: UTF8.self) else {
    Issue.record("output is not valid UTF-8: \(bytes)", sourceLocation: sourceLocation)
    return
  }
  let bidi: ClosedRange<UInt32> = 0x202A...0x202E
  let isolates: ClosedRange<UInt32> = 0x2066...0x2069
  for scalar in text.unicodeScalars {
    let v = scalar.value
    let unsafe =
      (v < 0x20 && v != 0x0A) || v == 0x7F || (0x80...0x9F).contains(v) || bidi.contains(v) || isolates.contains(v)
      || v == 0x200E || v == 0x200F || v == 0x061C
    if unsafe {
      Issue.record(
        "output contains U+\(String(v, radix: 16, uppercase: true)):\n\(text.debugDescription)", sourceLocation: sourceLocation)
      return
    }
  }
}

/// Every listing of the working set, and every error, passes hostile names through the sanitiser
/// too, not only `ls`.
@Suite(.offThePool) struct TerminalSafetyTests {
  @Test func recentsSearchTrashAndTagsAreSafe() throws {
    let s = try Sandbox()
    let editor = try s.script("bin/editor", "exit 0\n")
    let tag = "bold\u{1B}[1m\u{202E}"
    for (i, name) in hostileNames.enumerated() {
      // A common word first, so that one search finds them all.
      let full = Array("hostile ".utf8) + name
      try s.file(bytes: full, "x")
      switch i % 3 {
      case 0: #expect(try s.folio("open", Arg(bytes: full), environment: ["EDITOR": editor]).succeeded)
      case 1: #expect(try s.folio("tag", Arg(bytes: full), "--add", Arg(tag)).succeeded)
      default: #expect(try s.folio("favorite", Arg(bytes: full)).succeeded)
      }
      let tags = try s.folio("tag", Arg(bytes: full))
      #expect(tags.succeeded, "\(tags)")
      expectTerminalSafe(tags.stdout)
    }
    let recents = try s.folio("recents")
    #expect(recents.succeeded && recents.outLines.count == hostileNames.count, "\(recents)")
    expectTerminalSafe(recents.stdout)

    let search = try s.folio("search", "hostile")
    #expect(search.succeeded && search.outLines.count == hostileNames.count, "\(search)")
    expectTerminalSafe(search.stdout)
    let byTag = try s.folio("search", "bold")
    #expect(byTag.succeeded && !byTag.stdout.isEmpty, "\(byTag)")
    expectTerminalSafe(byTag.stdout)

    let rm = try s.folio(["rm"] + hostileNames.map { Arg(bytes: Array("hostile ".utf8) + $0) })
    #expect(rm.succeeded, "\(rm)")
    let trash = try s.folio("trash")
    #expect(trash.succeeded && trash.outLines.count == hostileNames.count, "\(trash)")
    expectTerminalSafe(trash.stdout)
    expectTerminalSafe(try s.folio("recents").stdout)

    let restore = try s.folio("trash", "restore", Arg(bytes: Array("hostile ".utf8) + hostileNames[0] + [0x21]))
    #expect(restore.failedCleanly(), "\(restore)")
    expectTerminalSafe(restore.stderr)
  }

  /// Errors quote what they reject: an unknown action or location, a bad option value, a glob
  /// that expanded to a name starting with "-".
  @Test func errorsQuotingArgumentsAreSafe() throws {
    let s = try Sandbox()
    try s.file("x.txt", "x")
    let attempts: [[Arg]] = [
      ["action", "\u{1B}]0;pwn\u{07}", "x.txt"],
      ["ls", "--sort", "x\u{1B}[2J"],
      ["info", "--\u{1B}]0;pwn\u{07}"],
      ["tag", "x.txt", "--remove", "\u{1B}[31mred"],
      ["rename", "x.txt", Arg(bytes: Array("a/\u{1B}[2J".utf8) + [0xFF])],
      ["mkdir", Arg(bytes: [0x1B, 0x5B, 0x32, 0x4A, 0x2F, 0x78])],
    ]
    for arguments in attempts {
      let r = try s.folio(arguments)
      #expect(r.status == 1 || r.status == 2, "\(r)")
      #expect(!r.stderr.isEmpty, "\(r)")
      expectTerminalSafe(r.stderr)
    }
  }
}
