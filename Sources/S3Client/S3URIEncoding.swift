/// SigV4's `UriEncode` and its inverse, on bytes.
///
/// AWS: every byte except the unreserved `A–Z a–z 0–9 - . _ ~` is `%XX` with upper-case hex; in a
/// path `/` stays. S3 paths are encoded once, not twice as for other services (the AWS SDKs' S3
/// signers: "Don't double-url-encode path elements"), and never normalised. The same string is
/// sent and signed, so the server, which decodes the path to the key and encodes it again to check
/// the signature, sees the same canonical form.
enum S3URIEncoding {
  /// The longest key S3 stores, in bytes of UTF-8.
  static let maximumKeyLength = 1024

  static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"),
      UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
      true
    default: false
    }
  }

  static func encode(_ bytes: some Sequence<UInt8>, keepSlash: Bool) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.underestimatedCount * 3)
    for byte in bytes {
      if isUnreserved(byte) || (keepSlash && byte == UInt8(ascii: "/")) {
        out.append(byte)
      } else {
        out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  static func encode(_ string: String, keepSlash: Bool = false) -> String { encode(string.utf8, keepSlash: keepSlash) }

  /// The bytes of an `encoding-type=url` value. `+` is a space, as AWS writes them (botocore
  /// decodes listings with `unquote_plus`); a literal `+` arrives as `%2B`. Nil for a `%` not
  /// followed by two hex digits.
  static func decodeURLEncoded(_ text: String) -> [UInt8]? {
    let bytes = Array(text.utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "%") {
        guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
        else {
          return nil
        }
        out.append(high << 4 | low)
        index += 3
      } else {
        out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
        index += 1
      }
    }
    return out
  }

  /// Checks that S3 can carry `key`: not empty, valid UTF-8 (S3 keys are Unicode text; other bytes
  /// would be changed or refused by the server), at most 1024 bytes.
  static func validate(key: [UInt8]) throws {
    guard !key.isEmpty else { throw S3Error(.invalidArgument, "an S3 key cannot be empty") }
    guard key.count <= maximumKeyLength else {
      throw S3Error(.invalidArgument, "the key \(S3DisplayText.escape(key.prefix(80)))… is longer than S3's 1024 bytes")
    }
    guard isUTF8(key) else {
      throw S3Error(.invalidArgument, "the name \(S3DisplayText.escape(key)) is not UTF-8 text, which S3 keys must be")
    }
  }

  /// Whether decoding changes nothing (invalid sequences would become U+FFFD).
  static func isUTF8(_ bytes: [UInt8]) -> Bool {
    Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
