import PreviewKit

/// Turns pixels into ▀ cells: each cell is one pixel wide and two pixels high, the upper pixel its
/// foreground and the lower its background.
///
/// A terminal cell is about twice as tall as it is wide, so a cell holding 1 × 2 pixels keeps the
/// pixels square and the picture's aspect ratio. This works in every terminal, over SSH and under
/// tmux, with nothing but colors (preview-pane.md §4: the robust minimum).
public enum HalfBlockRenderer {
  /// The colors the cells carry.
  public enum Colors: Sendable, Hashable {
    /// `InkColor.rgb`: the backend quantises when the terminal lacks direct color.
    case rgb
    /// `InkColor.palette`: xterm's 256 colors, chosen here (`InkColor.nearestPaletteIndex`).
    case palette256
  }

  /// The size in pixels a picture of `width` × `height` takes in a pane of `columns` × `rows`
  /// cells: the aspect kept, never enlarged.
  public static func pixelSize(width: Int, height: Int, columns: Int, rows: Int) -> (width: Int, height: Int) {
    PictureDecoder.fit(width: width, height: height, into: columns, 2 * rows)
  }

  /// The cells of `picture`, shrunk first (box filter) when it is larger than `columns` × `rows`
  /// cells allow. The result is at most `columns` wide and `rows` high; it is smaller when the
  /// picture's aspect or size says so (the pane centres it). An odd pixel height leaves the last
  /// row's lower half `.none` (the pane's own background).
  public static func render(_ picture: Picture, columns: Int, rows: Int, colors: Colors = .rgb) -> PictureCells {
    let size = pixelSize(width: picture.width, height: picture.height, columns: columns, rows: rows)
    let fitted = size.width == picture.width && size.height == picture.height ? picture : shrink(picture, to: size)
    return cells(fitted, colors: colors)
  }

  /// One cell per pixel column and pixel-row pair of `picture`, as it is.
  public static func cells(_ picture: Picture, colors: Colors = .rgb) -> PictureCells {
    let columns = picture.width
    let rows = (picture.height + 1) / 2
    var upper = [InkColor](repeating: .none, count: columns * rows)
    var lower = [InkColor](repeating: .none, count: columns * rows)
    picture.pixels.withUnsafeBufferPointer { p in
      func ink(_ x: Int, _ y: Int) -> InkColor {
        let i = (y * columns + x) * 3
        let color = InkColor.rgb(p[i], p[i + 1], p[i + 2])
        return colors == .rgb ? color : .palette(color.nearestPaletteIndex ?? 0)
      }
      for row in 0..<rows {
        for x in 0..<columns {
          upper[row * columns + x] = ink(x, 2 * row)
          if 2 * row + 1 < picture.height { lower[row * columns + x] = ink(x, 2 * row + 1) }
        }
      }
    }
    return PictureCells(columns: columns, rows: rows, upper: upper, lower: lower)
  }

  static func shrink(_ picture: Picture, to size: (width: Int, height: Int)) -> Picture {
    var box = BoxDownscaler(
      sourceWidth: picture.width, sourceHeight: picture.height, targetWidth: size.width, targetHeight: size.height,
      channels: 3)
    picture.pixels.withUnsafeBufferPointer { p in
      for y in 0..<picture.height { box.add(row: y, p.baseAddress! + y * picture.width * 3) }
    }
    return Picture(width: box.targetWidth, height: box.targetHeight, pixels: box.finish(over: .black))
  }
}
