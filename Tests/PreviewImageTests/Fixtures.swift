import CPreviewImageFixtures
import PreviewImage

/// Pictures made at test time with the same libraries PreviewImage decodes with (no imagemagick).
enum Fixtures {
  /// RGB pixels of `width` × `height` where `color(x, y)` gives each pixel.
  static func rgb(_ width: Int, _ height: Int, _ color: (Int, Int) -> PictureColor) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(width * height * 3)
    for y in 0..<height {
      for x in 0..<width {
        let c = color(x, y)
        out += [c.red, c.green, c.blue]
      }
    }
    return out
  }

  /// Four quadrants: top-left red, top-right green, bottom-left blue, bottom-right white.
  static func quadrants(_ width: Int, _ height: Int) -> [UInt8] {
    rgb(width, height) { x, y in
      switch (x < width / 2, y < height / 2) {
      case (true, true): .pureRed
      case (false, true): .pureGreen
      case (true, false): .pureBlue
      case (false, false): .white
      }
    }
  }

  static func take(_ ok: Int32, _ buffer: inout pif_buffer) -> [UInt8] {
    precondition(ok == 1, "a fixture encoder failed")
    defer { pif_free(&buffer) }
    return Array(UnsafeBufferPointer(start: buffer.bytes, count: buffer.length))
  }

  /// PNG color types.
  enum PNGType: Int32 { case gray = 0, rgb = 2, palette = 3, grayAlpha = 4, rgba = 6 }

  static func png(
    _ rows: [UInt8], _ width: Int, _ height: Int, type: PNGType = .rgb, depth: Int32 = 8, interlaced: Bool = false,
    palette: [UInt8] = [], trns: [UInt8] = []
  ) -> [UInt8] {
    var buffer = pif_buffer()
    let ok = pif_write_png(
      rows, UInt32(width), UInt32(height), type.rawValue, depth, interlaced ? 1 : 0, palette.isEmpty ? nil : palette,
      Int32(palette.count / 3), trns.isEmpty ? nil : trns, Int32(trns.count), &buffer)
    return take(ok, &buffer)
  }

  static func jpeg(
    _ pixels: [UInt8], _ width: Int, _ height: Int, components: Int32 = 3, quality: Int32 = 95,
    progressive: Bool = false,
    app1: [UInt8]? = nil
  ) -> [UInt8] {
    var buffer = pif_buffer()
    let ok = pif_write_jpeg(
      pixels, UInt32(width), UInt32(height), components, quality, progressive ? 1 : 0, app1, app1?.count ?? 0, &buffer)
    return take(ok, &buffer)
  }

  static func gif(
    _ indices: [UInt8], _ width: Int, _ height: Int, colors: [UInt8], transparent: Int32 = -1, interlaced: Bool = false
  ) -> [UInt8] {
    var buffer = pif_buffer()
    let ok = pif_write_gif(
      indices, UInt32(width), UInt32(height), colors, Int32(colors.count / 3), transparent, interlaced ? 1 : 0, &buffer)
    return take(ok, &buffer)
  }

  static func webp(_ pixels: [UInt8], _ width: Int, _ height: Int, alpha: Bool = false, lossless: Bool = true)
    -> [UInt8]
  {
    var buffer = pif_buffer()
    let ok = pif_write_webp(pixels, UInt32(width), UInt32(height), alpha ? 1 : 0, lossless ? 1 : 0, 90, &buffer)
    return take(ok, &buffer)
  }

  /// A 24-bit bottom-up BMP (BITMAPINFOHEADER), written by hand: the format is a header and rows.
  static func bmp(_ pixels: [UInt8], _ width: Int, _ height: Int) -> [UInt8] {
    let stride = (width * 3 + 3) / 4 * 4
    func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    func le16(_ v: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    var out = Array("BM".utf8) + le32(54 + stride * height) + le32(0) + le32(54)
    out += le32(40) + le32(width) + le32(height) + le16(1) + le16(24) + le32(0) + le32(stride * height)
    out += le32(2835) + le32(2835) + le32(0) + le32(0)
    for y in (0..<height).reversed() {
      for x in 0..<width {
        let i = (y * width + x) * 3
        out += [pixels[i + 2], pixels[i + 1], pixels[i]]
      }
      out += [UInt8](repeating: 0, count: stride - width * 3)
    }
    return out
  }

  /// A chunk with its CRC, for PNGs written by hand (headers that lie).
  static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    return be32(data.count) + body + be32(Int(crc32(body)))
  }

  static func be32(_ v: Int) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for b in bytes {
      crc ^= UInt32(b)
      for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }
    return ~crc
  }

  static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
}

extension PictureColor {
  static let pureRed = PictureColor(red: 255, green: 0, blue: 0)
  static let pureGreen = PictureColor(red: 0, green: 255, blue: 0)
  static let pureBlue = PictureColor(red: 0, green: 0, blue: 255)

  /// Within `tolerance` on every channel (lossy formats).
  func isNear(_ other: PictureColor, _ tolerance: Int = 12) -> Bool {
    abs(Int(red) - Int(other.red)) <= tolerance && abs(Int(green) - Int(other.green)) <= tolerance
      && abs(Int(blue) - Int(other.blue)) <= tolerance
  }
}
