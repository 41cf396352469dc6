import Foundation

/// One `Range: bytes=…` header against a size (RFC 9110 §14.1.2): a first-last range, an open
/// "a-", or a suffix "-n". Several ranges are answered with the whole content.
enum ByteRange: Equatable {
  case whole
  case part(Int64, Int64)
  case unsatisfiable

  static func parse(_ header: String, size: Int64) -> ByteRange {
    let h = header.trimmingCharacters(in: .whitespaces)
    guard h.hasPrefix("bytes="), !h.contains(",") else { return .whole }
    let spec = h.dropFirst("bytes=".count)
    let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2 else { return .whole }
    let a = parts[0].trimmingCharacters(in: .whitespaces)
    let b = parts[1].trimmingCharacters(in: .whitespaces)
    if a.isEmpty {
      guard let n = Int64(b), n > 0, size > 0 else { return .unsatisfiable }
      return .part(max(0, size - n), size - 1)
    }
    guard let first = Int64(a), first >= 0 else { return .whole }
    if first >= size { return .unsatisfiable }
    if b.isEmpty { return .part(first, size - 1) }
    guard let last = Int64(b), last >= first else { return .whole }
    return .part(first, min(last, size - 1))
  }
}
