import PreviewImage
import PreviewKit
import Testing

/// Pixels land in the right half of the right cell, the aspect ratio is kept, and the box filter
/// averages.
@Suite struct HalfBlockRendererTests {
  enum Format: String, CaseIterable { case png, jpeg, gif, webp, bmp }

  /// 64 × 64 in four 32 × 32 quadrants (whole JPEG MCUs, so its colors stay near even with
  /// chroma subsampling and DCT scaling).
  static func quadrantFile(_ format: Format) -> [UInt8] {
    let n = 64
    let pixels = Fixtures.quadrants(n, n)
    switch format {
    case .png: return Fixtures.png(pixels, n, n)
    case .jpeg: return Fixtures.jpeg(pixels, n, n)
    case .webp: return Fixtures.webp(pixels, n, n)
    case .bmp: return Fixtures.bmp(pixels, n, n)
    case .gif:
      let palette: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255]
      let indices = (0..<n * n).map { i -> UInt8 in
        let (x, y) = (i % n, i / n)
        return UInt8((y < n / 2 ? 0 : 2) + (x < n / 2 ? 0 : 1))
      }
      return Fixtures.gif(indices, n, n, colors: palette)
    }
  }

  @Test(arguments: Format.allCases)
  func twoByTwoColorsLandInUpperAndLowerHalves(_ format: Format) throws {
    // 64 × 64 pixels into 2 columns × 1 row: 2 × 2 pixels, one per quadrant.
    let cells = try PicturePreview.render(bytes: Self.quadrantFile(format), columns: 2, rows: 1)
    #expect(cells.columns == 2 && cells.rows == 1)
    let tolerance = format == .jpeg ? 12 : 0
    let upper = cells.upper.map { PictureColor($0)! }
    let lower = cells.lower.map { PictureColor($0)! }
    #expect(upper[0].isNear(.pureRed, tolerance), "\(upper[0])")
    #expect(upper[1].isNear(.pureGreen, tolerance), "\(upper[1])")
    #expect(lower[0].isNear(.pureBlue, tolerance), "\(lower[0])")
    #expect(lower[1].isNear(.white, tolerance), "\(lower[1])")
  }

  @Test func aWidePictureKeepsItsAspect() throws {
    let wide = Fixtures.png(Fixtures.quadrants(400, 100), 400, 100)
    let cells = try PicturePreview.render(bytes: wide, columns: 80, rows: 40)
    // 400 × 100 into 80 × 80 pixels: 80 × 20 pixels, 10 rows of cells.
    #expect(cells.columns == 80 && cells.rows == 10)
  }

  @Test func aTallPictureKeepsItsAspect() throws {
    let tall = Fixtures.jpeg(Fixtures.quadrants(100, 400), 100, 400)
    let cells = try PicturePreview.render(bytes: tall, columns: 80, rows: 40)
    // 100 × 400 into 80 × 80 pixels: 20 × 80 pixels, 20 columns of 40 rows.
    #expect(cells.columns == 20 && cells.rows == 40)
  }

  @Test func aSmallPictureIsNotEnlarged() throws {
    let small = Fixtures.png(Fixtures.quadrants(6, 4), 6, 4)
    let cells = try PicturePreview.render(bytes: small, columns: 80, rows: 40)
    #expect(cells.columns == 6 && cells.rows == 2)
  }

  @Test func anOddHeightLeavesTheLastLowerHalfToThePane() throws {
    let picture = Picture(width: 1, height: 3, pixels: [255, 0, 0, 0, 255, 0, 0, 0, 255])
    let cells = HalfBlockRenderer.render(picture, columns: 10, rows: 10)
    #expect(cells.rows == 2)
    #expect(cells.upper == [.rgb(255, 0, 0), .rgb(0, 0, 255)])
    #expect(cells.lower == [.rgb(0, 255, 0), .none])
  }

  @Test func theBoxFilterAveragesWhatFallsInACell() throws {
    // A 4 × 8 checkerboard of black and white into one cell: 1 × 2 pixels of 4 × 4 each.
    let checker = Fixtures.rgb(4, 8) { x, y in (x + y) % 2 == 0 ? .white : .black }
    let picture = Picture(width: 4, height: 8, pixels: checker)
    let cells = HalfBlockRenderer.render(picture, columns: 1, rows: 1)
    #expect(cells.columns == 1 && cells.rows == 1)
    #expect(cells.upper == [.rgb(128, 128, 128)])
    #expect(cells.lower == [.rgb(128, 128, 128)])
  }

  @Test func palette256ModeQuantisesHere() throws {
    let cells = try PicturePreview.render(
      bytes: Self.quadrantFile(.png), columns: 2, rows: 1, colors: .palette256)
    #expect(cells.upper == [.palette(196), .palette(46)])
    #expect(cells.lower == [.palette(21), .palette(231)])
  }

  @Test func transparencyIsCompositedOverTheBackground() throws {
    // RGBA: opaque red over a fully transparent right half.
    var rgba: [UInt8] = []
    for _ in 0..<2 { rgba += [255, 0, 0, 255, 0, 0, 0, 0] }
    let png = Fixtures.png(rgba, 2, 2, type: .rgba)
    let cells = try PicturePreview.render(bytes: png, columns: 2, rows: 1, background: .white)
    #expect(cells.upper == [.rgb(255, 0, 0), .rgb(255, 255, 255)])
  }
}
