import PreviewImage
import Testing

/// Hostile and broken files: an error value, never a trap, an exit() or a huge allocation.
@Suite struct HostilePictureTests {
  static let samples: [(String, [UInt8])] = {
    let pixels = Fixtures.quadrants(32, 32)
    let indices = (0..<32 * 32).map { UInt8($0 % 4) }
    let palette: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255]
    return [
      ("png", Fixtures.png(pixels, 32, 32)),
      ("interlaced png", Fixtures.png(pixels, 32, 32, interlaced: true)),
      ("jpeg", Fixtures.jpeg(pixels, 32, 32)),
      ("progressive jpeg", Fixtures.jpeg(pixels, 32, 32, progressive: true)),
      ("gif", Fixtures.gif(indices, 32, 32, colors: palette)),
      ("webp lossy", Fixtures.webp(pixels, 32, 32, lossless: false)),
      ("webp lossless", Fixtures.webp(pixels, 32, 32)),
      ("bmp", Fixtures.bmp(pixels, 32, 32)),
    ]
  }()

  /// Decodes in both paths; any outcome but a crash is fine, an error must be a PictureError.
  static func survive(_ bytes: [UInt8]) {
    do { _ = try PictureDecoder.decode(bytes) } catch { _ = error.code }
    do { _ = try PicturePreview.render(bytes: bytes, columns: 4, rows: 2) } catch { _ = error.code }
  }

  @Test func aCorruptJPEGHeaderIsAnError() throws {
    var jpeg = Fixtures.jpeg(Fixtures.quadrants(32, 32), 32, 32)
    let sof = try #require(jpeg.indices.first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
    jpeg[sof + 4] = 7  // sample precision 7 bits: libjpeg's error_exit, which would call exit()
    #expect {
      try PicturePreview.render(bytes: jpeg, columns: 8, rows: 4)
    } throws: { ($0 as? PictureError)?.code == .corrupt }
  }

  @Test func aCorruptPNGIsAnError() throws {
    var png = Fixtures.png(Fixtures.quadrants(32, 32), 32, 32)
    let idat = try #require((0..<png.count - 4).first { Array(png[$0..<$0 + 4]) == Array("IDAT".utf8) })
    png[idat + 10] ^= 0x55  // the CRC no longer matches: libpng's png_error, a longjmp
    #expect {
      try PicturePreview.render(bytes: png, columns: 8, rows: 4)
    } throws: { ($0 as? PictureError)?.code == .corrupt }
  }

  @Test func aTruncatedPNGIsAnError() throws {
    let png = Fixtures.png(Fixtures.quadrants(64, 64), 64, 64)
    #expect {
      try PicturePreview.render(bytes: Array(png.prefix(png.count / 2)), columns: 8, rows: 4)
    } throws: { ($0 as? PictureError)?.code == .truncated }
  }

  @Test func aTruncatedJPEGIsAPartialPicture() throws {
    // Noise, so the entropy-coded data is most of the file and the cut falls inside it.
    var generator = SplitMix(seed: 7)
    let noisy = Fixtures.rgb(128, 128) { x, y in
      let n = UInt8.random(in: 0...40, using: &generator)
      return x < 64 && y < 64
        ? PictureColor(red: 215 + n, green: n, blue: n) : PictureColor(red: n, green: n, blue: 215 + n)
    }
    let jpeg = Fixtures.jpeg(noisy, 128, 128)
    let p = try PictureDecoder.decode(Array(jpeg.prefix(jpeg.count * 3 / 4)))
    #expect(p.width == 128 && p.height == 128)
    #expect(p[1, 1].isNear(PictureColor(red: 235, green: 20, blue: 20), 40))
  }

  @Test(arguments: 0..<8)
  func everyPrefixOfAFileIsSurvived(_ sample: Int) {
    let bytes = Self.samples[sample].1
    for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
      Self.survive(Array(bytes.prefix(length)))
    }
  }

  @Test(arguments: 0..<8)
  func flippedBytesAreSurvived(_ sample: Int) {
    var generator = SplitMix(seed: UInt64(sample) + 1)
    let bytes = Self.samples[sample].1
    for _ in 0..<150 {
      var mutated = bytes
      for _ in 0..<Int.random(in: 1...6, using: &generator) {
        let i = Int.random(in: 0..<mutated.count, using: &generator)
        mutated[i] = UInt8.random(in: 0...255, using: &generator)
      }
      Self.survive(mutated)
    }
  }

  @Test func aPNGClaimingAMillionByAMillionIsRefusedFromItsHeader() throws {
    // A signature and an IHDR, nothing else: had any decoder started, it would say truncated.
    let ihdr = Fixtures.be32(1_000_000) + Fixtures.be32(1_000_000) + [8, 6, 0, 0, 0]
    let png = Fixtures.pngSignature + Fixtures.pngChunk("IHDR", ihdr)
    let info = try PictureDecoder.dimensions(of: png)
    #expect(info.width == 1_000_000 && info.height == 1_000_000)
    for attempt in [
      { _ = try PictureDecoder.decode(png) }, { _ = try PicturePreview.render(bytes: png, columns: 80, rows: 40) },
    ] {
      #expect {
        try attempt()
      } throws: { error in
        let e = try #require(error as? PictureError)
        return e.code == .tooLarge && e.message.contains("1000000 × 1000000")
      }
    }
  }

  @Test func theDecodedSizeLimitCountsTheSourceDepth() throws {
    // 9000 × 9000 is within the sides, but 16-bit RGBA is 8 bytes a pixel: 618 MiB.
    let ihdr = Fixtures.be32(9000) + Fixtures.be32(9000) + [16, 6, 0, 0, 0]
    let png = Fixtures.pngSignature + Fixtures.pngChunk("IHDR", ihdr)
    #expect { try PictureDecoder.decode(png) } throws: {
      ($0 as? PictureError)?.code == .tooLarge && ($0 as? PictureError)?.message.contains("MiB") == true
    }
  }

  @Test func limitsBindEveryFormat() throws {
    let small = PictureLimits(maximumSide: 16)
    for (name, bytes) in Self.samples {
      #expect(throws: PictureError.self, "\(name)") { try PictureDecoder.decode(bytes, limits: small) }
      do {
        _ = try PictureDecoder.decode(bytes, limits: small)
      } catch {
        #expect(error.code == .tooLarge, "\(name): \(error)")
      }
    }
  }

  @Test func notAPicture() {
    #expect { try PictureDecoder.decode(Array("hello, world".utf8)) } throws: {
      ($0 as? PictureError)?.code == .unsupported
    }
    #expect { try PictureDecoder.decode([]) } throws: { ($0 as? PictureError)?.code == .unsupported }
  }
}

/// A seeded generator, so a failing mutation can be replayed.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
