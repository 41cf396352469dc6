import Testing

@testable import PreviewImage

/// Each format and variant decodes to the pixels it was written with.
@Suite struct PictureDecoderTests {
  /// Two rows of two pixels: red, green / blue, white.
  static let expected: [PictureColor] = [.pureRed, .pureGreen, .pureBlue, .white]

  static func colors(_ p: Picture) -> [PictureColor] {
    (0..<p.height).flatMap { y in (0..<p.width).map { x in p[x, y] } }
  }

  @Test func pngPalette() throws {
    let palette: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255]
    // 2-bit indices packed four to a byte, rows padded to a byte: 0 1 / 2 3.
    let rows: [UInt8] = [0b0001_0000, 0b1011_0000]
    let p = try PictureDecoder.decode(Fixtures.png(rows, 2, 2, type: .palette, depth: 2, palette: palette))
    #expect(Self.colors(p) == Self.expected)
  }

  @Test func pngPaletteTransparencyIsComposited() throws {
    let palette: [UInt8] = [255, 0, 0, 0, 0, 0]
    let png = Fixtures.png([0, 1], 2, 1, type: .palette, depth: 8, palette: palette, trns: [255, 0])
    let p = try PictureDecoder.decode(png, background: .white)
    #expect(Self.colors(p) == [.pureRed, .white])
  }

  @Test func pngGrayOneBitAndSixteenBit() throws {
    let one = try PictureDecoder.decode(Fixtures.png([0b1000_0000], 2, 1, type: .gray, depth: 1))
    #expect(Self.colors(one) == [.white, .black])
    // 16-bit gray, big-endian: 0xFFFF and 0x8000.
    let sixteen = try PictureDecoder.decode(Fixtures.png([0xFF, 0xFF, 0x80, 0x00], 2, 1, type: .gray, depth: 16))
    #expect(Self.colors(sixteen) == [.white, PictureColor(red: 128, green: 128, blue: 128)])
  }

  @Test func pngGrayAlphaAndSixteenBitRGBA() throws {
    // Gray 255 at alpha 0 over red: red; gray 0 at alpha 255: black.
    let ga = try PictureDecoder.decode(Fixtures.png([255, 0, 0, 255], 2, 1, type: .grayAlpha), background: .pureRed)
    #expect(Self.colors(ga) == [.pureRed, .black])
    // 16-bit RGBA: opaque blue, then white at half alpha (0x8000) over black: ~128.
    let rgba16: [UInt8] = [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF] + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0x00]
    let p = try PictureDecoder.decode(Fixtures.png(rgba16, 2, 1, type: .rgba, depth: 16))
    #expect(Self.colors(p)[0] == .pureBlue)
    #expect(Self.colors(p)[1] == PictureColor(red: 128, green: 128, blue: 128))
  }

  @Test func interlacedPNGMatchesTheSameNonInterlaced() throws {
    let pixels = Fixtures.rgb(13, 11) { x, y in
      PictureColor(red: UInt8(x * 19), green: UInt8(y * 23), blue: UInt8((x ^ y) * 7))
    }
    let plain = try PictureDecoder.decode(Fixtures.png(pixels, 13, 11))
    let interlaced = try PictureDecoder.decode(Fixtures.png(pixels, 13, 11, interlaced: true))
    #expect(plain.pixels == pixels)
    #expect(interlaced.pixels == pixels)
    let fitted = try PictureDecoder.decode(Fixtures.png(pixels, 13, 11, interlaced: true), fittingWidth: 13, height: 11)
    #expect(fitted.pixels == pixels)
  }

  @Test func jpegGrayscaleComesOutAsRGB() throws {
    let gray = [UInt8](repeating: 200, count: 16 * 16)
    let p = try PictureDecoder.decode(Fixtures.jpeg(gray, 16, 16, components: 1))
    #expect(p.width == 16 && p.height == 16)
    #expect(p[5, 5].isNear(PictureColor(red: 200, green: 200, blue: 200), 3))
  }

  @Test func adobeCMYKJPEGIsConvertedToRGB() throws {
    // Adobe (inverted) CMYK for pure red: C=0 M=1 Y=1 K=0 stored as 255, 0, 0, 255.
    let cmyk = (0..<64).flatMap { _ -> [UInt8] in [255, 0, 0, 255] }
    let p = try PictureDecoder.decode(Fixtures.jpeg(cmyk, 8, 8, components: 4))
    #expect(p[3, 3].isNear(.pureRed), "\(p[3, 3])")
  }

  @Test func progressiveJPEGDecodes() throws {
    let pixels = Fixtures.quadrants(64, 64)
    let p = try PictureDecoder.decode(Fixtures.jpeg(pixels, 64, 64, progressive: true), fittingWidth: 2, height: 2)
    #expect(Self.colors(p).enumerated().allSatisfy { $0.element.isNear(Self.expected[$0.offset]) })
  }

  @Test func largeJPEGsAreDecodedAtTheSmallestSufficientDCTScale() {
    #expect(PictureDecoder.jpegScaleDenominator(width: 4000, height: 3000, target: (80, 60)) == 8)
    #expect(PictureDecoder.jpegScaleDenominator(width: 400, height: 300, target: (80, 60)) == 4)
    #expect(PictureDecoder.jpegScaleDenominator(width: 200, height: 150, target: (80, 60)) == 2)
    #expect(PictureDecoder.jpegScaleDenominator(width: 100, height: 75, target: (80, 60)) == 1)
    // ceil(642 / 8) = 81 ≥ 80.
    #expect(PictureDecoder.jpegScaleDenominator(width: 642, height: 482, target: (80, 60)) == 8)
  }

  @Test func theEXIFOrientationTurnsTheJPEGUpright() throws {
    // Stored 32 × 16: left half red, right half blue; orientation 6 (turn 90° clockwise): the
    // left side ends on top.
    let pixels = Fixtures.rgb(32, 16) { x, _ in x < 16 ? .pureRed : .pureBlue }
    let jpeg = Fixtures.jpeg(pixels, 32, 16, app1: Self.exif(orientation: 6))
    let info = try PictureDecoder.dimensions(of: jpeg)
    #expect(info.orientation == .right && info.displayWidth == 16 && info.displayHeight == 32)
    let p = try PictureDecoder.decode(jpeg)
    #expect(p.width == 16 && p.height == 32)
    #expect(p[8, 4].isNear(.pureRed) && p[8, 28].isNear(.pureBlue), "\(p[8, 4]) \(p[8, 28])")
    let fitted = try PictureDecoder.decode(jpeg, fittingWidth: 1, height: 2)
    #expect(fitted.width == 1 && fitted.height == 2)
    #expect(fitted[0, 0].isNear(.pureRed) && fitted[0, 1].isNear(.pureBlue))
  }

  /// An APP1 payload: "Exif\0\0", a big-endian TIFF header and an IFD0 holding tag 0x0112.
  static func exif(orientation: Int) -> [UInt8] {
    Array("Exif".utf8) + [0, 0] + Array("MM".utf8) + [0, 42, 0, 0, 0, 8] + [0, 1]
      + [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(orientation), 0, 0] + [0, 0, 0, 0]
  }

  @Test func gifTransparencyAndInterlace() throws {
    // 1 × 9 stripes so each of GIF's four interlace passes holds rows; index 3 is transparent.
    let palette: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9]
    let indices: [UInt8] = [0, 1, 2, 3, 0, 1, 2, 3, 0]
    for interlaced in [false, true] {
      let gif = Fixtures.gif(indices, 1, 9, colors: palette, transparent: 3, interlaced: interlaced)
      let p = try PictureDecoder.decode(gif, background: .white)
      #expect(
        Self.colors(p) == [.pureRed, .pureGreen, .pureBlue, .white, .pureRed, .pureGreen, .pureBlue, .white, .pureRed])
    }
  }

  @Test func webpLossyAndLosslessWithAlpha() throws {
    let pixels = Fixtures.quadrants(64, 64)
    let lossy = try PictureDecoder.decode(Fixtures.webp(pixels, 64, 64, lossless: false), fittingWidth: 2, height: 2)
    #expect(
      Self.colors(lossy).enumerated().allSatisfy { $0.element.isNear(Self.expected[$0.offset], 24) },
      "\(Self.colors(lossy))")
    let rgba: [UInt8] = [0, 0, 255, 255, 0, 0, 255, 0]
    let alpha = try PictureDecoder.decode(Fixtures.webp(rgba, 2, 1, alpha: true), background: .pureRed)
    #expect(Self.colors(alpha) == [.pureBlue, .pureRed])
  }

  @Test func largeWebPIsRescaledByLibwebpFirst() throws {
    let pixels = Fixtures.quadrants(256, 256)
    let p = try PictureDecoder.decode(Fixtures.webp(pixels, 256, 256), fittingWidth: 2, height: 2)
    #expect(
      Self.colors(p).enumerated().allSatisfy { $0.element.isNear(Self.expected[$0.offset], 4) }, "\(Self.colors(p))")
  }

  @Test func bmpTopDownAndPadded() throws {
    // 3 pixels a row (9 bytes, padded to 12), bottom-up as written.
    let pixels = Fixtures.rgb(3, 2) { x, y in
      y == 1 && x == 0 ? .white : [PictureColor.pureRed, .pureGreen, .pureBlue][x]
    }
    let p = try PictureDecoder.decode(Fixtures.bmp(pixels, 3, 2))
    #expect(p.pixels == pixels)
    // The same rows top-down: a negative height.
    var topDown = Fixtures.bmp(pixels, 3, 2)
    let rows = Array(topDown[54...])
    topDown.replaceSubrange(22..<26, with: [0xFE, 0xFF, 0xFF, 0xFF])
    topDown.replaceSubrange(54..., with: Array(rows[12...]) + Array(rows[..<12]))
    #expect(try PictureDecoder.decode(topDown).pixels == pixels)
  }
}
