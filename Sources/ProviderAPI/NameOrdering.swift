/// The order of names in a folder, the same for every provider that sorts by name itself (the
/// local disk, an SFTP folder): case-insensitive, with digit runs compared as numbers
/// ("file9" before "file10"), then bytewise so that the order is total and stable.
///
/// Non-ASCII bytes compare by value: locale collation would need decoding every name of a
/// million-entry folder, which is exactly what the first page must not wait for.
///
/// Sorting a huge folder compares 64-bit *prefix keys* first and falls back to the full comparison
/// only on ties. A key packs the first eight case-folded bytes big-endian; at the first digit it
/// writes '0' and stops, so two keys that differ always order the same way as the full comparison.
public enum NameOrdering {
  @inlinable @inline(__always) public static func fold(_ c: UInt8) -> UInt8 {
    (c &- 0x41) < 26 ? c | 0x20 : c
  }

  @inlinable @inline(__always) public static func isDigit(_ c: UInt8) -> Bool { (c &- 0x30) < 10 }

  /// The prefix key of a name (see the type's documentation).
  @inlinable public static func prefixKey(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64 {
    var key: UInt64 = 0
    var i = 0
    while i < 8 {
      var c: UInt8 = 0
      if i < n {
        c = p[i]
        if isDigit(c) {
          key |= UInt64(0x30) << UInt64((7 - i) * 8)
          return key
        }
        c = fold(c)
      }
      key |= UInt64(c) << UInt64((7 - i) * 8)
      i += 1
    }
    return key
  }

  /// Full comparison: negative, zero or positive.
  @inlinable public static func compare(_ a: UnsafePointer<UInt8>, _ na: Int, _ b: UnsafePointer<UInt8>, _ nb: Int) -> Int {
    var i = 0
    var j = 0
    while i < na && j < nb {
      let ca = a[i]
      let cb = b[j]
      if isDigit(ca) && isDigit(cb) {
        // Skip leading zeros, then the longer run of significant digits is the larger number.
        var si = i
        while si < na && a[si] == 0x30 { si += 1 }
        var sj = j
        while sj < nb && b[sj] == 0x30 { sj += 1 }
        var ei = si
        while ei < na && isDigit(a[ei]) { ei += 1 }
        var ej = sj
        while ej < nb && isDigit(b[ej]) { ej += 1 }
        let la = ei - si
        let lb = ej - sj
        if la != lb { return la - lb }
        var k = 0
        while k < la {
          if a[si + k] != b[sj + k] { return Int(a[si + k]) - Int(b[sj + k]) }
          k += 1
        }
        i = ei
        j = ej
        continue
      }
      let fa = fold(ca)
      let fb = fold(cb)
      if fa != fb { return Int(fa) - Int(fb) }
      i += 1
      j += 1
    }
    let restA = na - i
    let restB = nb - j
    if restA != restB { return restA - restB }
    // Equal under folding and numbers: fall back to bytes so the order is total.
    let m = min(na, nb)
    var k = 0
    while k < m {
      if a[k] != b[k] { return Int(a[k]) - Int(b[k]) }
      k += 1
    }
    return na - nb
  }

  /// Compares two byte arrays with the same order (for small lists and tests).
  public static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
    a.withUnsafeBufferPointer { pa in
      b.withUnsafeBufferPointer { pb in
        compare(pa.baseAddress ?? emptyPointer, pa.count, pb.baseAddress ?? emptyPointer, pb.count)
      }
    }
  }

  nonisolated(unsafe) private static let emptyStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
  public static var emptyPointer: UnsafePointer<UInt8> { UnsafePointer(emptyStorage) }
}
