import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The two date forms S3 sends: ISO 8601 in XML (`2009-10-12T17:50:30.000Z`) and the HTTP date in
/// headers (`Wed, 12 Oct 2009 17:50:30 GMT`). Parsed by hand with `timegm`: a formatter per call
/// costs more than the rest of a listing entry.
enum S3Date {
  /// `YYYY-MM-DDTHH:MM:SS[.fff…]Z` (also `+00:00`); nil otherwise.
  static func parseISO8601(_ text: String) -> Date? {
    let bytes = Array(text.utf8)
    guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
      bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "), bytes[13] == UInt8(ascii: ":"),
      bytes[16] == UInt8(ascii: ":"),
      let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
      let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2), let second = number(bytes, 17, 2)
    else { return nil }
    var index = 19
    var fraction = 0.0
    if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
      index += 1
      var scale = 0.1
      while index < bytes.count, let digit = number(bytes, index, 1) {
        fraction += Double(digit) * scale
        scale /= 10
        index += 1
      }
    }
    let zone = bytes[index...]
    guard zone.elementsEqual("Z".utf8) || zone.elementsEqual("+00:00".utf8) else { return nil }
    return make(year, month, day, hour, minute, second).map { $0.addingTimeInterval(fraction) }
  }

  /// RFC 1123 (`Wed, 12 Oct 2009 17:50:30 GMT`), the form S3 uses in `Last-Modified` and `Date`.
  static func parseHTTPDate(_ text: String) -> Date? {
    let parts = text.split(separator: " ")
    guard parts.count == 6, parts[5] == "GMT",
      let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3])
    else { return nil }
    let clock = parts[4].split(separator: ":")
    guard clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]) else {
      return nil
    }
    return make(year, month + 1, day, hour, minute, second)
  }

  private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

  private static func make(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int) -> Date? {
    guard (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
      (0...60).contains(second)
    else { return nil }
    var parts = tm()
    parts.tm_year = Int32(year - 1900)
    parts.tm_mon = Int32(month - 1)
    parts.tm_mday = Int32(day)
    parts.tm_hour = Int32(hour)
    parts.tm_min = Int32(minute)
    parts.tm_sec = Int32(second)
    return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
  }

  private static func number(_ bytes: [UInt8], _ start: Int, _ length: Int) -> Int? {
    guard start + length <= bytes.count else { return nil }
    var value = 0
    for byte in bytes[start..<start + length] {
      guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
      value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value
  }
}
