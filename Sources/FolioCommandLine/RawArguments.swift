import Foundation

/// The exact bytes of the command line's arguments.
///
/// Swift decodes argv lossily (invalid UTF-8 becomes U+FFFD) before ArgumentParser sees it, so a
/// file name that is not valid UTF-8 would not round-trip. Each parsed argument is mapped back to
/// the raw argv element it came from.
enum RawArguments {
  static let raw: [[UInt8]] = {
    var out: [[UInt8]] = []
    for i in 0..<Int(CommandLine.argc) {
      guard let p = CommandLine.unsafeArgv[i] else { continue }
      out.append(Array(UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p))))
    }
    return out
  }()

  /// The raw bytes of an argument ArgumentParser gave us as a String.
  static func bytes(of argument: String) -> [UInt8] {
    let utf8 = Array(argument.utf8)
    guard argument.unicodeScalars.contains("\u{FFFD}") else { return utf8 }
    for r in raw.dropFirst() where String(decoding: r, as: UTF8.self) == argument { return r }
    // Options given as --name=value: the value part of a raw element.
    for r in raw.dropFirst() {
      if let eq = r.firstIndex(of: 0x3D), String(decoding: r[(eq + 1)...], as: UTF8.self) == argument {
        return Array(r[(eq + 1)...])
      }
    }
    return utf8
  }
}
