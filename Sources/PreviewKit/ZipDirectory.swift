/// A ZIP archive's listing from its central directory alone, without its data: for a remote file
/// that is not downloaded, the end-of-central-directory record is in the last 22 + ≤ 65,535 bytes
/// (its comment), and the directory it points to is read with one more range — two small reads
/// list a ZIP of any size (preview-pane.md §6). Names are bytes from the archive: they are shown
/// through `TerminalText`'s escaping like any name.
public struct ZipDirectory: Sendable, Equatable {
  public struct Entry: Sendable, Equatable {
    /// The name's bytes as stored (UTF-8 when the archive says so, else usually CP437).
    public var name: [UInt8]
    public var size: UInt64
    public var compressedSize: UInt64
    public var isFolder: Bool { name.last == UInt8(ascii: "/") }
  }

  /// Where the central directory is, from the end record.
  public struct Location: Sendable, Equatable {
    public var offset: UInt64
    public var size: UInt64
    public var entries: UInt64
  }

  /// The bytes to read from the end of a file for its end record: 22 + the longest comment.
  public static let tailLength = 22 + 65_535

  /// Finds the end record in the last bytes of the file (`tail`, which ends at the file's end)
  /// and, with ZIP64, its larger numbers when the ZIP64 end record is inside `tail` too.
  /// - Parameter tailOffset: where `tail` starts in the file.
  public static func locate(tail: [UInt8], tailOffset: UInt64) -> Location? {
    guard tail.count >= 22 else { return nil }
    var i = tail.count - 22
    while i >= 0 {
      if le32(tail, i) == 0x0605_4B50 {
        let commentLength = Int(le16(tail, i + 20))
        // The comment must run exactly to the end (or the signature was inside the comment).
        if i + 22 + commentLength == tail.count {
          var location = Location(offset: UInt64(le32(tail, i + 16)), size: UInt64(le32(tail, i + 12)), entries: UInt64(le16(tail, i + 10)))
          if location.offset == 0xFFFF_FFFF || location.size == 0xFFFF_FFFF || location.entries == 0xFFFF {
            guard let zip64 = zip64(tail: tail, tailOffset: tailOffset, endRecord: i) else { return nil }
            location = zip64
          }
          return location
        }
      }
      i -= 1
    }
    return nil
  }

  /// The ZIP64 end record through its locator, just before the end record.
  private static func zip64(tail: [UInt8], tailOffset: UInt64, endRecord: Int) -> Location? {
    let locator = endRecord - 20
    guard locator >= 0, le32(tail, locator) == 0x0706_4B50 else { return nil }
    let recordOffset = le64(tail, locator + 8)
    guard recordOffset >= tailOffset, recordOffset - tailOffset + 56 <= UInt64(tail.count) else { return nil }
    let r = Int(recordOffset - tailOffset)
    guard le32(tail, r) == 0x0606_4B50 else { return nil }
    return Location(offset: le64(tail, r + 48), size: le64(tail, r + 40), entries: le64(tail, r + 32))
  }

  /// The entries in the first bytes of a central directory (`bytes` starts at its offset; an
  /// entry cut at the end of `bytes` is left out). At most `limit` entries.
  public static func entries(in bytes: [UInt8], limit: Int = 10_000) -> [Entry] {
    var out: [Entry] = []
    var i = 0
    while i + 46 <= bytes.count, out.count < limit, le32(bytes, i) == 0x0201_4B50 {
      let nameLength = Int(le16(bytes, i + 28))
      let extraLength = Int(le16(bytes, i + 30))
      let commentLength = Int(le16(bytes, i + 32))
      let end = i + 46 + nameLength + extraLength + commentLength
      guard end <= bytes.count else { break }
      var entry = Entry(
        name: Array(bytes[(i + 46)..<(i + 46 + nameLength)]), size: UInt64(le32(bytes, i + 24)),
        compressedSize: UInt64(le32(bytes, i + 20)))
      // ZIP64 sizes live in the extra field (id 1) when the 32-bit ones are saturated.
      if entry.size == 0xFFFF_FFFF || entry.compressedSize == 0xFFFF_FFFF {
        var e = i + 46 + nameLength
        let extraEnd = e + extraLength
        while e + 4 <= extraEnd {
          let id = le16(bytes, e)
          let length = Int(le16(bytes, e + 2))
          if id == 1 {
            var f = e + 4
            if entry.size == 0xFFFF_FFFF, f + 8 <= e + 4 + length {
              entry.size = le64(bytes, f)
              f += 8
            }
            if entry.compressedSize == 0xFFFF_FFFF, f + 8 <= e + 4 + length { entry.compressedSize = le64(bytes, f) }
          }
          e += 4 + length
        }
      }
      out.append(entry)
      i = end
    }
    return out
  }

  static func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
  static func le32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(le16(b, i)) | UInt32(le16(b, i + 2)) << 16 }
  static func le64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(le32(b, i)) | UInt64(le32(b, i + 4)) << 32 }
}
