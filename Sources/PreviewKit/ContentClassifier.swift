/// What a file is, told from its name and its first bytes, to choose a previewer.
public enum ContentKind: Sendable, Hashable {
  case empty
  /// Text, with the language the highlighter will use (nil: plain) and its encoding.
  case text(Language?, TextEncoding)
  /// JSON (by name, or text that starts with `{` or `[`): pretty-printed when it parses.
  case json(TextEncoding)
  case binary
  case image(ImageFormat, PixelSize?)
  case pdf
  case archive(ArchiveFormat)
  case audio(MediaFormat)
  case video(MediaFormat)

  /// Words for the header when nothing better (libmagic) is at hand: "Swift source, UTF-8",
  /// "PNG image, 640 × 480".
  public var description: String {
    switch self {
    case .empty: return "empty"
    case .text(let language, let encoding):
      return (language.map { "\($0.displayName) text" } ?? "text") + ", " + encoding.displayName
    case .json(let encoding): return "JSON, " + encoding.displayName
    case .binary: return "binary data"
    case .image(let format, let size):
      return format.rawValue.uppercased() + " image" + (size.map { ", \($0.width) × \($0.height)" } ?? "")
    case .pdf: return "PDF document"
    case .archive(let format): return format.displayName + " archive"
    case .audio(let format): return format.displayName + " audio"
    case .video(let format): return format.displayName + " video"
    }
  }
}

public struct PixelSize: Sendable, Hashable {
  public var width: Int
  public var height: Int
  public init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }
}

public enum ImageFormat: String, Sendable, Hashable { case png, jpeg, gif, webp, bmp, tiff, heif, avif, ico }

public enum ArchiveFormat: String, Sendable, Hashable {
  case zip, tar, gzip, xz, bzip2, zstd, sevenZip, rar
  public var displayName: String {
    switch self {
    case .zip: "Zip"
    case .tar: "tar"
    case .gzip: "gzip"
    case .xz: "xz"
    case .bzip2: "bzip2"
    case .zstd: "Zstandard"
    case .sevenZip: "7-Zip"
    case .rar: "RAR"
    }
  }
}

public enum MediaFormat: String, Sendable, Hashable {
  case mp4, quickTime, matroska, webm, mp3, ogg, flac, wav, avi, aiff, midi
  public var displayName: String {
    switch self {
    case .mp4: "MPEG-4"
    case .quickTime: "QuickTime"
    case .matroska: "Matroska"
    case .webm: "WebM"
    case .mp3: "MP3"
    case .ogg: "Ogg"
    case .flac: "FLAC"
    case .wav: "WAVE"
    case .avi: "AVI"
    case .aiff: "AIFF"
    case .midi: "MIDI"
    }
  }
}

/// Tells a file's kind from its name and first bytes (at most the 64 KiB a preview reads).
///
/// Magic numbers first (a `.txt` that is a PNG is a PNG), then text against binary by yazi's rule
/// (a NUL in the first KiB means binary) plus a ratio, since a binary without a NUL in its first
/// KiB is common enough (compressed data has one in 256 bytes on average): more than 5% of control
/// bytes other than tab, newlines, form feed and ESC (ANSI-coloured logs are text), or mostly
/// non-ASCII bytes that are not UTF-8, also mean binary. The image sizes are read from headers
/// only where that is cheap and within the prefix (PNG IHDR, GIF's screen, the JPEG SOF marker,
/// WebP's VP8/VP8L/VP8X chunk, BMP's info header), so a decoder can refuse a bomb before it starts.
public enum ContentClassifier {
  /// - Parameter isPrefix: `prefix` is the start of a longer file (a character cut at its end is
  ///   not evidence against UTF-8); false when it is the whole file.
  public static func classify(name: String, prefix: [UInt8], isPrefix: Bool = true) -> ContentKind {
    prefix.withUnsafeBufferPointer { classify(name: name, prefix: $0, isPrefix: isPrefix) }
  }

  public static func classify(name: String, prefix p: UnsafeBufferPointer<UInt8>, isPrefix: Bool = true) -> ContentKind {
    if p.isEmpty { return .empty }
    if let kind = Magic.kind(p, name: name.lowercased()) { return kind }
    let (encoding, bom) = TextDecoding.detect(p, isPrefix: isPrefix)
    if bom == 0 && encoding == .utf8 || encoding == .latin1 {
      if isBinary(p) { return .binary }
    }
    let byName = Language.forName(name)
    if byName == .json { return .json(encoding) }
    if let byName { return .text(byName, encoding) }
    // Content tells only on ASCII-compatible text; UTF-16 is told by name alone.
    guard encoding == .utf8 || encoding == .latin1 else { return .text(nil, encoding) }
    let body = UnsafeBufferPointer(rebasing: p[bom...])
    if let byContent = Language.forContent(body) { return .text(byContent, encoding) }
    if let first = body.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }),
      first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    {
      return .json(encoding)
    }
    return .text(nil, encoding)
  }

  /// yazi's rule (a NUL in the first KiB) plus the ratios above.
  static func isBinary(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
    let n = min(p.count, 1024)
    var controls = 0
    var high = 0
    for k in 0..<n {
      let b = p[k]
      switch b {
      case 0x00: return true
      case 0x09, 0x0A, 0x0C, 0x0D, 0x1B: break
      case 0x01..<0x20, 0x7F: controls += 1
      case 0x80...: high += 1
      default: break
      }
    }
    if controls * 20 > n { return true }
    if high * 10 > n * 3 {
      // Mostly non-ASCII: text only if it is UTF-8 (CJK, Cyrillic…).
      let sample = UnsafeBufferPointer(rebasing: p[0..<n])
      return !TextDecoding.looksLikeUTF8(sample, isPrefix: true)
    }
    return false
  }
}
