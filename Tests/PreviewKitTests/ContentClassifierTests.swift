import PreviewKit
import Testing

/// Real magic numbers, built byte by byte, and the text/binary line.
@Suite struct ContentClassifierTests {
  static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
  static func be32(_ v: Int) -> [UInt8] { be16(v >> 16) + be16(v) }
  static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
  static func le24(_ v: Int) -> [UInt8] { le16(v) + [UInt8(v >> 16 & 0xFF)] }
  static func le32(_ v: Int) -> [UInt8] { le16(v) + le16(v >> 16) }
  static func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }
  static func riff(_ form: String, _ chunk: [UInt8]) -> [UInt8] { ascii("RIFF") + le32(4 + chunk.count) + ascii(form) + chunk }

  static let png =
    [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + ascii("IHDR") + be32(640) + be32(480) + [8, 6, 0, 0, 0]
  static let gif = ascii("GIF89a") + le16(320) + le16(200) + [0xF7, 0, 0]
  /// SOI, a JFIF APP0, a DQT, then SOF0 with 3000 rows of 4000 pixels.
  static let jpeg: [UInt8] =
    [0xFF, 0xD8, 0xFF, 0xE0] + be16(16) + ascii("JFIF") + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
    + [0xFF, 0xDB] + be16(67) + [UInt8](repeating: 1, count: 65)
    + [0xFF, 0xC0] + be16(17) + [8] + be16(3000) + be16(4000) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
  /// A camera's Exif segment as long as a segment may be: its SOF lies past what was read.
  static let jpegWithHugeExif: [UInt8] =
    [0xFF, 0xD8, 0xFF, 0xE1] + be16(0xFFFF) + ascii("Exif") + [UInt8](repeating: 0, count: 100)
  static let webpLossless = riff("WEBP", ascii("VP8L") + le32(5) + [0x2F] + le32((100 - 1) | (50 - 1) << 14))
  static let webpLossy = riff("WEBP", ascii("VP8 ") + le32(10) + [0x30, 0x01, 0x00, 0x9D, 0x01, 0x2A] + le16(1920) + le16(1080))
  static let webpExtended = riff("WEBP", ascii("VP8X") + le32(10) + [0x10, 0, 0, 0] + le24(800 - 1) + le24(600 - 1))
  static let bmp =
    ascii("BM") + le32(1000) + le32(0) + le32(54) + le32(40) + le32(64) + le32(-32 & 0xFFFF_FFFF) + le16(1) + le16(24)
  static let tar: [UInt8] = {
    var block = [UInt8](repeating: 0, count: 512)
    block.replaceSubrange(0..<8, with: ascii("file.txt"))
    block.replaceSubrange(257..<263, with: ascii("ustar") + [0])
    return block
  }()
  static func ftyp(_ brand: String) -> [UInt8] { be32(24) + ascii("ftyp") + ascii(brand) + be32(0) + ascii("isomiso2") }

  @Test(arguments: [
    ("a.png", png, ContentKind.image(.png, PixelSize(width: 640, height: 480))),
    ("a.gif", gif, .image(.gif, PixelSize(width: 320, height: 200))),
    ("a.jpg", jpeg, .image(.jpeg, PixelSize(width: 4000, height: 3000))),
    ("camera.jpg", jpegWithHugeExif, .image(.jpeg, nil)),
    ("a.webp", webpLossless, .image(.webp, PixelSize(width: 100, height: 50))),
    ("b.webp", webpLossy, .image(.webp, PixelSize(width: 1920, height: 1080))),
    ("c.webp", webpExtended, .image(.webp, PixelSize(width: 800, height: 600))),
    ("a.bmp", bmp, .image(.bmp, PixelSize(width: 64, height: 32))),
    ("photo.heic", ftyp("heic"), .image(.heif, nil)),
    ("not-a-text.txt", png, .image(.png, PixelSize(width: 640, height: 480))),
    ("a.pdf", ascii("%PDF-1.7\n%\u{E2}\u{E3}"), .pdf),
    ("a.zip", [0x50, 0x4B, 0x03, 0x04, 0x14, 0x00], .archive(.zip)),
    ("a.tar", tar, .archive(.tar)),
    ("a.tgz", [0x1F, 0x8B, 0x08, 0x00], .archive(.gzip)),
    ("a.xz", [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x00], .archive(.xz)),
    ("a.bz2", ascii("BZh91AY&SY"), .archive(.bzip2)),
    ("a.zst", [0x28, 0xB5, 0x2F, 0xFD, 0x04], .archive(.zstd)),
    ("a.7z", [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C, 0x00, 0x04], .archive(.sevenZip)),
    ("a.rar", ascii("Rar!") + [0x1A, 0x07, 0x01, 0x00], .archive(.rar)),
    ("a.mp4", ftyp("isom"), .video(.mp4)),
    ("a.m4a", ftyp("M4A "), .audio(.mp4)),
    ("a.mov", ftyp("qt  "), .video(.quickTime)),
    ("a.mkv", [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x82, 0x88] + ascii("matroska"), .video(.matroska)),
    ("a.webm", [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x82, 0x84] + ascii("webm"), .video(.webm)),
    ("a.mp3", ascii("ID3") + [3, 0, 0, 0, 0, 0x0F, 0x76], .audio(.mp3)),
    ("a.ogg", ascii("OggS") + [0, 2] + [UInt8](repeating: 0, count: 22) + [0x01] + ascii("vorbis"), .audio(.ogg)),
    ("a.ogv", ascii("OggS") + [0, 2] + [UInt8](repeating: 0, count: 22) + [0x80] + ascii("theora"), .video(.ogg)),
    ("a.flac", ascii("fLaC") + [0, 0, 0, 0x22], .audio(.flac)),
    ("a.wav", riff("WAVE", ascii("fmt ") + le32(16)), .audio(.wav)),
    ("a.avi", riff("AVI ", ascii("LIST")), .video(.avi)),
  ])
  func magicNumbers(_ name: String, _ prefix: [UInt8], _ kind: ContentKind) {
    #expect(ContentClassifier.classify(name: name, prefix: prefix) == kind)
  }

  /// A header cut by the end of what was read gives the kind without a size, never a crash.
  @Test func cutHeadersGiveNoSize() {
    for prefix in [Self.png, Self.gif, Self.jpeg, Self.webpLossless, Self.webpLossy, Self.webpExtended, Self.bmp] {
      for length in 2..<prefix.count {
        _ = ContentClassifier.classify(name: "x", prefix: Array(prefix.prefix(length)))
      }
    }
    #expect(ContentClassifier.classify(name: "a.png", prefix: Array(Self.png.prefix(20))) == .image(.png, nil))
  }

  /// Text that happens to start with a format's letters stays text.
  @Test func textThatStartsLikeAMagicNumber() {
    for text in ["ID3 tags are read first", "OggS is Ogg's capture pattern", "fLaC, MThd and BZh are magic", "MThd?"] {
      #expect(ContentClassifier.classify(name: "notes", prefix: Self.ascii(text)) == .text(nil, .utf8), "\(text)")
    }
  }

  @Test func textAgainstBinary() {
    #expect(ContentClassifier.classify(name: "a.txt", prefix: []) == .empty)
    // yazi's rule: a NUL in the first KiB.
    #expect(ContentClassifier.classify(name: "a.txt", prefix: Self.ascii("hello\u{0}world")) == .binary)
    // No NUL, but a binary's share of control bytes.
    let noisy = (1...1024).map { UInt8(truncatingIfNeeded: $0 * 37 % 255 + 1) }
    #expect(ContentClassifier.classify(name: "blob", prefix: noisy) == .binary)
    // Colours are text, and so are tabs, form feeds and CR LF.
    #expect(
      ContentClassifier.classify(name: "build.log", prefix: Self.ascii("\u{1B}[31mred\u{1B}[0m\r\n\tx\u{0C}"))
        == .text(nil, .utf8))
    #expect(ContentClassifier.classify(name: "notes", prefix: Self.ascii("漢字かな交じり文、Кириллица")) == .text(nil, .utf8))
    #expect(
      ContentClassifier.classify(
        name: "old.txt", prefix: Self.ascii("caf") + [0xE9] + Self.ascii(" cr") + [0xE8] + Self.ascii("me"))
        == .text(nil, .latin1))
  }

  @Test func languageByNameThenContent() {
    #expect(ContentClassifier.classify(name: "main.swift", prefix: Self.ascii("import Foundation")) == .text(.swift, .utf8))
    #expect(
      ContentClassifier.classify(name: "tool", prefix: Self.ascii("#!/usr/bin/env python3\nprint(1)")) == .text(.python, .utf8))
    #expect(ContentClassifier.classify(name: "run", prefix: Self.ascii("#!/bin/sh -e\necho")) == .text(.shell, .utf8))
    #expect(ContentClassifier.classify(name: "feed", prefix: Self.ascii("<?xml version=\"1.0\"?>")) == .text(.html, .utf8))
    #expect(ContentClassifier.classify(name: "response", prefix: Self.ascii("  {\"a\": 1}")) == .json(.utf8))
    #expect(ContentClassifier.classify(name: "a.geojson", prefix: Self.ascii("{}")) == .json(.utf8))
    #expect(ContentClassifier.classify(name: "x.js", prefix: Self.ascii("[1, 2]")) == .text(.javascript, .utf8))
    #expect(ContentClassifier.classify(name: "changes", prefix: Self.ascii("diff --git a/x b/x\n")) == .text(.diff, .utf8))
    #expect(ContentClassifier.classify(name: "u16.txt", prefix: [0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00]) == .text(nil, .utf16LE))
  }

  @Test func languagesByName() {
    let names: [(String, Language?)] = [
      ("Makefile", .makefile), ("Dockerfile", .dockerfile), ("Dockerfile.dev", .dockerfile), (".bashrc", .shell),
      ("x.h", .c), ("x.hpp", .c), ("x.mm", .c), ("x.tsx", .javascript), ("x.kt", .java), ("Gemfile", .ruby),
      ("x.yml", .yaml), ("Cargo.toml", .toml), ("x.ini", .toml), ("README.MD", .markdown), ("x.patch", .diff),
      ("x.svg", .html), ("x.scss", .css), ("x.sql", .sql), ("x.rs", .rust), ("x.go", .go), ("x", nil), (".hidden", nil),
    ]
    for (name, language) in names { #expect(Language.forName(name) == language, "\(name)") }
  }

  @Test func descriptionsForTheHeader() {
    #expect(ContentKind.image(.png, PixelSize(width: 4000, height: 3000)).description == "PNG image, 4000 × 3000")
    #expect(ContentKind.text(.swift, .utf8).description == "Swift text, UTF-8")
    #expect(ContentKind.archive(.sevenZip).description == "7-Zip archive")
  }
}
