import PreviewImage
import Testing

/// `dimensions(of:)` reads the size from a prefix, as the pane does for a remote file that is not
/// downloaded (one ranged read of 64 KiB).
@Suite struct PictureHeaderTests {
  static let pixels = Fixtures.quadrants(300, 200)

  @Test func sizesFromShortPrefixes() throws {
    let png = Fixtures.png(Self.pixels, 300, 200)
    let gif = Fixtures.gif([UInt8](repeating: 0, count: 300 * 200), 300, 200, colors: [0, 0, 0, 255, 255, 255])
    let lossy = Fixtures.webp(Self.pixels, 300, 200, lossless: false)
    let lossless = Fixtures.webp(Self.pixels, 300, 200)
    let bmp = Fixtures.bmp(Self.pixels, 300, 200)
    for (bytes, prefix, format) in [
      (png, 33, PictureFormat.png), (gif, 13, .gif), (lossy, 30, .webp), (lossless, 25, .webp), (bmp, 54, .bmp),
    ] {
      let info = try PictureDecoder.dimensions(of: Array(bytes.prefix(prefix)))
      #expect(info.format == format && info.width == 300 && info.height == 200, "\(format)")
    }
  }

  @Test func aJPEGSizeAfterALargeEXIFSegmentWithin64KiB() throws {
    // A 40 KB APP1 before the frame header, as a camera's thumbnail makes.
    let app1 = PictureDecoderTests.exif(orientation: 8) + [UInt8](repeating: 0xAB, count: 40_000)
    let jpeg = Fixtures.jpeg(Self.pixels, 300, 200, app1: app1)
    let info = try PictureDecoder.dimensions(of: Array(jpeg.prefix(65_536)))
    #expect(info.format == .jpeg && info.width == 300 && info.height == 200 && info.orientation == .left)
    #expect(info.displayWidth == 200 && info.displayHeight == 300)
    #expect(info.bytesPerPixel == 3)
    // Cut inside the APP1 segment: the size is beyond the bytes given.
    #expect { try PictureDecoder.dimensions(of: Array(jpeg.prefix(20_000))) } throws: {
      ($0 as? PictureError)?.code == .truncated
    }
  }

  @Test func tooShortPrefixesAreTruncated() {
    let png = Fixtures.png(Self.pixels, 300, 200)
    let webp = Fixtures.webp(Self.pixels, 300, 200)
    for bytes in [Array(png.prefix(20)), Array(webp.prefix(16)), Array("GIF89a".utf8) + [1]] {
      #expect { try PictureDecoder.dimensions(of: bytes) } throws: { ($0 as? PictureError)?.code == .truncated }
    }
  }

  @Test func lyingHeadersOfEveryFormatAreRefusedBeforeDecoding() throws {
    // JPEG: SOF0 of 60000 × 60000; GIF: a 65535 × 65535 screen; WebP VP8X: 16384 × 16384.
    let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0, 17, 8, 0xEA, 0x60, 0xEA, 0x60, 3] + [UInt8](repeating: 1, count: 9)
    let gif = Array("GIF89a".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0]
    let webp =
      Array("RIFF".utf8) + [30, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0] + [0, 0, 0, 0]
      + [0xFF, 0x3F, 0, 0xFF, 0x3F, 0]
    for bytes in [jpeg, gif, webp] {
      #expect { try PicturePreview.render(bytes: bytes, columns: 80, rows: 40) } throws: {
        ($0 as? PictureError)?.code == .tooLarge
      }
    }
  }

  @Test func formatsAreSniffedFromTheirMagic() {
    #expect(PictureFormat.sniff(Fixtures.pngSignature) == .png)
    #expect(PictureFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
    #expect(PictureFormat.sniff(Array("GIF87a".utf8)) == .gif)
    #expect(PictureFormat.sniff(Array("RIFF\0\0\0\0WEBP".utf8)) == .webp)
    #expect(PictureFormat.sniff(Array("RIFF\0\0\0\0WAVE".utf8)) == nil)
    #expect(PictureFormat.sniff(Array("%PDF-1.7".utf8)) == nil)
  }
}
