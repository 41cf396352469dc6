import PreviewKit
import ProviderAPI

/// The preview pane's pictures: a file or bytes in, ▀ cells out, in one call.
///
/// Runs wholly in-process (no chafa, no helper process): decoding at a reduced scale and a box
/// filter make a 4000 × 3000 JPEG's cells in about 50 ms (docs/DECISIONS.md). Synchronous and
/// CPU-bound: callers run it off the main actor, and drop its result when the cursor has moved.
public enum PicturePreview {
  /// The cells for the picture in the file at `path`, sized for a pane of `columns` × `rows`.
  ///
  /// The file is read whole (it must be local or already downloaded), with a bounded read: only
  /// a regular file, at most `limits.maximumFileBytes`, never mapped.
  /// - Throws: `PictureError` (`notARegularFile`, `fileTooLarge`, `unreadable`, and the
  ///   decoding errors of ``render(bytes:columns:rows:background:colors:limits:)``).
  public static func render(
    path: ItemPath, columns: Int, rows: Int, background: PictureColor = .black,
    colors: HalfBlockRenderer.Colors = .rgb, limits: PictureLimits = .standard
  ) throws(PictureError) -> PictureCells {
    let bytes = try PictureFile.read(path, limit: limits.maximumFileBytes)
    return try render(
      bytes: bytes, columns: columns, rows: rows, background: background, colors: colors, limits: limits)
  }

  /// The same, for a path given as a String.
  public static func render(
    path: String, columns: Int, rows: Int, background: PictureColor = .black,
    colors: HalfBlockRenderer.Colors = .rgb, limits: PictureLimits = .standard
  ) throws(PictureError) -> PictureCells {
    try render(
      path: ItemPath(path), columns: columns, rows: rows, background: background, colors: colors, limits: limits)
  }

  /// The cells for the picture in `bytes` (PNG, JPEG, GIF's first frame, WebP, BMP).
  ///
  /// - Throws: `PictureError`: `tooLarge` (from the header, before decoding), `unsupported`,
  ///   `corrupt`, `truncated`, `outOfMemory`.
  public static func render(
    bytes: [UInt8], columns: Int, rows: Int, background: PictureColor = .black,
    colors: HalfBlockRenderer.Colors = .rgb, limits: PictureLimits = .standard
  ) throws(PictureError) -> PictureCells {
    let picture = try PictureDecoder.decode(
      bytes, fittingWidth: max(1, columns), height: 2 * max(1, rows), background: background, limits: limits)
    return HalfBlockRenderer.cells(picture, colors: colors)
  }
}
