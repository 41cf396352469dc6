/// A check of TOML text before toml++ (through TOMLKit) parses it: every key must start where a
/// key can start, every value where a value can.
///
/// Why it exists: toml++ 3.4 asserts its parser's preconditions instead of checking them in two
/// places: a key after `[`, `[[` or a `.` of a table header must start with a bare-key character
/// or a quote (`[}`, `[&`, `[[[1]]]`), and a value after `=`, `[` or an array's `,` must not start
/// with `}` or `,` (`c=["",}`). A debug build aborts; a release build, where an assertion becomes
/// an assumption, has undefined behaviour (toml++ issue 294, pull request 301; found here by
/// folio-fuzz on config and theme files). Such text is invalid TOML anyway, so it is refused here
/// with a line and a column, as toml++ would; everything else is left to toml++. The scan knows
/// comments, the four kinds of strings and brackets inside values, so a `[` that opens an array on
/// a line of its own is not taken for a header.
public enum TOMLPreflight {
  /// What is wrong and where (1-based line and column, in bytes).
  public struct Problem: Sendable, Equatable {
    public var line: Int
    public var column: Int
    public var message: String
  }

  /// The first key or value that cannot start where it does, or nil.
  public static func problem(in text: String) -> Problem? {
    let b = Array(text.utf8)
    // toml++ skips a UTF-8 byte-order mark: so does the scan (a header after one went unchecked:
    // found by libFuzzer).
    var i = b.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    var line = 1
    var lineStart = 0
    var open: [UInt8] = []  // the [ and { open inside a value
    var onlySpaceSoFar = true
    var expectingValue = false  // after =, or [ and , in an array
    func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }
    func isKeyStart(_ c: UInt8) -> Bool {
      (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || (0x30...0x39).contains(c) || c == 0x5F || c == 0x2D
        || c == 0x22 || c == 0x27
    }
    /// Skips a string starting at `i` (a quote), counting the lines of a multi-line one.
    func skipString() {
      let q = b[i]
      let triple = i + 2 < b.count && b[i + 1] == q && b[i + 2] == q
      i += triple ? 3 : 1
      while i < b.count {
        let c = b[i]
        if c == 0x5C && q == 0x22 {  // a basic string's escape
          i += 2
          continue
        }
        if c == 0x0A {
          if !triple { return }  // an unterminated one-line string: toml++ reports it
          line += 1
          lineStart = i + 1
        }
        if c == q {
          if !triple {
            i += 1
            return
          }
          if i + 2 < b.count && b[i + 1] == q && b[i + 2] == q {
            i += 3
            while i < b.count && b[i] == q { i += 1 }  // up to two quotes may end the content
            return
          }
        }
        i += 1
      }
    }
    while i < b.count {
      let c = b[i]
      if expectingValue && !(isSpace(c) || c == 0x0D || c == 0x0A || c == 0x23) {
        expectingValue = false
        if c == 0x7D || c == 0x2C {
          let what = c == 0x7D ? "}" : ","
          return Problem(line: line, column: i - lineStart + 1, message: "a value cannot start with '\(what)'")
        }
      }
      if c == 0x0A {
        line += 1
        lineStart = i + 1
        onlySpaceSoFar = true
        i += 1
        continue
      }
      if isSpace(c) || c == 0x0D {
        i += 1
        continue
      }
      if c == 0x23 {  // a comment, to the end of the line
        while i < b.count && b[i] != 0x0A { i += 1 }
        continue
      }
      if c == 0x22 || c == 0x27 {
        skipString()
        onlySpaceSoFar = false
        continue
      }
      if c == 0x5B && open.isEmpty && onlySpaceSoFar {
        // A table header: [key] or [[key]], keys joined by dots.
        i += 1
        if i < b.count && b[i] == 0x5B { i += 1 }
        while true {
          while i < b.count && isSpace(b[i]) { i += 1 }
          guard i < b.count, isKeyStart(b[i]) else {
            return Problem(line: line, column: i - lineStart + 1, message: "a table header must start with a key")
          }
          if b[i] == 0x22 || b[i] == 0x27 {
            skipString()
          } else {
            while i < b.count && isKeyStart(b[i]) && b[i] != 0x22 && b[i] != 0x27 { i += 1 }
          }
          while i < b.count && isSpace(b[i]) { i += 1 }
          guard i < b.count, b[i] == 0x2E else { break }
          i += 1
        }
        onlySpaceSoFar = false
        continue
      }
      switch c {
      case 0x3D: expectingValue = open.last != 0x5B  // = (not inside an array, where it is an error anyway)
      case 0x5B:
        open.append(c)
        expectingValue = true
      case 0x7B: open.append(c)
      case 0x2C: expectingValue = open.last == 0x5B
      case 0x5D, 0x7D: if !open.isEmpty { open.removeLast() }
      default: break
      }
      onlySpaceSoFar = false
      i += 1
    }
    return nil
  }
}
