/// Decoded pixels: opaque RGB, 3 bytes a pixel, row-major, any alpha already composited.
public struct Picture: Sendable, Hashable {
  public let width: Int
  public let height: Int
  public let pixels: [UInt8]

  public init(width: Int, height: Int, pixels: [UInt8]) {
    precondition(width > 0 && height > 0 && pixels.count == width * height * 3)
    self.width = width
    self.height = height
    self.pixels = pixels
  }

  /// The pixel at (x, y).
  public subscript(x: Int, y: Int) -> PictureColor {
    let i = (y * width + x) * 3
    return PictureColor(red: pixels[i], green: pixels[i + 1], blue: pixels[i + 2])
  }

  /// The picture turned upright as `orientation` says.
  func oriented(_ orientation: PictureOrientation) -> Picture {
    if orientation == .up { return self }
    let (w, h) = orientation.swapsAxes ? (height, width) : (width, height)
    var out = [UInt8](repeating: 0, count: pixels.count)
    for y in 0..<h {
      for x in 0..<w {
        let (sx, sy) = orientation.source(x: x, y: y, width: width, height: height)
        let s = (sy * width + sx) * 3
        let o = (y * w + x) * 3
        out[o] = pixels[s]
        out[o + 1] = pixels[s + 1]
        out[o + 2] = pixels[s + 2]
      }
    }
    return Picture(width: w, height: h, pixels: out)
  }
}
