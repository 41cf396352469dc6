import CPreviewImage
import ProviderAPI

/// A picture's rows as they are decoded, top to bottom: one of the C decoders, or the BMP reader.
///
/// Noncopyable, and only ever made inside `PictureRows.open`'s closure, so the decoder is closed
/// exactly once and never outlives the bytes it reads from.
struct PictureRows: ~Copyable {
  let width: Int
  let height: Int
  /// 3 (RGB) or 4 (RGBA, straight alpha).
  let channels: Int
  private let decoder: OpaquePointer?
  private let bmp: BMPDecoder?
  private var next = 0

  private init(decoder: OpaquePointer, geometry: pi_geometry) {
    self.decoder = decoder
    bmp = nil
    width = Int(geometry.width)
    height = Int(geometry.height)
    channels = Int(geometry.channels)
  }

  private init(bmp: BMPDecoder) {
    decoder = nil
    self.bmp = bmp
    width = bmp.header.width
    height = bmp.header.height
    channels = bmp.channels
  }

  deinit {
    if let decoder { pi_close(decoder) }
  }

  /// How the picture is to be decoded: a JPEG's DCT scale (1, 2, 4 or 8), a WebP's rescaled size.
  struct Request {
    var jpegScaleDenominator = 1
    var webpSize: (width: Int, height: Int)?
  }

  /// Opens a decoder for `info.format` over `bytes` and hands its rows to `body`; closes it after.
  static func open<R>(
    _ bytes: UnsafeRawBufferPointer, info: PictureInfo, request: Request, limits: PictureLimits,
    _ body: (inout PictureRows) throws(PictureError) -> R
  ) throws(PictureError) -> R {
    if info.format == .bmp {
      var rows = PictureRows(bmp: try BMPDecoder(bytes, limits: limits))
      return try body(&rows)
    }
    let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    guard let base else { throw PictureError(.truncated, "no bytes") }
    var geometry = pi_geometry()
    var error = pi_error()
    let decoder: OpaquePointer?
    switch info.format {
    case .jpeg:
      decoder = pi_jpeg_open(base, bytes.count, UInt32(request.jpegScaleDenominator), limits.c, &geometry, &error)
    case .png: decoder = pi_png_open(base, bytes.count, limits.c, &geometry, &error)
    case .gif: decoder = pi_gif_open(base, bytes.count, limits.c, &geometry, &error)
    case .webp:
      let size = request.webpSize ?? (0, 0)
      decoder = pi_webp_open(base, bytes.count, UInt32(size.width), UInt32(size.height), limits.c, &geometry, &error)
    case .bmp: decoder = nil
    }
    guard let decoder else { throw Self.error(error, info.format) }
    var rows = PictureRows(decoder: decoder, geometry: geometry)
    return try body(&rows)
  }

  /// Decodes the next row into `row` (`width * channels` bytes).
  ///
  /// - Throws: `cancelled` when the current task is (looked at every 32 rows: a preview the
  ///   cursor has left stops within a few ms instead of finishing a 62 MB PNG).
  mutating func read(into row: UnsafeMutablePointer<UInt8>) throws(PictureError) {
    if next & 31 == 0, Task.isCancelled { throw PictureError(.cancelled, "cancelled") }
    defer { next += 1 }
    if let bmp {
      bmp.row(next, into: row)
      return
    }
    var error = pi_error()
    if pi_read_row(decoder, row, &error) != PI_OK {
      throw Self.error(error, nil)
    }
  }

  static func error(_ e: pi_error, _ format: PictureFormat?) -> PictureError {
    // The libraries' own words, escaped: a message may quote bytes of the file.
    let message = withUnsafeBytes(of: e.message) { raw in
      TerminalText.escape(bytes: Array(raw.prefix { $0 != 0 }))
    }
    let name = format.map { $0.rawValue.uppercased() + ": " } ?? ""
    let code: PictureError.Code =
      switch e.code {
      case Int32(PI_UNSUPPORTED): .unsupported
      case Int32(PI_TRUNCATED): .truncated
      case Int32(PI_TOO_LARGE): .tooLarge
      case Int32(PI_NO_MEMORY): .outOfMemory
      case Int32(PI_MISSING_LIBRARY): .missingLibrary
      default: .corrupt
      }
    return PictureError(code, name + (message.isEmpty ? code.name : message))
  }
}
