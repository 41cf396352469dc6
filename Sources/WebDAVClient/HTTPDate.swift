import Foundation

/// HTTP-dates (RFC 9110 §5.6.7): `getlastmodified` and `Retry-After`.
///
/// Hand-written rather than a `DateFormatter`: a listing parses one date per entry, 100k of them for
/// a large folder, and a formatter per format tried costs far more than reading six numbers off
/// the bytes. All three forms a recipient must accept are read: IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
/// (`Sun Nov  6 08:49:37 1994`).
public enum HTTPDate {
  /// The date, or nil when `text` is none of the three forms.
  public static func parse(_ text: String) -> Date? {
    var text = text
    return text.withUTF8 { parse(bytes: $0) }
  }

  static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
    // Words split on spaces and tabs, at most seven.
    var words: [(start: Int, end: Int)] = []
    words.reserveCapacity(7)
    var i = 0
    while i < bytes.count {
      while i < bytes.count && (bytes[i] == 0x20 || bytes[i] == 0x09) { i += 1 }
      guard i < bytes.count else { break }
      let start = i
      while i < bytes.count && bytes[i] != 0x20 && bytes[i] != 0x09 { i += 1 }
      words.append((start, i))
      if words.count > 6 { return nil }
    }
    guard let first = words.first else { return nil }
    let commaAfterFirst = bytes[first.end - 1] == UInt8(ascii: ",")
    var day: Int?
    var month: Int?
    var year: Int?
    var time: (Int, Int, Int)?
    if commaAfterFirst && words.count == 6 {
      // IMF-fixdate: "Sun," "06" "Nov" "1994" "08:49:37" "GMT"
      day = number(bytes, words[1].start, words[1].end)
      month = monthNumber(bytes, words[2].start, words[2].end)
      year = number(bytes, words[3].start, words[3].end)
      time = clock(bytes, words[4].start, words[4].end)
    } else if commaAfterFirst && (words.count == 3 || words.count == 4) {
      // RFC 850: "Sunday," "06-Nov-94" "08:49:37" "GMT"
      let w = words[1]
      guard w.end - w.start >= 8, bytes[w.start + 2] == UInt8(ascii: "-"), bytes[w.start + 6] == UInt8(ascii: "-") else {
        return nil
      }
      day = number(bytes, w.start, w.start + 2)
      month = monthNumber(bytes, w.start + 3, w.start + 6)
      if let short = number(bytes, w.start + 7, w.end) {
        if w.end - (w.start + 7) == 2 {
          // RFC 9110: a two-digit year more than 50 years ahead is in the past century.
          let thisYear = Calendar(identifier: .gregorian).component(.year, from: Date())
          var full = (thisYear / 100) * 100 + short
          if full > thisYear + 50 { full -= 100 }
          year = full
        } else {
          year = short
        }
      }
      time = clock(bytes, words[2].start, words[2].end)
    } else if !commaAfterFirst && words.count == 5 {
      // asctime: "Sun" "Nov" "6" "08:49:37" "1994"
      day = number(bytes, words[2].start, words[2].end)
      month = monthNumber(bytes, words[1].start, words[1].end)
      year = number(bytes, words[4].start, words[4].end)
      time = clock(bytes, words[3].start, words[3].end)
    }
    guard let day, let month, let year, let time, (1...31).contains(day), (1...9999).contains(year) else { return nil }
    let days = daysFromCivil(year: year, month: month, day: day)
    return Date(timeIntervalSince1970: Double(days) * 86400 + Double(time.0 * 3600 + time.1 * 60 + time.2))
  }

  /// Decimal digits only, at most nine.
  private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
    guard end > start, end - start <= 9 else { return nil }
    var value = 0
    for i in start..<end {
      let digit = Int(bytes[i]) - 0x30
      guard (0...9).contains(digit) else { return nil }
      value = value * 10 + digit
    }
    return value
  }

  private static func monthNumber(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
    guard end - start == 3 else { return nil }
    // Lowercased letters packed into one number: "jan" … "dec".
    let key = (Int(bytes[start] | 0x20) << 16) | (Int(bytes[start + 1] | 0x20) << 8) | Int(bytes[start + 2] | 0x20)
    return monthKeys.firstIndex(of: key).map { $0 + 1 }
  }

  private static let monthKeys: [Int] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    .map { name in name.utf8.reduce(0) { $0 << 8 | Int($1) } }

  /// `HH:MM:SS`.
  private static func clock(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (Int, Int, Int)? {
    guard end - start == 8, bytes[start + 2] == UInt8(ascii: ":"), bytes[start + 5] == UInt8(ascii: ":"),
      let hours = number(bytes, start, start + 2), let minutes = number(bytes, start + 3, start + 5),
      let seconds = number(bytes, start + 6, start + 8), hours < 24, minutes < 60, seconds <= 60
    else { return nil }
    return (hours, minutes, seconds)
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
  private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146097 + dayOfEra - 719468
  }
}
