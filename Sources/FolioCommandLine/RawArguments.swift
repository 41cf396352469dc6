import Foundation

/// The exact bytes of the command line's arguments.
///
/// Swift decodes argv lossily (invalid UTF-8 becomes U+FFFD) before ArgumentParser sees it, so a
/// file name that is not valid UTF-8 would not round-trip. Each parsed argument is mapped back to
/// the raw argv element it came from.
///
/// Two different names can decode to the same text (`a\xFE` and `a\xFF` both read "a\u{FFFD}"),
/// so the mapping goes by occurrence: the k-th lookup of a text gets the k-th argv element that
/// decodes to it. Commands look their item arguments up once each, in argv order, which makes
/// `folio rename $'a\xFE' $'a\xFF'` rename the first to the second rather than onto itself. (An
/// option value that is never looked up, such as a tag, and that decodes to the same text as an
/// item argument after it, would shift the count; names and tags that are not UTF-8 and read alike
/// in one command line are not worth a parser of our own.)
enum RawArguments {
  static let raw: [[UInt8]] = {
    var out: [[UInt8]] = []
    for i in 0..<Int(CommandLine.argc) {
      guard let p = CommandLine.unsafeArgv[i] else { continue }
      out.append(Array(UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p))))
    }
    return out
  }()

  /// How many times each text has been looked up so far.
  private final class Lookups: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    func next(_ text: String) -> Int {
      lock.lock()
      defer { lock.unlock() }
      let k = counts[text, default: 0]
      counts[text] = k + 1
      return k
    }
  }

  private static let lookups = Lookups()

  /// The raw bytes of an argument ArgumentParser gave us as a String.
  static func bytes(of argument: String) -> [UInt8] {
    let utf8 = Array(argument.utf8)
    guard argument.unicodeScalars.contains("\u{FFFD}") else { return utf8 }
    // Every argv element (or the value part of a --name=value element) that reads as `argument`,
    // in argv order.
    var candidates: [[UInt8]] = []
    for r in raw.dropFirst() {
      if String(decoding: r, as: UTF8.self) == argument {
        candidates.append(r)
      } else if let eq = r.firstIndex(of: 0x3D), String(decoding: r[(eq + 1)...], as: UTF8.self) == argument {
        candidates.append(Array(r[(eq + 1)...]))
      }
    }
    guard !candidates.isEmpty else { return utf8 }
    return candidates[min(lookups.next(argument), candidates.count - 1)]
  }
}
