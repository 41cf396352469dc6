/// Sizes written for people: `"10 GiB"`, `"512 MB"`, `"1.5GiB"`, `1073741824`.
///
/// Decimal units (KB, MB, GB, TB) are powers of 1000 and binary units (KiB, MiB, GiB, TiB) powers
/// of 1024, as IEC 80000-13 says and as `df -H` / `df -h` print them. Units are matched without
/// regard to case, but the single-letter shorthands (`10G`) are refused because they are ambiguous.
public enum ByteSize {
  static let units: [(name: String, multiplier: Int64)] = [
    ("B", 1),
    ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("TB", 1_000_000_000_000),
    ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40),
  ]

  /// The number of bytes `text` describes, or nil when it is not a size (or does not fit in Int64).
  ///
  /// A number without a unit counts bytes. A fraction is allowed with a unit (`"1.5 GiB"`) and
  /// rounds to the nearest byte.
  public static func parse(_ text: String) -> Int64? {
    let s = text.trimmingWhitespace()
    var digits = s.unicodeScalars.startIndex
    let scalars = s.unicodeScalars
    while digits < scalars.endIndex, ("0"..."9").contains(scalars[digits]) || scalars[digits] == "." {
      digits = scalars.index(after: digits)
    }
    let number = String(scalars[..<digits])
    let unit = String(scalars[digits...]).trimmingWhitespace()
    guard let multiplier = multiplier(for: unit) else { return nil }

    let parts = number.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 1 || parts.count == 2, let whole = parts.first, !whole.isEmpty,
      let wholeValue = Int64(whole)
    else { return nil }
    let (product, overflow) = wholeValue.multipliedReportingOverflow(by: multiplier)
    guard !overflow else { return nil }
    guard parts.count == 2 else { return product }

    let fractionDigits = parts[1].prefix(12)
    guard !parts[1].isEmpty, parts[1].allSatisfy(\.isASCIIDigit), let fraction = Double("0." + fractionDigits)
    else { return nil }
    let (total, overflow2) = product.addingReportingOverflow(Int64((fraction * Double(multiplier)).rounded()))
    return overflow2 ? nil : total
  }

  /// `bytes` in the largest binary unit that keeps it short: `"10 GiB"`, `"1.5 MiB"`, `"512 B"`.
  public static func format(_ bytes: Int64) -> String {
    for (name, multiplier) in [("TiB", Int64(1) << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
    where bytes >= multiplier {
      if bytes % multiplier == 0 { return "\(bytes / multiplier) \(name)" }
      let value = (Double(bytes) / Double(multiplier) * 10).rounded() / 10
      return "\(value) \(name)"
    }
    return "\(bytes) B"
  }

  private static func multiplier(for unit: String) -> Int64? {
    if unit.isEmpty { return 1 }
    return units.first { $0.name.lowercased() == unit.lowercased() }?.multiplier
  }
}

extension Character {
  var isASCIIDigit: Bool { isASCII && isWholeNumber }
}

extension StringProtocol {
  /// The string without leading and trailing spaces, tabs and newlines (no Foundation needed).
  func trimmingWhitespace() -> String {
    let string = String(self)
    let scalars = string.unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
      let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
    else { return "" }
    return String(Substring(scalars[first...last]))
  }
}
