/// The picture formats PreviewImage decodes.
public enum PictureFormat: String, Sendable, Hashable, CaseIterable {
  case png, jpeg, gif, webp, bmp

  /// The format the first bytes announce (its magic number), or nil.
  public static func sniff(_ bytes: some Collection<UInt8>) -> PictureFormat? {
    let head = Array(bytes.prefix(16))
    func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
      head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
    }
    if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
    if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
    if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
    if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return .webp }
    if starts(Array("BM".utf8)), head.count >= 14 { return .bmp }
    return nil
  }
}

/// What a picture's header says: enough to refuse it, to size the pane's picture and to pick a
/// JPEG's DCT scale, before a single pixel is decoded.
public struct PictureInfo: Sendable, Hashable {
  public var format: PictureFormat
  /// The size as stored (before the EXIF orientation is applied).
  public var width: Int
  public var height: Int
  /// How a stored JPEG is turned to be shown upright (EXIF tag 0x0112); `.up` for the others.
  public var orientation: PictureOrientation
  /// Bytes a pixel takes in the source's own depth (3 for an RGB JPEG, 8 for a 16-bit RGBA PNG,
  /// 1 for a GIF's or a palette PNG's indices): what `PictureLimits.maximumDecodedBytes` bounds.
  public var bytesPerPixel: Int

  public init(format: PictureFormat, width: Int, height: Int, orientation: PictureOrientation = .up, bytesPerPixel: Int)
  {
    self.format = format
    self.width = width
    self.height = height
    self.orientation = orientation
    self.bytesPerPixel = bytesPerPixel
  }

  /// The size as shown, the orientation applied.
  public var displayWidth: Int { orientation.swapsAxes ? height : width }
  public var displayHeight: Int { orientation.swapsAxes ? width : height }
}
