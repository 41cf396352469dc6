/// Reads a picture's size from its header, in Swift, without a decoder.
///
/// Works on a prefix (the first 64 KiB of a remote file read with one ranged request): a PNG's
/// IHDR, a GIF's logical screen, a JPEG's SOF (after its APP segments, EXIF included), a WebP's
/// VP8/VP8L/VP8X header, a BMP's DIB header. Every read is bounds-checked: malformed bytes give
/// an error, never a trap.
enum PictureHeader {
  static func read(_ bytes: UnsafeRawBufferPointer) throws(PictureError) -> PictureInfo {
    guard let format = PictureFormat.sniff(bytes) else {
      throw PictureError(.unsupported, "not a PNG, JPEG, GIF, WebP or BMP picture")
    }
    let b = ByteReader(bytes)
    switch format {
    case .png: return try png(b)
    case .jpeg: return try jpeg(b)
    case .gif: return try gif(b)
    case .webp: return try webp(b)
    case .bmp: return try bmp(b)
    }
  }

  static func short(_ format: PictureFormat) -> PictureError {
    PictureError(.truncated, "the \(format.rawValue.uppercased()) header is cut short")
  }

  static func png(_ b: ByteReader) throws(PictureError) -> PictureInfo {
    guard let width = b.be32(16), let height = b.be32(20), let depth = b.u8(24), let colorType = b.u8(25) else {
      throw short(.png)
    }
    guard b.be32(8) == 13, b.ascii(12, 4) == "IHDR" else {
      throw PictureError(.corrupt, "the PNG does not start with IHDR")
    }
    let channels: Int
    switch colorType {
    case 0, 3: channels = 1
    case 2: channels = 3
    case 4: channels = 2
    case 6: channels = 4
    default: throw PictureError(.corrupt, "PNG color type \(colorType) does not exist")
    }
    guard [1, 2, 4, 8, 16].contains(depth) else {
      throw PictureError(.corrupt, "PNG bit depth \(depth) does not exist")
    }
    return PictureInfo(format: .png, width: width, height: height, bytesPerPixel: (channels * depth + 7) / 8)
  }

  /// The logical screen; when a GIF says 0 × 0 there, its first frame's extent.
  static func gif(_ b: ByteReader) throws(PictureError) -> PictureInfo {
    guard let width = b.le16(6), let height = b.le16(8), let flags = b.u8(10) else { throw short(.gif) }
    if width > 0, height > 0 { return PictureInfo(format: .gif, width: width, height: height, bytesPerPixel: 1) }
    var at = 13 + (flags & 0x80 != 0 ? 3 << ((flags & 7) + 1) : 0)
    while let block = b.u8(at) {
      switch block {
      case 0x21:  // an extension: a label, then sub-blocks until an empty one
        at += 2
        while let length = b.u8(at), length > 0 { at += 1 + length }
        at += 1
      case 0x2C:
        guard let left = b.le16(at + 1), let top = b.le16(at + 3), let w = b.le16(at + 5), let h = b.le16(at + 7) else {
          throw short(.gif)
        }
        return PictureInfo(format: .gif, width: left + w, height: top + h, bytesPerPixel: 1)
      default:
        throw PictureError(.corrupt, "the GIF has no image")
      }
    }
    throw short(.gif)
  }

  static func webp(_ b: ByteReader) throws(PictureError) -> PictureInfo {
    guard let chunk = b.ascii(12, 4) else { throw short(.webp) }
    switch chunk {
    case "VP8 ":
      guard let w = b.le16(26), let h = b.le16(28) else { throw short(.webp) }
      guard b.u8(23) == 0x9D, b.u8(24) == 0x01, b.u8(25) == 0x2A else {
        throw PictureError(.corrupt, "the WebP's VP8 frame has no start code")
      }
      return PictureInfo(format: .webp, width: w & 0x3FFF, height: h & 0x3FFF, bytesPerPixel: 3)
    case "VP8L":
      guard let signature = b.u8(20), let bits = b.le32(21) else { throw short(.webp) }
      guard signature == 0x2F else { throw PictureError(.corrupt, "the WebP's VP8L stream has no signature") }
      let alpha = bits >> 28 & 1 == 1
      return PictureInfo(
        format: .webp, width: (bits & 0x3FFF) + 1, height: (bits >> 14 & 0x3FFF) + 1, bytesPerPixel: alpha ? 4 : 3)
    case "VP8X":
      guard let flags = b.u8(20), let w = b.le24(24), let h = b.le24(27) else { throw short(.webp) }
      return PictureInfo(format: .webp, width: w + 1, height: h + 1, bytesPerPixel: flags & 0x10 != 0 ? 4 : 3)
    default:
      throw PictureError(.unsupported, "a WebP whose first chunk is not VP8, VP8L or VP8X")
    }
  }

  static func bmp(_ b: ByteReader) throws(PictureError) -> PictureInfo {
    guard let header = BMPHeader(b) else { throw short(.bmp) }
    return PictureInfo(
      format: .bmp, width: header.width, height: header.height, bytesPerPixel: max(1, (header.bitsPerPixel + 7) / 8))
  }
}

/// Bounds-checked reads of a byte buffer: nil past the end.
struct ByteReader {
  let bytes: UnsafeRawBufferPointer
  init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  var count: Int { bytes.count }
  func u8(_ i: Int) -> Int? { i >= 0 && i < bytes.count ? Int(bytes[i]) : nil }
  func be16(_ i: Int) -> Int? {
    guard let a = u8(i), let b = u8(i + 1) else { return nil }
    return a << 8 | b
  }
  func be32(_ i: Int) -> Int? {
    guard let a = be16(i), let b = be16(i + 2) else { return nil }
    return a << 16 | b
  }
  func le16(_ i: Int) -> Int? {
    guard let a = u8(i), let b = u8(i + 1) else { return nil }
    return b << 8 | a
  }
  func le24(_ i: Int) -> Int? {
    guard let a = le16(i), let b = u8(i + 2) else { return nil }
    return b << 16 | a
  }
  func le32(_ i: Int) -> Int? {
    guard let a = le16(i), let b = le16(i + 2) else { return nil }
    return b << 16 | a
  }
  /// A signed little-endian 32-bit value (a BMP's height is negative when rows run top-down).
  func le32Signed(_ i: Int) -> Int? { le32(i).map { Int(Int32(bitPattern: UInt32($0))) } }
  func ascii(_ i: Int, _ n: Int) -> String? {
    guard i >= 0, n >= 0, i + n <= bytes.count else { return nil }
    return String(decoding: bytes[i..<i + n], as: UTF8.self)
  }
}
