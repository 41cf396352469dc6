import PreviewKit
import Testing

/// The sanitiser against the escape corpus (test-plan.md N02–N06, N09; preview-pane.md §3): what a
/// file or a helper says reaches the pane as safe text, and only its colours survive.
@Suite struct TerminalBytesTests {
  /// One corpus entry: the bytes and the text the pane must show for them.
  struct Case: CustomTestStringConvertible, Sendable {
    let name: String
    let input: [UInt8]
    let shown: String
    var testDescription: String { name }
  }

  static let esc: [UInt8] = [0x1B]
  static let bel: [UInt8] = [0x07]
  static let st: [UInt8] = [0x1B, 0x5C]

  static let corpus: [Case] = [
    Case(name: "OSC 52 writes the clipboard", input: .init(["a", esc, "]52;c;Y3VybCBldmlsfGJhc2g=", bel, "b"]), shown: "ab"),
    Case(name: "OSC 0 sets the title", input: .init([esc, "]0;pwned", bel, "title"]), shown: "title"),
    Case(name: "OSC ended by ST", input: .init([esc, "]2;pwned", st, "x"]), shown: "x"),
    Case(name: "OSC 8 hyperlink", input: .init([esc, "]8;;http://x", st, "y", esc, "]8;;", st]), shown: "y"),
    Case(name: "OSC 50 font query", input: .init([esc, "]50;?", bel, "z"]), shown: "z"),
    Case(name: "CSI 2J clears the screen", input: .init([esc, "[2Jclear"]), shown: "clear"),
    Case(name: "CSI 21t reports the title", input: .init([esc, "[21tq"]), shown: "q"),
    Case(name: "cursor up and CR", input: .init([esc, "[1A\rharmless"]), shown: "^Mharmless"),
    Case(name: "8-bit CSI", input: .init([[0x9B], "2Jx"]), shown: "x"),
    Case(name: "UTF-8 U+009B is a CSI too", input: .init([[0xC2, 0x9B], "2Jx"]), shown: "x"),
    Case(name: "8-bit OSC ended by 8-bit ST", input: .init([[0x9D], "0;t", [0x9C], "after"]), shown: "after"),
    Case(name: "DCS DECRQSS", input: .init([esc, "P$q;touch /tmp/p", st, "after"]), shown: "after"),
    Case(name: "DCS in tmux passthrough", input: .init([esc, "Ptmux;", esc, esc, "]52;c;eA==", bel, st, "ok"]), shown: "ok"),
    Case(name: "APC (kitty graphics)", input: .init([esc, "_Gf=100,a=T;AAAA", st, "ok"]), shown: "ok"),
    Case(name: "PM and SOS", input: .init([esc, "^privacy", st, esc, "Xstring", st, "ok"]), shown: "ok"),
    Case(name: "ESC G and a charset designation", input: .init([esc, "G", esc, "(Bok"]), shown: "ok"),
    Case(name: "lone ESC at the end of input", input: .init(["end", esc]), shown: "end"),
    Case(name: "OSC cut in the middle", input: .init(["text", esc, "]52;c;abc"]), shown: "text"),
    Case(name: "CSI cut in the middle", input: .init(["text", esc, "[3"]), shown: "text"),
    Case(name: "bidi override", input: .init(["invoice\u{202E}fdp.exe"]), shown: "invoice<U+202E>fdp.exe"),
    Case(
      name: "bidi isolates and marks", input: .init(["a\u{2066}b\u{2069}c\u{200E}d\u{200F}e\u{061C}f"]),
      shown: "a<U+2066>b<U+2069>c<U+200E>d<U+200F>e<U+061C>f"),
    Case(name: "Latin-1 byte", input: .init(["caf", [0xE9]]), shown: "caf\\xE9"),
    Case(name: "overlong slash", input: .init([[0xC0, 0xAF], "x"]), shown: "\\xC0\\xAFx"),
    Case(name: "truncated sequence", input: .init([[0xE2, 0x82], "x"]), shown: "\\xE2\\x82x"),
    Case(name: "surrogate", input: .init([[0xED, 0xA0, 0xBF]]), shown: "\\xED\\xA0\\xBF"),
    Case(name: "0xFE", input: .init(["a", [0xFE]]), shown: "a\\xFE"),
    Case(name: "a lone C1 byte is shown", input: .init(["a", [0x85], "b"]), shown: "a\\x85b"),
    Case(name: "UTF-8 NEL is shown", input: .init(["a", [0xC2, 0x85], "b"]), shown: "a<U+0085>b"),
    Case(name: "NUL", input: .init(["a", [0x00], "b"]), shown: "a^@b"),
    Case(name: "BEL, backspace and DEL", input: .init(["a", [0x07, 0x08, 0x7F], "b"]), shown: "a^G^H^?b"),
    Case(name: "lone CR", input: .init(["a\rb"]), shown: "a^Mb"),
    Case(name: "CR at the end", input: .init(["a\r"]), shown: "a^M"),
    Case(name: "CRLF is a line end", input: .init(["a\r\nb\r\n"]), shown: "a\nb"),
    Case(name: "CR, an SGR, then LF", input: .init(["a\r", esc, "[0m\nb"]), shown: "a\nb"),
    Case(name: "zero-width space and BOM", input: .init(["fi\u{200B}le\u{FEFF}"]), shown: "fi<U+200B>le<U+FEFF>"),
    Case(name: "CAN cancels a sequence", input: .init([esc, "]0;x", [0x18], "shown"]), shown: "shown"),
    Case(name: "a newline inside a CSI ends the line; the CSI goes on", input: .init([esc, "[3\n1mx"]), shown: "\nx"),
  ]

  @Test(arguments: corpus) func corpusIsShownSafely(_ c: Case) {
    let lines = TerminalBytes.lines(c.input)
    #expect(Render.unsafeScalars(lines).isEmpty)
    #expect(Render.plain(lines) == c.shown)
  }

  /// A sequence split anywhere (a helper's pipe, a highlighter's tokens) is recognised the same.
  @Test(arguments: corpus) func corpusFedByteByByteIsTheSame(_ c: Case) {
    var parser = TerminalBytes()
    for b in c.input { parser.feed([b]) }
    #expect(parser.finish() == TerminalBytes.lines(c.input))
  }

  /// The whole corpus in one file, the way `evil.sh` is built in preview-pane.md §10.
  @Test func corpusTogetherLeavesNothingUnsafe() {
    let all = Self.corpus.flatMap { $0.input + Array("\n".utf8) }
    let lines = TerminalBytes.lines(all)
    #expect(Render.unsafeScalars(lines).isEmpty)
    #expect(!lines.flatMap(\.runs).contains { $0.text.contains("52;") || $0.text.contains("pwned") })
  }

  @Test func escapesAreInkedAsEscapes() {
    let lines = TerminalBytes.lines(Array("a\u{0}b".utf8))
    #expect(lines[0].runs == [.init("a"), .init("^@", .escape), .init("b")])
  }

  // MARK: SGR

  @Test func sgrColorsSurviveAsInks() {
    let lines = TerminalBytes.lines(.init([Self.esc, "[31mred", Self.esc, "[0m plain", Self.esc, "[1;4;92mgo", Self.esc, "[m"]))
    #expect(
      lines[0].runs == [
        .init("red", Ink(foreground: .palette(1))), .init(" plain"),
        .init("go", Ink(foreground: .palette(10), attributes: [.bold, .underline])),
      ])
  }

  @Test(arguments: [
    ("[38;5;208m", Ink(foreground: .palette(208))),
    ("[38;2;1;2;3m", Ink(foreground: .rgb(1, 2, 3))),
    ("[38:2::10:20:30m", Ink(foreground: .rgb(10, 20, 30))),
    ("[38:2:10:20:30m", Ink(foreground: .rgb(10, 20, 30))),
    ("[38:5:99m", Ink(foreground: .palette(99))),
    ("[48;5;17m", Ink(background: .palette(17))),
    ("[48;2;255;255;0m", Ink(background: .rgb(255, 255, 0))),
    ("[44;97m", Ink(foreground: .palette(15), background: .palette(4))),
    ("[103m", Ink(background: .palette(11))),
    ("[2;3;7m", Ink(attributes: [.dim, .italic, .reverse])),
    ("[1m\u{1B}[22m", Ink()),
    ("[4:3m", Ink(attributes: [.underline])),
    ("[4m\u{1B}[4:0m", Ink()),
    ("[31m\u{1B}[39m", Ink()),
    ("[8m", Ink()),
    ("[38;5;300m", Ink()),
    ("[38;2;1m", Ink()),
    ("[?31m", Ink()),
  ])
  func sgrForms(_ sequence: String, _ ink: Ink) {
    let lines = TerminalBytes.lines(Array("\u{1B}\(sequence)X".utf8))
    #expect(lines[0].runs == [.init("X", ink)])
  }

  @Test func sgrAndTokenCombine() {
    var parser = TerminalBytes()
    parser.feed(Array("\u{1B}[41m".utf8))
    parser.feed(Array("let".utf8), token: .keyword)
    #expect(parser.finish()[0].runs == [.init("let", Ink(background: .palette(1), token: .keyword))])
  }

  // MARK: Layout and bounds

  @Test func tabsExpandToTheNextStop() {
    #expect(Render.plain(TerminalBytes.lines(Array("a\tb\n\tc\nabcdefgh\ti".utf8))) == "a       b\n        c\nabcdefgh        i")
    let four = TerminalBytes.Limits(tabWidth: 4)
    #expect(Render.plain(TerminalBytes.lines(Array("ab\tc".utf8), limits: four)) == "ab  c")
  }

  @Test func wideCharactersTakeTwoColumns() {
    #expect(Render.plain(TerminalBytes.lines(Array("漢\tx".utf8))) == "漢      x")
  }

  @Test func aLongLineWithoutNewlineIsCut() {
    let line = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
    var parser = TerminalBytes()
    parser.feed(line)
    let lines = parser.finish()
    #expect(lines.count == 1)
    #expect(lines[0].plainText == String(repeating: "x", count: 1024) + "…")
    #expect(lines[0].runs.last == .init("…", .escape))
    #expect(parser.didCutLine)
  }

  @Test func theCutKeepsParsing() {
    // The colour set past the cut still applies to the next line.
    let input: [UInt8] = .init([String(repeating: "y", count: 20), Self.esc, "[32m", "zz\nnext"])
    let lines = TerminalBytes.lines(input, limits: .init(maxColumns: 10))
    #expect(lines[0].plainText == "yyyyyyyyyy…")
    #expect(lines[1].runs == [.init("next", Ink(foreground: .palette(2)))])
  }

  @Test func linesStopAtTheCap() {
    var parser = TerminalBytes(limits: .init(maxLines: 100))
    parser.feed([UInt8](repeating: 0x0A, count: 20_000))
    let lines = parser.finish()
    #expect(lines.count == 100)
    #expect(parser.didDropLines)
  }

  @Test func anUnterminatedStringGivesTheRestBack() {
    let input: [UInt8] = .init([Self.esc, "]0;", String(repeating: "a", count: 100), "\nvisible"])
    let lines = TerminalBytes.lines(input, limits: .init(maxSequenceLength: 50))
    #expect(Render.plain(lines).hasSuffix("\nvisible"))
    #expect(Render.unsafeScalars(lines).isEmpty)
  }
}
