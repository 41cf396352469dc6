import PreviewKit
import Testing

/// Random bytes drawn from what trips lexers and parsers up (quotes, comment markers, escapes,
/// brackets, newlines, invalid UTF-8, C1 bytes) through every previewer: nothing crashes, nothing
/// unsafe comes out, nothing grows past its bounds. Seeded, so a failure replays.
@Suite struct PreviewRobustnessTests {
  /// SplitMix64: small, seedable, the same on every machine.
  struct Seeded: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  static let alphabet: [[UInt8]] =
    [
      "\"", "'", "`", "\"\"\"", "'''", "/*", "*/", "//", "#", "--", "<!--", "-->", "<", ">", "</", "{", "}", "[", "]",
      "(", ")", ":", ";", ",", "=", "\\", "$", "${", "$(", "@", "&", "!", "|", "<<EOF", "EOF", "```", "# ", "- ", "@@ -1,2 +1 @@",
      "+", "-", "0x1F", "1.5e-3", "'a", "r#\"", "=begin", "=end", "key: ", "[sec]", "\t", " ", "\n", "\r\n", "\r",
      "let", "func", "def", "class", "if", "true", "null", "abc", "Ünï", "漢", "\u{202E}", "\u{1B}[31m", "\u{1B}]52;c;",
      "\u{07}", "\u{1B}\\", "\u{1B}P", "\u{1B}", "\u{0}",
    ].map { Array($0.utf8) } + [[0x9B], [0x9D], [0xC2, 0x9B], [0xFF], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0x80], [0xF0, 0x9F]]

  static func input(_ rng: inout Seeded, pieces: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    for _ in 0..<pieces { bytes += alphabet[Int(rng.next() % UInt64(alphabet.count))] }
    return bytes
  }

  static let names = Language.allCases.map { "sample.\(extensionFor($0))" } + ["plain.txt", "x.json", "blob"]

  static func extensionFor(_ language: Language) -> String {
    switch language {
    case .swift: "swift"
    case .c: "c"
    case .python: "py"
    case .shell: "sh"
    case .javascript: "ts"
    case .go: "go"
    case .rust: "rs"
    case .java: "kt"
    case .ruby: "rb"
    case .json: "json"
    case .yaml: "yaml"
    case .toml: "toml"
    case .markdown: "md"
    case .diff: "diff"
    case .html: "html"
    case .css: "css"
    case .sql: "sql"
    case .makefile: "mk"
    case .dockerfile: "dockerfile"
    }
  }

  @Test(arguments: [UInt64(1), 2])
  func randomInputIsSafeInEveryLanguage(_ seed: UInt64) {
    var rng = Seeded(state: seed)
    for round in 0..<24 {
      let bytes = Self.input(&rng, pieces: 1 + Int(rng.next() % 300))
      for name in Self.names {
        let totalSize = round % 2 == 0 ? bytes.count : bytes.count + 100
        let preview = TextPreview.make(name: name, bytes: bytes, totalSize: totalSize, limits: .init(maxColumns: 200))
        guard case .lines(let lines) = preview.body else { continue }
        #expect(Render.unsafeScalars(lines).isEmpty, "seed \(seed) round \(round) \(name)")
        #expect(lines.allSatisfy { $0.plainText.unicodeScalars.count <= 200 + 8 }, "seed \(seed) round \(round) \(name)")
      }
      let helper = HelperOutput.lines(bytes)
      #expect(Render.unsafeScalars(helper).isEmpty, "seed \(seed) round \(round) helper")
    }
  }

  /// The highlighter's spans stay inside their line, in order, never overlapping.
  @Test(arguments: Language.allCases)
  func spansStayInsideTheirLine(_ language: Language) {
    var rng = Seeded(state: 7)
    var highlighter = Highlighter(language: language)
    for _ in 0..<300 {
      let line = Self.input(&rng, pieces: Int(rng.next() % 40)).filter { $0 != 0x0A }
      var previousEnd = 0
      for span in highlighter.spans(of: line) {
        #expect(span.start >= previousEnd && span.start < span.end && span.end <= line.count, "\(language)")
        previousEnd = span.end
      }
    }
  }
}
