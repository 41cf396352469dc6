import Foundation

/// HTTP-dates (RFC 9110 §5.6.7): `getlastmodified` and `Retry-After`.
///
/// Hand-written rather than a `DateFormatter`: a listing parses one date per entry, 100k of them for
/// a large folder, and a formatter per format tried costs far more than reading six numbers. All
/// three forms a recipient must accept are read: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`),
/// RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
public enum HTTPDate {
  /// The date, or nil when `text` is none of the three forms.
  public static func parse(_ text: String) -> Date? {
    let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    var day: Int?
    var month: Int?
    var year: Int?
    var time: (Int, Int, Int)?
    if words.count == 6 || words.count == 5, words[0].hasSuffix(",") {
      // IMF-fixdate: "Sun," "06" "Nov" "1994" "08:49:37" "GMT"
      guard words.count == 6 else { return nil }
      (day, month, year, time) = (Int(words[1]), monthNumber(words[2]), Int(words[3]), clock(words[4]))
    } else if words.count == 4 || words.count == 3, words[0].hasSuffix(",") {
      // RFC 850: "Sunday," "06-Nov-94" "08:49:37" "GMT"
      let parts = words[1].split(separator: "-").map(String.init)
      guard parts.count == 3, let two = Int(parts[2]) else { return nil }
      // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
      let thisYear = Calendar(identifier: .gregorian).component(.year, from: Date())
      var full = (thisYear / 100) * 100 + two
      if full > thisYear + 50 { full -= 100 }
      (day, month, year, time) = (Int(parts[0]), monthNumber(parts[1]), parts[2].count == 2 ? full : two, clock(words[2]))
    } else if words.count == 5 {
      // asctime: "Sun" "Nov" "6" "08:49:37" "1994"
      (day, month, year, time) = (Int(words[2]), monthNumber(words[1]), Int(words[4]), clock(words[3]))
    }
    guard let day, let month, let year, let time, (1...31).contains(day), year >= 1, year <= 9999 else { return nil }
    let days = daysFromCivil(year: year, month: month, day: day)
    let seconds = Double(days) * 86400 + Double(time.0 * 3600 + time.1 * 60 + time.2)
    return Date(timeIntervalSince1970: seconds)
  }

  private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

  private static func monthNumber(_ word: String) -> Int? {
    months.firstIndex(of: word.lowercased()).map { $0 + 1 }
  }

  private static func clock(_ word: String) -> (Int, Int, Int)? {
    let parts = word.split(separator: ":").compactMap { Int($0) }
    guard parts.count == 3, (0..<24).contains(parts[0]), (0..<60).contains(parts[1]), (0...60).contains(parts[2]) else {
      return nil
    }
    return (parts[0], parts[1], parts[2])
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
