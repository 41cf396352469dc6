import ProviderAPI

extension PictureDecoder {
  /// The picture in the file at `path` (local or already downloaded), read whole with a bounded
  /// read (`PictureFile`: a regular file only, at most `limits.maximumFileBytes`, never mapped),
  /// shrunk to fit as ``decode(_:fittingWidth:height:background:limits:)`` does.
  public static func decode(
    path: ItemPath, fittingWidth maximumWidth: Int, height maximumHeight: Int, background: PictureColor = .black,
    limits: PictureLimits = .standard
  ) throws(PictureError) -> Picture {
    let bytes = try PictureFile.read(path, limit: limits.maximumFileBytes)
    return try decode(bytes, fittingWidth: maximumWidth, height: maximumHeight, background: background, limits: limits)
  }

  /// The picture in the file at `path` at its own size.
  public static func decode(
    path: ItemPath, background: PictureColor = .black, limits: PictureLimits = .standard
  ) throws(PictureError) -> Picture {
    try decode(PictureFile.read(path, limit: limits.maximumFileBytes), background: background, limits: limits)
  }
}
