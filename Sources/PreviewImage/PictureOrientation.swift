/// EXIF orientation (TIFF tag 0x0112): how the stored pixels are turned to stand upright. Phones
/// store portrait photos sideways and set 6 or 8; a preview that ignores it shows them lying down.
public enum PictureOrientation: Int, Sendable, Hashable, CaseIterable {
  case up = 1
  case upMirrored = 2
  case down = 3
  case downMirrored = 4
  case leftMirrored = 5
  /// Turned 90° clockwise to be shown.
  case right = 6
  case rightMirrored = 7
  /// Turned 90° counterclockwise to be shown.
  case left = 8

  /// Whether width and height trade places when shown.
  public var swapsAxes: Bool { rawValue >= 5 }

  /// The stored pixel a shown pixel (x, y) comes from, for a stored picture of `width` × `height`.
  func source(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
    switch self {
    case .up: (x, y)
    case .upMirrored: (width - 1 - x, y)
    case .down: (width - 1 - x, height - 1 - y)
    case .downMirrored: (x, height - 1 - y)
    case .leftMirrored: (y, x)
    case .right: (y, height - 1 - x)
    case .rightMirrored: (width - 1 - y, height - 1 - x)
    case .left: (width - 1 - y, x)
    }
  }
}
