/// A language's reserved words, builtin types and constants, looked up by the bytes of an
/// identifier without making a `String` or an array of it (the highlighter looks up every
/// identifier of a 64 KiB file, so this sits in the hottest loop).
///
/// Open addressing over FNV-1a hashes, built once per language from plain word lists.
struct KeywordTable: Sendable {
  /// What a word does to the identifier after it: `func` makes the next one a function name,
  /// `struct` a type name.
  enum Follow: UInt8, Sendable { case none, function, type }

  struct Entry: Sendable {
    var hash: UInt32
    var start: Int32
    var length: Int16
    var token: SyntaxToken
    var follow: Follow
  }

  private var slots: [Int32]
  private var entries: [Entry] = []
  private var pool: [UInt8] = []
  private let mask: Int
  let caseInsensitive: Bool
  /// Words longer than this are never looked up.
  private(set) var longest = 0

  /// - Parameter groups: each a token, what the words make of the next identifier, and the words
  ///   separated by spaces.
  init(_ groups: [(SyntaxToken, Follow, String)], caseInsensitive: Bool = false) {
    self.caseInsensitive = caseInsensitive
    let words = groups.flatMap { group in group.2.split(separator: " ").map { (Array($0.utf8), group.0, group.1) } }
    var size = 16
    while size < words.count * 2 { size *= 2 }
    mask = size - 1
    slots = [Int32](repeating: -1, count: size)
    for (word, token, follow) in words {
      let bytes = caseInsensitive ? word.map(Self.lower) : word
      let h = bytes.withUnsafeBufferPointer { Self.hash($0, 0, $0.count, caseInsensitive: false) }
      var slot = Int(h) & mask
      var duplicate = false
      while slots[slot] >= 0 {
        let e = entries[Int(slots[slot])]
        if e.hash == h && Array(pool[Int(e.start)..<Int(e.start) + Int(e.length)]) == bytes {
          duplicate = true
          break
        }
        slot = (slot + 1) & mask
      }
      if duplicate { continue }
      slots[slot] = Int32(entries.count)
      entries.append(Entry(hash: h, start: Int32(pool.count), length: Int16(bytes.count), token: token, follow: follow))
      pool.append(contentsOf: bytes)
      longest = max(longest, bytes.count)
    }
  }

  /// The entry for `p[start..<end]`, if it is a word of the table.
  @inline(__always)
  func lookup(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Entry? {
    let length = end - start
    guard length > 0, length <= longest else { return nil }
    let h = Self.hash(p, start, end, caseInsensitive: caseInsensitive)
    var slot = Int(h) & mask
    while true {
      let index = slots[slot]
      if index < 0 { return nil }
      let e = entries[Int(index)]
      if e.hash == h && Int(e.length) == length && equal(p, start, e) { return e }
      slot = (slot + 1) & mask
    }
  }

  private func equal(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ e: Entry) -> Bool {
    let base = Int(e.start)
    for k in 0..<Int(e.length) {
      let b = caseInsensitive ? Self.lower(p[start + k]) : p[start + k]
      if b != pool[base + k] { return false }
    }
    return true
  }

  @inline(__always)
  private static func hash(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, caseInsensitive: Bool) -> UInt32 {
    var h: UInt32 = 2_166_136_261
    for k in start..<end {
      h = (h ^ UInt32(caseInsensitive ? lower(p[k]) : p[k])) &* 16_777_619
    }
    return h
  }

  @inline(__always)
  static func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
}
