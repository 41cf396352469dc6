/// Magic numbers of the formats the preview hands to a decoder or a helper, and the picture sizes
/// their headers give away cheaply. Every read is bounds-checked against the prefix: a header cut
/// by the end of the 64 KiB range gives a kind without a size, never a crash.
enum Magic {
  static func kind(_ p: UnsafeBufferPointer<UInt8>, name: String) -> ContentKind? {
    let r = Reader(p)
    if r.starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .image(.png, pngSize(r)) }
    if r.starts([0xFF, 0xD8, 0xFF]) { return .image(.jpeg, jpegSize(r)) }
    if r.starts("GIF87a") || r.starts("GIF89a") { return .image(.gif, size(r.le16(6), r.le16(8))) }
    if r.starts("RIFF") {
      if r.matches("WEBP", at: 8) { return .image(.webp, webpSize(r)) }
      if r.matches("WAVE", at: 8) { return .audio(.wav) }
      if r.matches("AVI ", at: 8) { return .video(.avi) }
    }
    if r.starts("BM") && r.count >= 26 && r.le32(14).map({ [12, 40, 52, 56, 64, 108, 124].contains($0) }) == true {
      return .image(.bmp, bmpSize(r))
    }
    if r.starts([0x49, 0x49, 0x2A, 0x00]) || r.starts([0x4D, 0x4D, 0x00, 0x2A]) { return .image(.tiff, nil) }
    if r.starts([0x00, 0x00, 0x01, 0x00]) && name.hasSuffix(".ico") { return .image(.ico, nil) }
    if r.starts("%PDF-") { return .pdf }
    if r.starts([0x50, 0x4B, 0x03, 0x04]) || r.starts([0x50, 0x4B, 0x05, 0x06]) { return .archive(.zip) }
    if r.starts([0x1F, 0x8B]) { return .archive(.gzip) }
    if r.starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .archive(.xz) }
    if r.starts("BZh"), let level = r.byte(3), (0x31...0x39).contains(level) { return .archive(.bzip2) }
    if r.starts([0x28, 0xB5, 0x2F, 0xFD]) { return .archive(.zstd) }
    if r.starts([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]) { return .archive(.sevenZip) }
    if r.starts([0x52, 0x61, 0x72, 0x21, 0x1A, 0x07]) { return .archive(.rar) }
    if r.matches("ustar", at: 257) { return .archive(.tar) }
    if r.matches("ftyp", at: 4) { return isoMedia(r) }
    if r.starts([0x1A, 0x45, 0xDF, 0xA3]) { return matroska(r, name: name) }
    // Text may start with these letters too: the bytes after them must be what the format has.
    if r.starts("ID3"), let version = r.byte(3), (2...4).contains(version), r.byte(4) == 0 { return .audio(.mp3) }
    if r.starts([0xFF]), let b = r.byte(1), b & 0xE0 == 0xE0, name.hasSuffix(".mp3") { return .audio(.mp3) }
    if r.starts("OggS") && r.byte(4) == 0 {
      let video = name.hasSuffix(".ogv") || r.contains("theora", within: 64)
      return video ? .video(.ogg) : .audio(.ogg)
    }
    if r.starts("fLaC"), let block = r.byte(4), block & 0x7F == 0 { return .audio(.flac) }
    if r.starts("FORM") && (r.matches("AIFF", at: 8) || r.matches("AIFC", at: 8)) { return .audio(.aiff) }
    if r.starts("MThd") && r.starts([0, 0, 0, 6], at: 4) { return .audio(.midi) }
    return nil
  }

  private static func size(_ w: Int?, _ h: Int?) -> PixelSize? {
    guard let w, let h, w > 0, h > 0 else { return nil }
    return PixelSize(width: w, height: h)
  }

  /// The IHDR chunk is always first: width and height at 16 and 20.
  private static func pngSize(_ r: Reader) -> PixelSize? {
    guard r.matches("IHDR", at: 12) else { return nil }
    return size(r.be32(16), r.be32(20))
  }

  /// Walks the markers to the first SOF (start of frame); the Exif APP1 before it may hold up to
  /// 64 KiB, so a camera's JPEG can have its SOF past the prefix.
  private static func jpegSize(_ r: Reader) -> PixelSize? {
    var k = 2
    while k + 3 < r.count {
      guard r.byte(k) == 0xFF else { return nil }
      guard let marker = r.byte(k + 1) else { return nil }
      if marker == 0xFF {
        k += 1
        continue
      }
      if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
        k += 2
        continue
      }
      if marker == 0xD9 || marker == 0xDA { return nil }
      guard let length = r.be16(k + 2), length >= 2 else { return nil }
      if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
        return size(r.be16(k + 7), r.be16(k + 5))
      }
      k += 2 + length
    }
    return nil
  }

  private static func webpSize(_ r: Reader) -> PixelSize? {
    if r.matches("VP8X", at: 12) {
      guard let w = r.le24(24), let h = r.le24(27) else { return nil }
      return size(w + 1, h + 1)
    }
    if r.matches("VP8L", at: 12) {
      guard r.byte(20) == 0x2F, let bits = r.le32(21) else { return nil }
      return size(bits & 0x3FFF + 1, bits >> 14 & 0x3FFF + 1)
    }
    if r.matches("VP8 ", at: 12) {
      guard r.starts([0x9D, 0x01, 0x2A], at: 23), let w = r.le16(26), let h = r.le16(28) else { return nil }
      return size(w & 0x3FFF, h & 0x3FFF)
    }
    return nil
  }

  /// BITMAPINFOHEADER (and later): signed 32-bit width and height at 18 and 22, a negative height
  /// meaning top-down rows; the old BITMAPCOREHEADER has 16-bit ones.
  private static func bmpSize(_ r: Reader) -> PixelSize? {
    if r.le32(14) == 12 { return size(r.le16(18), r.le16(20)) }
    guard let w = r.le32(18), let h = r.le32(22) else { return nil }
    return size(Int(Int32(truncatingIfNeeded: w)), abs(Int(Int32(truncatingIfNeeded: h))))
  }

  /// ISO base media (`ftyp`): the major brand tells audio (M4A, M4B), QuickTime, HEIF/AVIF
  /// pictures and MP4 video apart.
  private static func isoMedia(_ r: Reader) -> ContentKind {
    let brand = r.string(8, 4)
    switch brand {
    case "M4A ", "M4B ", "M4P ", "F4A ", "F4B ": return .audio(.mp4)
    case "qt  ": return .video(.quickTime)
    case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1": return .image(.heif, nil)
    case "avif", "avis": return .image(.avif, nil)
    default: return .video(.mp4)
    }
  }

  /// EBML: the DocType element names webm or matroska; a `.mka`/`.weba` name means audio.
  private static func matroska(_ r: Reader, name: String) -> ContentKind {
    let format: MediaFormat = r.contains("webm", within: 64) ? .webm : .matroska
    return name.hasSuffix(".mka") || name.hasSuffix(".weba") ? .audio(format) : .video(format)
  }

  /// Bounds-checked reads of a prefix.
  struct Reader {
    let p: UnsafeBufferPointer<UInt8>
    init(_ p: UnsafeBufferPointer<UInt8>) { self.p = p }
    var count: Int { p.count }

    func byte(_ k: Int) -> UInt8? { k >= 0 && k < p.count ? p[k] : nil }
    func starts(_ magic: [UInt8], at k: Int = 0) -> Bool {
      guard k >= 0, k + magic.count <= p.count else { return false }
      for (j, b) in magic.enumerated() where p[k + j] != b { return false }
      return true
    }
    func starts(_ magic: String) -> Bool { starts(Array(magic.utf8)) }
    func matches(_ magic: String, at k: Int) -> Bool { starts(Array(magic.utf8), at: k) }
    func contains(_ text: String, within limit: Int) -> Bool {
      let needle = Array(text.utf8)
      let end = min(limit, p.count) - needle.count
      guard end >= 0 else { return false }
      for k in 0...end where starts(needle, at: k) { return true }
      return false
    }
    func string(_ k: Int, _ length: Int) -> String {
      guard k + length <= p.count else { return "" }
      return String(decoding: p[k..<(k + length)], as: UTF8.self)
    }
    func be16(_ k: Int) -> Int? { k + 2 <= p.count ? Int(p[k]) << 8 | Int(p[k + 1]) : nil }
    func le16(_ k: Int) -> Int? { k + 2 <= p.count ? Int(p[k + 1]) << 8 | Int(p[k]) : nil }
    func le24(_ k: Int) -> Int? { k + 3 <= p.count ? Int(p[k + 2]) << 16 | Int(p[k + 1]) << 8 | Int(p[k]) : nil }
    func be32(_ k: Int) -> Int? {
      k + 4 <= p.count ? Int(p[k]) << 24 | Int(p[k + 1]) << 16 | Int(p[k + 2]) << 8 | Int(p[k + 3]) : nil
    }
    func le32(_ k: Int) -> Int? {
      k + 4 <= p.count ? Int(p[k + 3]) << 24 | Int(p[k + 2]) << 16 | Int(p[k + 1]) << 8 | Int(p[k]) : nil
    }
  }
}
