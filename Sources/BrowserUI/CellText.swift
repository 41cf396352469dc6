import Synchronization

/// A cell's text, one grapheme cluster, as plain bits: its UTF-8 inline when it fits in 15 bytes
/// (every character but long emoji sequences and stacks of combining marks), else a slot in a
/// process-wide table of the longer clusters seen.
///
/// Why not a `String`: a frame is 10,000 cells (200x50), made, filled, compared with the frame
/// before and freed for every keystroke; with a `String` in each cell that was a retain or release
/// per cell at every step and most of a keystroke's time. With no reference in it a `Cell` is
/// trivial: the grid is made and freed as one block of memory and compared as plain words.
///
/// Equal texts have equal bits: the inline bytes are zero beyond the count, and the table gives a
/// cluster's bytes one slot. (Bytes, not `String` equality: a precomposed and a decomposed "é"
/// stay what the view drew.)
struct CellText: Sendable, Hashable {
  /// Bytes 0-7.
  private var low: UInt64
  /// Bytes 8-14, and the count in the top byte (`overflow`: `low` is a table slot).
  private var high: UInt64

  private static let overflow: UInt64 = 0xFF

  /// Every cluster longer than 15 bytes drawn so far, by its bytes. Rare (a family emoji, a name
  /// of stacked marks), so a lock and a table that only grows are cheap enough.
  private static let table = Mutex<(slots: [[UInt8]: UInt64], texts: [String])>(([:], []))

  static let empty = CellText(low: 0, high: 0)
  static let space = CellText(ascii: 0x20)

  private init(low: UInt64, high: UInt64) {
    self.low = low
    self.high = high
  }

  /// One ASCII byte.
  init(ascii byte: UInt8) {
    low = UInt64(byte)
    high = 1 << 56
  }

  init(_ text: String) {
    var text = text
    let inline: CellText? = text.withUTF8 { bytes in
      guard bytes.count <= 15 else { return nil }
      var low: UInt64 = 0
      var high: UInt64 = 0
      for (i, b) in bytes.enumerated() {
        if i < 8 { low |= UInt64(b) << (8 * UInt64(i)) } else { high |= UInt64(b) << (8 * UInt64(i - 8)) }
      }
      return CellText(low: low, high: high | UInt64(bytes.count) << 56)
    }
    if let inline {
      self = inline
      return
    }
    let bytes = Array(text.utf8)
    let slot = Self.table.withLock { table in
      if let slot = table.slots[bytes] { return slot }
      let slot = UInt64(table.texts.count)
      table.texts.append(text)
      table.slots[bytes] = slot
      return slot
    }
    low = slot
    high = Self.overflow << 56
  }

  /// The byte when the text is one ASCII byte (nearly every cell), for drawing without a String.
  var asciiByte: UInt8? {
    high == 1 << 56 && low < 0x80 ? UInt8(low) : nil
  }

  var string: String {
    let count = Int(high >> 56)
    if count == 0 { return "" }
    if UInt64(count) == Self.overflow {
      let slot = Int(low)
      return Self.table.withLock { $0.texts[slot] }
    }
    // Little-endian words hold the bytes in order in memory.
    return withUnsafeBytes(of: (low.littleEndian, high.littleEndian)) { raw in
      String(decoding: UnsafeRawBufferPointer(rebasing: raw[0..<count]), as: UTF8.self)
    }
  }
}
