import CPreviewImage

/// How large a picture may be before it is refused, checked on the header before any decoding.
///
/// An image bomb is a few KB of header and compressed data claiming a picture of gigabytes.
/// libpng alone would accept 1,000,000 × 1,000,000 (its `pnglibconf.h` default); yazi's limits
/// are 10000 × 10000 and 512 MiB, and so are these (preview-pane.md §3).
public struct PictureLimits: Sendable, Hashable {
  /// The largest width and height.
  public var maximumSide: Int
  /// The largest width × height × bytes a pixel takes in the source's own depth (a 16-bit RGBA
  /// PNG: 8).
  public var maximumDecodedBytes: Int
  /// The most bytes `PicturePreview.render(path:…)` reads from a file (the pane reads whole local
  /// or downloaded pictures only up to this size).
  public var maximumFileBytes: Int

  public init(maximumSide: Int = 10_000, maximumDecodedBytes: Int = 512 << 20, maximumFileBytes: Int = 64 << 20) {
    self.maximumSide = maximumSide
    self.maximumDecodedBytes = maximumDecodedBytes
    self.maximumFileBytes = maximumFileBytes
  }

  public static let standard = PictureLimits()

  /// Throws `tooLarge` when `info` is over the limits.
  public func check(_ info: PictureInfo) throws(PictureError) {
    let (product, overflow) = info.width.multipliedReportingOverflow(by: info.height)
    let (bytes, overflow2) = product.multipliedReportingOverflow(by: max(1, info.bytesPerPixel))
    if info.width > maximumSide || info.height > maximumSide {
      throw PictureError(
        .tooLarge, "\(info.width) × \(info.height) pixels is over the \(maximumSide) × \(maximumSide) limit")
    }
    if overflow || overflow2 || bytes > maximumDecodedBytes {
      throw PictureError(
        .tooLarge,
        "\(info.width) × \(info.height) pixels would take over \(maximumDecodedBytes >> 20) MiB decoded")
    }
  }

  var c: pi_limits {
    pi_limits(max_side: UInt32(clamping: maximumSide), max_bytes: UInt64(clamping: maximumDecodedBytes))
  }
}
