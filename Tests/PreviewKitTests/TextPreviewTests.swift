import PreviewKit
import Testing

/// The built-in preview end to end: what the pane gets for a file's first bytes.
@Suite struct TextPreviewTests {
  func lines(_ p: Preview) -> [StyledLine] {
    guard case .lines(let lines) = p.body else { return [] }
    return lines
  }

  @Test func aPrefixSaysWhatPartIsShownAndEndsAtItsLastNewline() {
    let bytes = Array("let a = 1\nlet b = 2\nlet c =".utf8)
    let p = TextPreview.make(name: "big.swift", bytes: bytes, totalSize: 1 << 20)
    #expect(p.typeDescription == "Swift text, UTF-8")
    #expect(p.extent == "first 27 bytes of 1 MiB")
    #expect(Render.tokens(lines(p)) == "«keyword:let» a «operator:=» «number:1»\n«keyword:let» b «operator:=» «number:2»")
  }

  @Test func theWholeFileHasNoExtent() {
    let bytes = Array("plain\n".utf8)
    let p = TextPreview.make(name: "notes.txt", bytes: bytes, totalSize: bytes.count)
    #expect(p.extent == nil)
    #expect(Render.tokens(lines(p)) == "plain")
  }

  @Test func emptyFile() {
    guard case .message(let text) = TextPreview.make(name: "a.txt", bytes: [], totalSize: 0).body else {
      Issue.record("not a message")
      return
    }
    #expect(text == "empty file")
  }

  @Test func binaryAndPicturesFallBackToHex() {
    let p = TextPreview.make(name: "a.png", bytes: ContentClassifierTests.png, totalSize: 4096)
    #expect(p.typeDescription == "PNG image, 640 × 480")
    #expect(lines(p).first?.plainText == "00000000  89 50 4e 47 0d 0a 1a 0a  00 00 00 0d 49 48 44 52  |.PNG........IHDR|")
    #expect(p.extent == "first 29 bytes of 4 KiB")
  }

  /// test-plan §4.2: "1 GB with no newline": the first 64 KiB of it come out as one bounded line.
  @Test func aLineWithoutNewlineIsBounded() {
    let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
    let p = TextPreview.make(name: "one-line.txt", bytes: bytes, totalSize: 1 << 30)
    #expect(lines(p).count == 1)
    #expect(lines(p)[0].plainText.count == 1025)
    #expect(p.extent == "first 64 KiB of 1 GiB")
  }

  /// The escape corpus as a file's contents, through the highlighted path and the plain one.
  @Test(arguments: ["evil.sh", "evil.txt", "evil.json", "evil.md"])
  func theEscapeCorpusIsSafeInAFile(_ name: String) {
    let evil: [UInt8] = TerminalBytesTests.corpus.flatMap { $0.input + [UInt8(0x0A)] }
    let p = TextPreview.make(name: name, bytes: evil, totalSize: evil.count)
    #expect(Render.unsafeScalars(lines(p)).isEmpty)
    #expect(!lines(p).isEmpty)
  }

  /// A coloured log keeps its colours, and a highlighted file its tokens beside them.
  @Test func colouredTextKeepsItsColours() {
    let p = TextPreview.make(name: "build.log", bytes: Array("\u{1B}[31merror\u{1B}[0m: x".utf8), totalSize: 16)
    #expect(lines(p)[0].runs == [.init("error", Ink(foreground: .palette(1))), .init(": x")])
  }

  @Test func otherEncodingsAreShownAsText() {
    let utf16: [UInt8] = [0xFF, 0xFE] + Array("héllo\n".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    let p = TextPreview.make(name: "win.txt", bytes: utf16, totalSize: utf16.count)
    #expect(p.typeDescription == "text, UTF-16LE")
    #expect(Render.plain(lines(p)) == "héllo")
    let latin1 = TextPreview.make(name: "old.txt", bytes: Array("caf".utf8) + [0xE9], totalSize: 4)
    #expect(Render.plain(lines(latin1)) == "café")
  }

  @Test func sizesForTheHeader() {
    #expect(ByteCountText.format(1) == "1 byte")
    #expect(ByteCountText.format(812) == "812 bytes")
    #expect(ByteCountText.format(65536) == "64 KiB")
    #expect(ByteCountText.format(2_254_857_830) == "2.1 GiB")
    #expect(ByteCountText.format(1_000_000) == "977 KiB")
  }
}

/// A helper's output: its SGR kept as inks, everything else made safe.
@Suite struct HelperOutputTests {
  @Test func batcatStyleOutputKeepsColoursAndLosesTheRest() {
    // What `batcat --color=always` printed for evil.sh (preview-pane.md §3): its own SGR around
    // the file's OSC 52, title and clear-screen, which it passed through.
    let output: [UInt8] = Array("\u{1B}[38;5;203mecho\u{1B}[0m \u{1B}]52;c;cHduZWQ=\u{07}\u{1B}]0;pwn\u{07}\u{1B}[2Jdone\n".utf8)
    let lines = HelperOutput.lines(output)
    #expect(lines == [StyledLine([.init("echo", Ink(foreground: .palette(203))), .init(" done")])])
  }

  /// Output cut at the cap in the middle of a character ends before it.
  @Test func truncatedOutputDropsTheCutCharacter() {
    let output = Array("Größ".utf8).dropLast(1)
    #expect(Render.plain(HelperOutput.lines(Array(output), truncated: true)) == "Grö")
    #expect(Render.plain(HelperOutput.lines(Array(output))) == "Grö\\xC3")
  }
}
