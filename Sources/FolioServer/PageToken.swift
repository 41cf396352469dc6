import FolioProtocol
import Foundation

/// A keyset page token: where the last page ended (its sort key and id) and what was listed.
///
/// The token remembers the last row's key rather than an offset, so an item added or removed
/// before it shifts nothing: the next page starts right after that key, and an item that did not
/// change is never repeated or skipped (docs/PROTOCOL.md, "Reading"). It is a compact binary form
/// (a name can be 255 bytes of control characters, which JSON would blow past 500 bytes), base64url
/// encoded. The database epoch makes a token from another server `pageExpired`.
package struct PageToken: Sendable, Equatable {
  enum Sort: UInt8, Sendable { case name = 0, date = 1, size = 2, trashed = 3 }

  var epoch: String
  var parent: String
  var sort: Sort
  var descending: Bool
  var foldersFirst: Bool
  var lastIsFolder: Bool
  /// The sort key of the last item: name bytes, or an Int64 (size, or a Double's bit pattern).
  var lastName: String?
  var lastNumber: Int64?
  var lastID: String

  package func encoded() -> String {
    var b: [UInt8] = [1]
    Self.put(&b, Array(epoch.utf8))
    Self.put(&b, Array(parent.utf8))
    b.append(sort.rawValue)
    b.append((descending ? 1 : 0) | (foldersFirst ? 2 : 0) | (lastIsFolder ? 4 : 0))
    if let lastName {
      b.append(0)
      Self.put(&b, Array(lastName.utf8))
    } else {
      b.append(1)
      let n = UInt64(bitPattern: lastNumber ?? 0)
      for shift in stride(from: 56, through: 0, by: -8) { b.append(UInt8(truncatingIfNeeded: n >> UInt64(shift))) }
    }
    Self.put(&b, Array(lastID.utf8))
    return Base64URL.encode(b)
  }

  /// Decodes a token, or throws pageExpired for anything this server did not make.
  package init(decoding token: String, epoch expected: String) throws(ServerError) {
    let expired = ServerError(.pageExpired, "the page token is unknown to this server")
    guard token.utf8.count <= WireRoutes.maxTokenBytes, let bytes = Base64URL.decode(token) else { throw expired }
    var r = ByteReader(bytes)
    guard r.byte() == 1, let e = r.string(), e == expected, let p = r.string(), let s = r.byte(),
      let sort = Sort(rawValue: s), let flags = r.byte(), let keyKind = r.byte()
    else { throw expired }
    epoch = e
    parent = p
    self.sort = sort
    descending = flags & 1 != 0
    foldersFirst = flags & 2 != 0
    lastIsFolder = flags & 4 != 0
    if keyKind == 0 {
      guard let n = r.string() else { throw expired }
      lastName = n
      lastNumber = nil
    } else {
      guard let n = r.uint64() else { throw expired }
      lastName = nil
      lastNumber = Int64(bitPattern: n)
    }
    guard let id = r.string(), r.atEnd else { throw expired }
    lastID = id
  }

  init(
    epoch: String, parent: String, sort: Sort, descending: Bool, foldersFirst: Bool, lastIsFolder: Bool,
    lastName: String?, lastNumber: Int64?, lastID: String
  ) {
    self.epoch = epoch
    self.parent = parent
    self.sort = sort
    self.descending = descending
    self.foldersFirst = foldersFirst
    self.lastIsFolder = lastIsFolder
    self.lastName = lastName
    self.lastNumber = lastNumber
    self.lastID = lastID
  }

  private static func put(_ b: inout [UInt8], _ field: [UInt8]) {
    b.append(UInt8(field.count >> 8))
    b.append(UInt8(field.count & 0xFF))
    b.append(contentsOf: field)
  }
}

/// Reads the length-prefixed fields of a token, returning nil past the end.
private struct ByteReader {
  let bytes: [UInt8]
  var at = 0
  init(_ bytes: [UInt8]) { self.bytes = bytes }
  var atEnd: Bool { at == bytes.count }

  mutating func byte() -> UInt8? {
    guard at < bytes.count else { return nil }
    defer { at += 1 }
    return bytes[at]
  }

  mutating func string() -> String? {
    guard let hi = byte(), let lo = byte() else { return nil }
    let n = Int(hi) << 8 | Int(lo)
    guard at + n <= bytes.count else { return nil }
    defer { at += n }
    return String(validating: bytes[at..<at + n], as: UTF8.self)
  }

  mutating func uint64() -> UInt64? {
    guard at + 8 <= bytes.count else { return nil }
    var n: UInt64 = 0
    for _ in 0..<8 { n = n << 8 | UInt64(bytes[at]); at += 1 }
    return n
  }
}
