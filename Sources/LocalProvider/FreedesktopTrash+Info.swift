import Foundation
import Glibc
import ProviderAPI

/// The `.trashinfo` file format of the freedesktop.org Trash specification 1.0.
///
/// ```
/// [Trash Info]
/// Path=/home/ana/report%20100%25.txt
/// DeletionDate=2024-05-01T14:03:07
/// ```
/// `Path` holds the original path as bytes, escaped "as in URLs (RFC 2396, section 2)": we escape
/// every byte except the unreserved ASCII letters, digits, `_ . - ~` and `/`, which is exactly
/// what trash-cli writes (Python's `urllib.parse.quote(path, '/')`), so the two produce identical
/// files. Escaping is per byte, so invalid UTF-8, newlines and control characters survive exactly.
/// `DeletionDate` is local time without a zone, as the specification requires.
enum TrashInfoFormat {
  /// The parsed fields; `path` is decoded but may still be relative (to the trash's top folder).
  struct Contents: Equatable {
    var path: [UInt8]
    var deletionDate: Date?
  }

  static let header = "[Trash Info]"
  static let fileExtension = ".trashinfo"

  /// The bytes of a `.trashinfo` file for `path` deleted at `date`.
  static func serialize(path: [UInt8], date: Date) -> [UInt8] {
    let text = "\(header)\nPath=\(percentEncode(path))\nDeletionDate=\(formatDate(date))\n"
    return Array(text.utf8)
  }

  /// Parses a `.trashinfo` file, or returns nil when it has no usable `Path`.
  ///
  /// Lenient like trash-cli and gio: CRLF line ends, keys before the group header, unknown keys
  /// and a missing or unreadable `DeletionDate` are accepted. A `Path` that is empty, contains NUL
  /// (`%00`) or a `..` component is refused, because restoring it could write outside the place
  /// it came from (the specification forbids `..`).
  static func parse(_ data: [UInt8]) -> Contents? {
    var path: [UInt8]?
    var date: Date?
    var inOtherGroup = false
    for rawLine in data.split(separator: 0x0A, omittingEmptySubsequences: true) {
      var line = Array(rawLine)
      if line.last == 0x0D { line.removeLast() }
      if line.first == 0x5B {  // "[Group]"
        inOtherGroup = line != Array(header.utf8)
        continue
      }
      if inOtherGroup || line.first == 0x23 { continue }  // another group, or a "# comment"
      if path == nil, line.starts(with: Array("Path=".utf8)) {
        path = percentDecode(Array(line.dropFirst(5)))
      } else if date == nil, line.starts(with: Array("DeletionDate=".utf8)) {
        date = parseDate(Array(line.dropFirst(13)))
      }
    }
    guard let path, isAcceptable(path) else { return nil }
    return Contents(path: path, deletionDate: date)
  }

  private static func isAcceptable(_ path: [UInt8]) -> Bool {
    if path.isEmpty || path.contains(0) { return false }
    return !path.split(separator: 0x2F).contains { $0.elementsEqual([0x2E, 0x2E]) }
  }

  // MARK: - Percent encoding

  /// Escapes every byte but `A–Z a–z 0–9 _ . - ~ /` as `%XX` (uppercase hex, like trash-cli).
  static func percentEncode(_ bytes: [UInt8]) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    for b in bytes {
      switch b {
      case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x5F, 0x2E, 0x2D, 0x7E, 0x2F:
        out.append(b)
      default:
        out.append(0x25)
        out.append(hex[Int(b >> 4)])
        out.append(hex[Int(b & 0x0F)])
      }
    }
    return String(decoding: out, as: UTF8.self)  // ASCII only
  }

  /// Decodes `%XX` escapes to bytes; anything else (including a malformed `%`) is kept as is,
  /// as Python's `unquote` does, so a sloppy writer's file still restores somewhere sensible.
  static func percentDecode(_ bytes: [UInt8]) -> [UInt8] {
    func hexValue(_ c: UInt8) -> UInt8? {
      switch c {
      case 0x30...0x39: return c - 0x30
      case 0x41...0x46: return c - 0x41 + 10
      case 0x61...0x66: return c - 0x61 + 10
      default: return nil
      }
    }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var i = 0
    while i < bytes.count {
      if bytes[i] == 0x25, i + 2 < bytes.count, let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2]) {
        out.append(hi << 4 | lo)
        i += 3
      } else {
        out.append(bytes[i])
        i += 1
      }
    }
    return out
  }

  // MARK: - Dates

  /// `YYYY-MM-DDThh:mm:ss` in local time.
  static func formatDate(_ date: Date) -> String {
    var t = time_t(date.timeIntervalSince1970.rounded(.down))
    var tm = Glibc.tm()
    localtime_r(&t, &tm)
    func pad(_ v: Int32, _ width: Int) -> String {
      let s = String(v)
      return String(repeating: "0", count: max(0, width - s.count)) + s
    }
    return "\(pad(tm.tm_year + 1900, 4))-\(pad(tm.tm_mon + 1, 2))-\(pad(tm.tm_mday, 2))"
      + "T\(pad(tm.tm_hour, 2)):\(pad(tm.tm_min, 2)):\(pad(tm.tm_sec, 2))"
  }

  /// Parses `YYYY-MM-DDThh:mm:ss` as local time; trailing text (fractions, a zone some writers
  /// add) is ignored. Nil when the fixed part is not well formed.
  static func parseDate(_ bytes: [UInt8]) -> Date? {
    guard bytes.count >= 19 else { return nil }
    func number(_ range: Range<Int>) -> Int32? {
      var v: Int32 = 0
      for i in range {
        guard (0x30...0x39).contains(bytes[i]) else { return nil }
        v = v * 10 + Int32(bytes[i] - 0x30)
      }
      return v
    }
    guard bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A, bytes[16] == 0x3A,
      let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
      (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
    else { return nil }
    var tm = Glibc.tm()
    tm.tm_year = year - 1900
    tm.tm_mon = month - 1
    tm.tm_mday = day
    tm.tm_hour = hour
    tm.tm_min = minute
    tm.tm_sec = second
    tm.tm_isdst = -1  // let mktime decide whether summer time applied then
    let t = mktime(&tm)
    if t == -1 { return nil }
    return Date(timeIntervalSince1970: TimeInterval(t))
  }
}
