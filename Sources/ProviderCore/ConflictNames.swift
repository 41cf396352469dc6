import Foundation
import ProviderAPI

/// Names the sync engine gives items it creates to keep bytes safe: a numbered name when the one
/// asked for is taken ("report 2.pdf", as Finder bounces), and a conflict copy's name
/// ("report (conflict, 2026-11-22 10.31).pdf", the server's own pattern). Bytes in, bytes out:
/// the stem and extension of a name that is not UTF-8 are kept exactly.
public enum ConflictNames {
  /// "stem N.ext" for N ≥ 2.
  public static func numbered(_ name: ItemName, _ n: Int) -> ItemName {
    let (stem, ext) = split(name)
    return ItemName(bytes: stem + Array(" \(n)".utf8) + ext)
  }

  /// "stem (conflict, DATE).ext".
  public static func conflictCopy(_ name: ItemName, at date: Date) -> ItemName {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.dateFormat = "yyyy-MM-dd HH.mm"
    let (stem, ext) = split(name)
    return ItemName(bytes: stem + Array(" (conflict, \(f.string(from: date)))".utf8) + ext)
  }

  /// The name cut before its last dot (kept with the extension); a leading dot is part of the
  /// stem, so ".profile" has no extension.
  static func split(_ name: ItemName) -> (stem: [UInt8], ext: [UInt8]) {
    let b = name.bytes
    guard let dot = b.lastIndex(of: 0x2E), dot > 0, dot < b.count - 1 else { return (b, []) }
    return (Array(b[..<dot]), Array(b[dot...]))
  }
}
