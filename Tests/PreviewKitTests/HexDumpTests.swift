import PreviewKit
import Testing

/// Binary files as `hexdump -C` lays them out.
@Suite struct HexDumpTests {
  @Test func rowsHaveOffsetHexAndASCII() {
    let bytes: [UInt8] = Array("Hello, world!\n".utf8) + [0x00, 0x01, 0x89, 0x50, 0x4E, 0x47, 0x1B, 0x5B, 0x32, 0x4A]
    #expect(
      Render.plain(HexDump.lines(bytes)) == """
        00000000  48 65 6c 6c 6f 2c 20 77  6f 72 6c 64 21 0a 00 01  |Hello, world!...|
        00000010  89 50 4e 47 1b 5b 32 4a                           |.PNG.[2J|
        """)
  }

  @Test func offsetsAreGutterAndZerosAreDimmed() {
    let lines = HexDump.lines([0x41, 0x00, 0x00, 0x42], offset: 0x1_0000_0000)
    #expect(
      Render.tokens(lines)
        == "«gutter:100000000»  41 «comment:00 00 »42                                       |A..B|")
  }

  /// A later window goes on with the file's offsets.
  @Test func aWindowStartsAtItsOffset() {
    let lines = HexDump.lines([UInt8](repeating: 0x61, count: 20), offset: 65536)
    #expect(lines.map { String($0.plainText.prefix(8)) } == ["00010000", "00010010"])
  }

  /// 64 KiB is 4,096 rows, and nothing in them is a control character.
  @Test func sixtyFourKiBOfEveryByteIsSafe() {
    let bytes = (0..<65536).map { UInt8(truncatingIfNeeded: $0 * 7) }
    let lines = HexDump.lines(bytes)
    #expect(lines.count == 4096)
    #expect(Render.unsafeScalars(lines).isEmpty)
  }
}
