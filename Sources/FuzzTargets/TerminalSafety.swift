import ProviderAPI

/// The property every text on its way to a terminal must have: no scalar a terminal obeys.
///
/// What the brief of the sanitisers promises (docs/ARCHITECTURE.md, "TerminalText"): no ESC or
/// other C0 control, no DEL, no C1 control (U+0080–U+009F, among them the 8-bit CSI), no bidi
/// control (embeddings, overrides, isolates, marks) and no line or paragraph separator. Checked on
/// the output of every sanitiser and on every error message a parser makes from untrusted bytes.
enum TerminalSafety {
  /// The first scalar of `text` a terminal must never see raw, or nil.
  static func forbidden(in text: String) -> Unicode.Scalar? {
    text.unicodeScalars.first(where: isForbidden)
  }

  static func isForbidden(_ s: Unicode.Scalar) -> Bool {
    let v = s.value
    if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) { return true }
    return (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F || v == 0x061C
      || v == 0x2028 || v == 0x2029
  }

  /// A violation when `text` (what `source` produced) holds a forbidden scalar.
  static func check(_ text: String, from source: String) -> FuzzViolation? {
    guard let s = forbidden(in: text) else { return nil }
    let hex = String(s.value, radix: 16, uppercase: true)
    return FuzzViolation("\(source) let U+\(hex) through: \(TerminalText.escape(String(text.prefix(200))))")
  }
}
