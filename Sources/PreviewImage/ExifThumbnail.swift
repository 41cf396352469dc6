/// The thumbnail a camera puts in a JPEG's Exif segment: Exif's APP1 comes right after the JPEG's
/// start and "cannot record more than 64 Kbytes", thumbnail included (Exif 2.2 §4.7.2), so the
/// first 64 KiB of a remote photo — one ranged read — hold a small picture of it to show without
/// downloading the file (preview-pane.md §6).
public enum ExifThumbnail {
  /// The thumbnail's JPEG bytes, when `prefix` (a JPEG's first bytes) holds an Exif segment whose
  /// second image directory points at one lying wholly inside `prefix`; nil otherwise.
  public static func jpeg(in prefix: [UInt8]) -> [UInt8]? {
    guard prefix.count > 4, prefix[0] == 0xFF, prefix[1] == 0xD8 else { return nil }
    var i = 2
    // Exif is APP1, among the first segments (after APP0/JFIF at most).
    while i + 4 <= prefix.count, prefix[i] == 0xFF {
      let marker = prefix[i + 1]
      let length = Int(prefix[i + 2]) << 8 | Int(prefix[i + 3])
      guard length >= 2 else { return nil }
      let body = i + 4
      if marker == 0xE1, body + 6 <= prefix.count, Array(prefix[body..<(body + 6)]) == [0x45, 0x78, 0x69, 0x66, 0, 0] {
        return thumbnail(prefix, tiff: body + 6, end: min(prefix.count, i + 2 + length))
      }
      // Past the markers that may come before image data, there is no Exif.
      guard (0xE0...0xEF).contains(marker) || marker == 0xFE else { return nil }
      i += 2 + length
    }
    return nil
  }

  /// The thumbnail through IFD0's link to IFD1 and its JPEGInterchangeFormat (0x0201) and length
  /// (0x0202) tags; offsets count from the TIFF header at `tiff`.
  static func thumbnail(_ b: [UInt8], tiff: Int, end: Int) -> [UInt8]? {
    guard tiff + 8 <= end else { return nil }
    let little: Bool
    switch (b[tiff], b[tiff + 1]) {
    case (0x49, 0x49): little = true
    case (0x4D, 0x4D): little = false
    default: return nil
    }
    func u16(_ at: Int) -> Int? {
      guard at >= 0, at + 2 <= end else { return nil }
      return little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at]) << 8 | Int(b[at + 1])
    }
    func u32(_ at: Int) -> Int? {
      guard let lo = u16(little ? at : at + 2), let hi = u16(little ? at + 2 : at) else { return nil }
      return hi << 16 | lo
    }
    guard u16(tiff + 2) == 42, let ifd0 = u32(tiff + 4), let count0 = u16(tiff + ifd0),
      let ifd1 = u32(tiff + ifd0 + 2 + 12 * count0), ifd1 > 0, let count1 = u16(tiff + ifd1)
    else { return nil }
    var offset: Int?
    var length: Int?
    for k in 0..<min(count1, 64) {
      let entry = tiff + ifd1 + 2 + 12 * k
      switch u16(entry) {
      case 0x0201: offset = u32(entry + 8)
      case 0x0202: length = u32(entry + 8)
      default: break
      }
    }
    guard let offset, let length, length > 4 else { return nil }
    let start = tiff + offset
    guard start >= tiff, start + length <= end, b[start] == 0xFF, b[start + 1] == 0xD8 else { return nil }
    return Array(b[start..<(start + length)])
  }
}
