import Foundation
import PreviewKit
import Testing

/// A ZIP's listing from its end record and central directory: what two ranged reads of a remote
/// archive give.
@Suite struct ZipDirectoryTests {
  /// A stored (uncompressed) ZIP of these files, built byte by byte as the format says, with a
  /// comment at the end.
  static func zip(_ files: [(String, [UInt8])], comment: [UInt8] = []) -> [UInt8] {
    func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
    var out: [UInt8] = []
    var central: [UInt8] = []
    for (name, data) in files {
      let offset = out.count
      let n = Array(name.utf8)
      out += le32(0x0403_4B50) + le16(20) + le16(0x0800) + le16(0) + le16(0) + le16(0) + le32(0)
      out += le32(data.count) + le32(data.count) + le16(n.count) + le16(0) + n + data
      central += le32(0x0201_4B50) + le16(20) + le16(20) + le16(0x0800) + le16(0) + le16(0) + le16(0) + le32(0)
      central += le32(data.count) + le32(data.count) + le16(n.count) + le16(0) + le16(0) + le16(0) + le16(0)
      central += le32(0) + le32(offset) + n
    }
    let cdOffset = out.count
    out += central
    out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(files.count) + le16(files.count) + le32(central.count)
    out += le32(cdOffset) + le16(comment.count) + comment
    return out
  }

  @Test func theEndRecordLeadsToTheEntries() throws {
    let archive = Self.zip(
      [("docs/", []), ("docs/read me.txt", Array("hello".utf8)), ("\u{1B}]52;c;evil", [1, 2, 3])],
      comment: Array("a comment with PK\u{05}\u{06} inside".utf8))
    // Only the last bytes, as a ranged read of a remote file gives them.
    let tailStart = max(0, archive.count - 40 - 22 - 40)
    let tail = Array(archive[tailStart...])
    let location = try #require(ZipDirectory.locate(tail: tail, tailOffset: UInt64(tailStart)))
    #expect(location.entries == 3)
    let cd = Array(archive[Int(location.offset)..<Int(location.offset + location.size)])
    let entries = ZipDirectory.entries(in: cd)
    #expect(entries.map { String(decoding: $0.name, as: UTF8.self) } == ["docs/", "docs/read me.txt", "\u{1B}]52;c;evil"])
    #expect(entries.map(\.size) == [0, 5, 3])
    #expect(entries[0].isFolder && !entries[1].isFolder)
  }

  @Test func notAZipOrACutDirectoryIsNotAnError() {
    #expect(ZipDirectory.locate(tail: Array("just some text, no end record here".utf8), tailOffset: 0) == nil)
    #expect(ZipDirectory.locate(tail: [], tailOffset: 0) == nil)
    let archive = Self.zip([("a.txt", [1]), ("b.txt", [2])])
    let location = ZipDirectory.locate(tail: archive, tailOffset: 0)!
    // The directory cut in its second entry: the first is listed.
    let cd = Array(archive[Int(location.offset)..<(Int(location.offset) + 46 + 5 + 10)])
    #expect(ZipDirectory.entries(in: cd).count == 1)
  }
}
