/// A BMP's DIB header: the layout the rows are in.
struct BMPHeader {
  var width: Int
  var height: Int
  /// Rows are stored bottom-up unless the height field is negative.
  var bottomUp: Bool
  var bitsPerPixel: Int
  var compression: Int
  var dataOffset: Int
  var headerSize: Int
  /// Where the palette starts, and the size of one entry (3 bytes for OS/2 core headers, else 4).
  var paletteOffset: Int
  var paletteEntrySize: Int
  var paletteCount: Int

  init?(_ b: ByteReader) {
    guard let dataOffset = b.le32(10), let headerSize = b.le32(14) else { return nil }
    self.dataOffset = dataOffset
    self.headerSize = headerSize
    if headerSize == 12 {  // OS/2 BITMAPCOREHEADER
      guard let w = b.le16(18), let h = b.le16(20), let bpp = b.le16(24) else { return nil }
      (width, height, bottomUp, bitsPerPixel, compression) = (w, h, true, bpp, 0)
      paletteEntrySize = 3
      paletteCount = bpp <= 8 ? 1 << bpp : 0
    } else {
      guard headerSize >= 40, let w = b.le32Signed(18), let h = b.le32Signed(22), let bpp = b.le16(28),
        let compression = b.le32(30), let used = b.le32(46)
      else { return nil }
      (width, height, bottomUp, bitsPerPixel, self.compression) = (abs(w), abs(h), h > 0, bpp, compression)
      paletteEntrySize = 4
      paletteCount = bpp <= 8 ? (used > 0 && used < 1 << bpp ? used : 1 << bpp) : 0
    }
    // BI_BITFIELDS masks after a 40-byte header sit before the palette.
    paletteOffset = 14 + headerSize + (headerSize == 40 && compression == 3 ? 12 : 0)
  }
}

/// Rows of an uncompressed BMP (1, 4, 8, 16, 24 or 32 bits a pixel, BI_RGB or BI_BITFIELDS), in
/// Swift: the format is a header and raw rows, and no Debian library decodes it without pulling
/// in a toolkit. RLE-compressed BMPs are refused as unsupported.
struct BMPDecoder {
  let header: BMPHeader
  let bytes: ByteReader
  let stride: Int
  /// RGB for each palette entry.
  private var palette: [UInt8] = []
  private var masks: [(mask: UInt32, shift: Int, bits: Int)] = []
  let hasAlpha: Bool

  init(_ bytes: UnsafeRawBufferPointer, limits: PictureLimits) throws(PictureError) {
    let b = ByteReader(bytes)
    guard let header = BMPHeader(b) else { throw PictureHeader.short(.bmp) }
    self.header = header
    self.bytes = b
    guard header.width > 0, header.height > 0 else { throw PictureError(.corrupt, "the BMP has no pixels") }
    guard [1, 4, 8, 16, 24, 32].contains(header.bitsPerPixel) else {
      throw PictureError(.unsupported, "a \(header.bitsPerPixel)-bit BMP")
    }
    guard header.compression == 0 || (header.compression == 3 && header.bitsPerPixel >= 16) else {
      throw PictureError(.unsupported, "a compressed BMP (RLE or embedded JPEG/PNG)")
    }
    stride = (header.bitsPerPixel * header.width + 31) / 32 * 4
    var alphaMask: UInt32 = 0
    if header.bitsPerPixel <= 8 {
      for i in 0..<header.paletteCount {
        let at = header.paletteOffset + i * header.paletteEntrySize
        guard let blue = b.u8(at), let green = b.u8(at + 1), let red = b.u8(at + 2) else {
          throw PictureHeader.short(.bmp)
        }
        palette += [UInt8(red), UInt8(green), UInt8(blue)]
      }
    } else if header.bitsPerPixel != 24 {
      var rgb: [UInt32]
      if header.compression == 3 {
        guard let r = b.le32(54), let g = b.le32(58), let bl = b.le32(62) else { throw PictureHeader.short(.bmp) }
        rgb = [UInt32(r), UInt32(g), UInt32(bl)]
        if header.headerSize >= 56, let a = b.le32(66) { alphaMask = UInt32(a) }
      } else if header.bitsPerPixel == 16 {
        rgb = [0x7C00, 0x03E0, 0x001F]
      } else {
        rgb = [0xFF_0000, 0x00_FF00, 0x00_00FF]
      }
      // Each mask as (mask, shift, width in bits of its run of ones).
      masks = (rgb + [alphaMask]).map { m in
        m == 0 ? (0, 0, 0) : (m, m.trailingZeroBitCount, (~(m >> UInt32(m.trailingZeroBitCount))).trailingZeroBitCount)
      }
    }
    hasAlpha = alphaMask != 0
    let (rows, overflow) = stride.multipliedReportingOverflow(by: header.height)
    guard !overflow, header.dataOffset >= 0, header.dataOffset + rows <= b.count else {
      throw PictureError(.truncated, "the BMP's pixel data is cut short")
    }
  }

  var channels: Int { hasAlpha ? 4 : 3 }

  /// Writes row `y` (counted from the top) as RGB or RGBA.
  func row(_ y: Int, into out: UnsafeMutablePointer<UInt8>) {
    let stored = header.bottomUp ? header.height - 1 - y : y
    let start = header.dataOffset + stored * stride
    let src = bytes.bytes.baseAddress!.advanced(by: start).assumingMemoryBound(to: UInt8.self)
    let ch = channels
    let bpp = header.bitsPerPixel
    for x in 0..<header.width {
      let o = out + x * ch
      switch bpp {
      case 24:
        o[0] = src[x * 3 + 2]
        o[1] = src[x * 3 + 1]
        o[2] = src[x * 3]
      case 16, 32:
        let v: UInt32 =
          bpp == 16
          ? UInt32(src[x * 2]) | UInt32(src[x * 2 + 1]) << 8
          : UInt32(src[x * 4]) | UInt32(src[x * 4 + 1]) << 8 | UInt32(src[x * 4 + 2]) << 16 | UInt32(src[x * 4 + 3])
            << 24
        for c in 0..<ch { o[c] = Self.channel(v, masks[c]) }
      default:
        let perByte = 8 / bpp
        let byte = Int(src[x / perByte])
        let shift = 8 - bpp * (x % perByte + 1)
        let index = byte >> shift & (1 << bpp - 1)
        if index * 3 + 2 < palette.count {
          o[0] = palette[index * 3]
          o[1] = palette[index * 3 + 1]
          o[2] = palette[index * 3 + 2]
        } else {
          o[0] = 0
          o[1] = 0
          o[2] = 0
        }
      }
    }
  }

  /// A masked field widened to 8 bits (5-bit 31 → 255).
  static func channel(_ v: UInt32, _ m: (mask: UInt32, shift: Int, bits: Int)) -> UInt8 {
    guard m.mask != 0, m.bits > 0 else { return 0 }
    let value = UInt64((v & m.mask) >> UInt32(m.shift))
    let maximum = (UInt64(1) << UInt64(m.bits)) - 1
    return UInt8(min(255, (value * 255 + maximum / 2) / maximum))
  }
}
