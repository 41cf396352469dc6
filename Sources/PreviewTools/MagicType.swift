import CPreviewTools
import ProviderAPI
import Synchronization

/// A file's type told by its content, with libmagic (the library behind file(1)).
///
/// One database load (~0.1 s, several MB) for the life of the value; each question is one
/// `magic_buffer` over at most the first 64 KiB (0.05–2.8 ms, preview-pane.md M3), asked twice
/// on the same handle: once for the description, once for the MIME type. libmagic handles are not
/// thread-safe, so the handle sits behind a lock; previews are one at a time, so it is not
/// contended.
///
/// libmagic, not a table of signatures in Swift: it knows thousands of formats and the dimensions
/// and details people expect in a header ("PNG image data, 4000 x 3000, 8-bit/color RGB"), and
/// Debian ships it everywhere `file` is installed (docs/DECISIONS.md).
public final class MagicType: Sendable {
  /// What libmagic says of some bytes.
  public struct Answer: Sendable, Equatable {
    /// `"PNG image data, 4000 x 3000, 8-bit/color RGB, non-interlaced"`: safe to show (control
    /// characters removed) and at most ``MagicType/maxDescriptionLength`` characters.
    public var description: String
    /// `"image/png"`.
    public var mimeType: String
  }

  /// The most bytes read from the content. `file` reads 64 KiB, but libmagic's text tests (the
  /// encoding, the regex of every text format) cost about 8 ms over 64 KiB against 2–3 ms over
  /// 16 KiB, twice per preview (description and MIME type), on every cursor move: 16 KiB keeps the
  /// binary formats' magic, which lies in the first bytes (docs/BENCHMARKS.md, "Preview pane").
  public static let maxPrefix = 16 * 1024
  /// Descriptions longer than this are cut (with "…"): some formats chain many details.
  public static let maxDescriptionLength = 200

  private let handle: Mutex<OpaquePointer>

  /// Loads the compiled database (`/usr/lib/file/magic.mgc`, Debian's libmagic-mgc).
  ///
  /// - Throws: a ``HelperError`` `notFound` naming libmagic-mgc when the database cannot be loaded.
  public init() throws(HelperError) {
    var why = [CChar](repeating: 0, count: 160)
    guard folio_magic_load(&why, why.count) == 1 else {
      throw HelperError(.notFound, String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    guard let magic = folio_magic_open(MAGIC_NONE) else {
      throw HelperError(.notFound, "libmagic could not start (install libmagic1)")
    }
    guard folio_magic_load_database(magic, nil) == 0 else {
      let reason = folio_magic_error(magic).map { String(cString: $0) } ?? "unknown error"
      folio_magic_close(magic)
      throw HelperError(.notFound, "cannot load libmagic's database (install libmagic-mgc): \(Self.clean(reason))")
    }
    handle = Mutex(magic)
  }

  deinit { handle.withLock { folio_magic_close($0) } }

  /// The type of content that starts with `prefix` (only its first ``maxPrefix`` bytes are read).
  ///
  /// - Returns: nil when libmagic fails on the bytes (it does not for ordinary input).
  public func identify(_ prefix: some Collection<UInt8>) -> Answer? {
    let bytes = Array(prefix.prefix(Self.maxPrefix))
    return handle.withLock { magic -> Answer? in
      guard folio_magic_setflags(magic, MAGIC_NONE) == 0, let description = Self.ask(magic, bytes),
        folio_magic_setflags(magic, MAGIC_MIME_TYPE) == 0, let mime = Self.ask(magic, bytes)
      else { return nil }
      return Answer(description: Self.clean(description), mimeType: Self.clean(mime))
    }
  }

  private static func ask(_ magic: OpaquePointer, _ bytes: [UInt8]) -> String? {
    let answer = bytes.withUnsafeBytes { folio_magic_buffer(magic, $0.baseAddress, $0.count) }
    // String(cString:) repairs invalid UTF-8 (U+FFFD): clean() sees only scalars.
    return answer.map { String(cString: $0) }
  }

  /// libmagic's words come from the file (a PDF title, an ELF's interpreter path, a text's first
  /// line for some formats): every control character becomes a space, runs of spaces one, and the
  /// result is cut to ``maxDescriptionLength``. (libmagic already shows most non-printing bytes
  /// as `\ooo`; this is the second layer.)
  static func clean(_ s: String) -> String {
    var out = ""
    var lastWasSpace = true
    for scalar in s.unicodeScalars {
      let v = scalar.value
      let isControl = v < 0x20 || (0x7F...0x9F).contains(v) || TerminalText.isUnsafe(scalar)
      if isControl || scalar == " " {
        if !lastWasSpace { out.unicodeScalars.append(" ") }
        lastWasSpace = true
      } else {
        out.unicodeScalars.append(scalar)
        lastWasSpace = false
      }
    }
    while out.hasSuffix(" ") { out.removeLast() }
    if out.count > maxDescriptionLength { out = String(out.prefix(maxDescriptionLength - 1)) + "…" }
    return out
  }
}
