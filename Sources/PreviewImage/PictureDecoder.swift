/// Decodes PNG, JPEG, GIF (first frame), WebP and BMP, from bytes in memory.
///
/// The header is read first, in Swift (`dimensions(of:)`), and a picture over the limits is
/// refused before any decoder allocates. Pixels come from libjpeg-turbo, libpng, giflib and
/// libwebp through CPreviewImage (BMP in Swift), row by row.
public enum PictureDecoder {
  /// The format and size a picture's first bytes announce: works on a prefix, such as the first
  /// 64 KiB of a remote file that is not downloaded.
  ///
  /// - Throws: `unsupported` (not a known picture), `truncated` (the size lies beyond the bytes
  ///   given: a JPEG whose EXIF segment is larger than the prefix), `corrupt`.
  public static func dimensions(of bytes: [UInt8]) throws(PictureError) -> PictureInfo {
    try withBytes(bytes) { raw throws(PictureError) in try PictureHeader.read(raw) }
  }

  /// The whole picture at its own size, upright, transparent parts composited over `background`.
  ///
  /// - Throws: `PictureError`: `tooLarge` from the header (nothing decoded), `corrupt`,
  ///   `truncated`, `unsupported`.
  public static func decode(
    _ bytes: [UInt8], background: PictureColor = .black, limits: PictureLimits = .standard
  ) throws(PictureError) -> Picture {
    try withBytes(bytes) { raw throws(PictureError) in
      let info = try PictureHeader.read(raw)
      try limits.check(info)
      let stored = try PictureRows.open(raw, info: info, request: .init(), limits: limits) {
        (rows: inout PictureRows) throws(PictureError) in
        var pixels = [UInt8](repeating: 0, count: rows.width * rows.height * 3)
        var row = [UInt8](repeating: 0, count: rows.width * rows.channels)
        let bg = (Int(background.red), Int(background.green), Int(background.blue))
        for y in 0..<rows.height {
          try row.withUnsafeMutableBufferPointer { r throws(PictureError) in try rows.read(into: r.baseAddress!) }
          let o = y * rows.width * 3
          for x in 0..<rows.width {
            if rows.channels == 3 {
              pixels[o + x * 3] = row[x * 3]
              pixels[o + x * 3 + 1] = row[x * 3 + 1]
              pixels[o + x * 3 + 2] = row[x * 3 + 2]
            } else {
              let a = Int(row[x * 4 + 3])
              pixels[o + x * 3] = UInt8((Int(row[x * 4]) * a + bg.0 * (255 - a) + 127) / 255)
              pixels[o + x * 3 + 1] = UInt8((Int(row[x * 4 + 1]) * a + bg.1 * (255 - a) + 127) / 255)
              pixels[o + x * 3 + 2] = UInt8((Int(row[x * 4 + 2]) * a + bg.2 * (255 - a) + 127) / 255)
            }
          }
        }
        return Picture(width: rows.width, height: rows.height, pixels: pixels)
      }
      return stored.oriented(info.orientation)
    }
  }

  /// The picture shrunk to fit `maximumWidth` × `maximumHeight` pixels (as shown, aspect kept,
  /// never enlarged), upright, composited over `background`.
  ///
  /// This is the fast path: a JPEG is decoded at the smallest DCT scale (1/8, 1/4, 1/2) that is
  /// still at least the target size, so a 4000 × 3000 photo for an 80-column pane costs the
  /// entropy decoding and little else; a WebP uses libwebp's own rescaler; the others go through
  /// the box filter row by row and are never held whole (interlaced PNGs excepted).
  public static func decode(
    _ bytes: [UInt8], fittingWidth maximumWidth: Int, height maximumHeight: Int, background: PictureColor = .black,
    limits: PictureLimits = .standard
  ) throws(PictureError) -> Picture {
    try withBytes(bytes) { raw throws(PictureError) in
      let info = try PictureHeader.read(raw)
      try limits.check(info)
      let fit = Self.fit(width: info.displayWidth, height: info.displayHeight, into: maximumWidth, maximumHeight)
      // The target in the stored orientation.
      let (tw, th) = info.orientation.swapsAxes ? (fit.height, fit.width) : (fit.width, fit.height)
      var request = PictureRows.Request()
      if info.format == .jpeg {
        request.jpegScaleDenominator = jpegScaleDenominator(width: info.width, height: info.height, target: (tw, th))
      }
      if info.format == .webp, info.width >= 2 * tw, info.height >= 2 * th {
        // Twice the target: libwebp's rescaler does the large step, the box filter the last.
        request.webpSize = (2 * tw, 2 * th)
      }
      let stored = try PictureRows.open(raw, info: info, request: request, limits: limits) {
        (rows: inout PictureRows) throws(PictureError) in
        var box = BoxDownscaler(
          sourceWidth: rows.width, sourceHeight: rows.height, targetWidth: tw, targetHeight: th, channels: rows.channels
        )
        var row = [UInt8](repeating: 0, count: rows.width * rows.channels)
        try row.withUnsafeMutableBufferPointer { r throws(PictureError) in
          for y in 0..<rows.height {
            try rows.read(into: r.baseAddress!)
            box.add(row: y, r.baseAddress!)
          }
        }
        return Picture(width: box.targetWidth, height: box.targetHeight, pixels: box.finish(over: background))
      }
      return stored.oriented(info.orientation)
    }
  }

  /// The smallest DCT scale libjpeg-turbo decodes fast (1/8, 1/4, 1/2, else 1) whose output,
  /// ceil(side / d), is still at least the target on both sides: the whole speed story of a
  /// large JPEG (M2: 94 ms at full size, 45–49 ms at 1/8 for 4000 × 3000).
  static func jpegScaleDenominator(width: Int, height: Int, target: (width: Int, height: Int)) -> Int {
    [8, 4, 2].first { d in (width + d - 1) / d >= target.width && (height + d - 1) / d >= target.height } ?? 1
  }

  /// The largest size with `width`:`height`'s aspect that fits `maximumWidth` × `maximumHeight`,
  /// no larger than `width` × `height`, at least 1 × 1.
  public static func fit(width: Int, height: Int, into maximumWidth: Int, _ maximumHeight: Int) -> (
    width: Int, height: Int
  ) {
    guard width > 0, height > 0 else { return (1, 1) }
    let scale = min(1, Double(max(1, maximumWidth)) / Double(width), Double(max(1, maximumHeight)) / Double(height))
    let w = min(max(1, maximumWidth), max(1, Int((Double(width) * scale).rounded())))
    let h = min(max(1, maximumHeight), max(1, Int((Double(height) * scale).rounded())))
    return (w, h)
  }

  /// `withUnsafeBytes` with a typed error (the standard library's is `rethrows`).
  static func withBytes<R>(
    _ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(PictureError) -> R
  ) throws(PictureError) -> R {
    try bytes.withUnsafeBytes { raw in Result { () throws(PictureError) in try body(raw) } }.get()
  }
}
