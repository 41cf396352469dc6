import ProviderAPI
import Testing

@testable import ProviderCore

/// The planning of Rename in Editor: lines against names, without any storage. Every plan that
/// is made is also played on a simulated folder (`play`), which fails if a step ever takes a
/// name that is still held, and must end with exactly the names the lines ask for.
@Suite("BulkRenamePlan")
struct BulkRenamePlanTests {
  /// The file's bytes for these lines.
  static func file(_ lines: [String]) -> [UInt8] { Array(lines.map { $0 + "\n" }.joined().utf8) }
  static func names(_ s: [String]) -> [ItemName] { s.map { ItemName($0) } }

  /// Plans `old` → `new` (as lines) with `outside` in the folder.
  static func plan(_ old: [String], _ new: [String], outside: [String] = [], foldsCase: Bool = false) throws(BulkRenameRefusal) -> BulkRenamePlan {
    try BulkRenamePlan.make(names: names(old), text: file(new), outside: names(outside), foldsCase: foldsCase)
  }

  static func refusal(_ old: [String], text: [UInt8], outside: [String] = []) -> BulkRenameRefusal.Reason? {
    do throws(BulkRenameRefusal) {
      _ = try BulkRenamePlan.make(names: names(old), text: text, outside: names(outside))
      return nil
    } catch {
      return error.reason
    }
  }

  /// Runs the steps on a set of names as a folder would hold them: a step must find its item
  /// under `from` and its target free. Returns the folder's names after.
  static func play(
    _ plan: BulkRenamePlan, old: [String], outside: [String] = [], foldsCase: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> Set<String> {
    func key(_ s: String) -> String { foldsCase ? s.lowercased() : s }
    var folder = Dictionary(uniqueKeysWithValues: (old + outside).map { (key($0), $0) })
    var at = old  // where each batch item is now
    for step in plan.steps {
      let from = step.from.lossyString
      let to = step.to.lossyString
      #expect(at[step.item] == from, "step \(step) finds its item under \(from)", sourceLocation: sourceLocation)
      let free = folder[key(to)] == nil || (key(to) == key(from) && to != from)
      #expect(free, "step \(from) → \(to) finds \(to) free", sourceLocation: sourceLocation)
      folder[key(from)] = nil
      folder[key(to)] = to
      at[step.item] = to
    }
    return Set(folder.values)
  }

  @Test("A swap goes through one temporary name in the same folder")
  func swap() throws {
    let plan = try Self.plan(["a", "b"], ["b", "a"])
    #expect(
      plan.steps == [
        .init(item: 0, from: ItemName("a"), to: ItemName(".folio-rename-1.tmp"), group: 0, toTemporary: true),
        .init(item: 1, from: ItemName("b"), to: ItemName("a"), group: 0),
        .init(item: 0, from: ItemName(".folio-rename-1.tmp"), to: ItemName("b"), group: 0),
      ])
    #expect(plan.changed == [0, 1])
    #expect(Self.play(plan, old: ["a", "b"]) == ["a", "b"])
  }

  @Test("A 3-cycle takes one temporary and four steps")
  func threeCycle() throws {
    let plan = try Self.plan(["a", "b", "c"], ["b", "c", "a"])
    #expect(plan.steps.count == 4)
    #expect(plan.steps.filter(\.toTemporary).count == 1)
    #expect(Self.play(plan, old: ["a", "b", "c"]) == ["a", "b", "c"])
    // And every item ended where its line said.
    var at = ["a", "b", "c"]
    for s in plan.steps { at[s.item] = s.to.lossyString }
    #expect(at == ["b", "c", "a"])
  }

  @Test("A chain a→b→c into a free name runs back to front, with no temporary")
  func chain() throws {
    let plan = try Self.plan(["a", "b"], ["b", "c"])
    #expect(
      plan.steps == [
        .init(item: 1, from: ItemName("b"), to: ItemName("c"), group: 0),
        .init(item: 0, from: ItemName("a"), to: ItemName("b"), group: 0),
      ])
    #expect(Self.play(plan, old: ["a", "b"]) == ["b", "c"])
  }

  @Test("Only changed lines are renamed")
  func onlyChanged() throws {
    let plan = try Self.plan(["a", "b", "c"], ["a", "B2", "c"])
    #expect(plan.steps == [.init(item: 1, from: ItemName("b"), to: ItemName("B2"), group: 0)])
    #expect(plan.changed == [1])
  }

  @Test("Chains and cycles together, each in its own group")
  func mixed() throws {
    let old = ["1", "2", "3", "4", "5", "x"]
    let new = ["2", "1", "4", "5", "6", "x"]
    let plan = try Self.plan(old, new, outside: ["y"])
    #expect(Set(plan.steps.map(\.group)).count == 2)
    #expect(Self.play(plan, old: old, outside: ["y"]) == ["1", "2", "4", "5", "6", "x", "y"])
  }

  @Test("Every permutation of four names, with a free name in the mix, plays out", arguments: 0..<24)
  func permutations(_ n: Int) throws {
    var pool = ["a", "b", "c", "d"]
    var perm: [String] = []
    var k = n
    for i in stride(from: 4, to: 0, by: -1) {
      perm.append(pool.remove(at: k % i))
      k /= i
    }
    // The last item moves to a free name instead, making a chain of whatever cycle it was in.
    let new = Array(perm.dropLast()) + ["free"]
    for lines in [perm, new] {
      let plan = try Self.plan(["a", "b", "c", "d"], lines)
      #expect(Self.play(plan, old: ["a", "b", "c", "d"]) == Set(lines))
      var at = ["a", "b", "c", "d"]
      for s in plan.steps { at[s.item] = s.to.lossyString }
      #expect(at == lines)
    }
  }

  @Test("Nothing changed: an empty plan")
  func unchanged() throws {
    let plan = try Self.plan(["a", "b"], ["a", "b"])
    #expect(plan.isEmpty)
    #expect(plan.changed.isEmpty)
  }

  @Test("A line taking the name of an item outside the batch refuses the whole batch, naming it")
  func clashOutside() {
    let reason = Self.refusal(["a", "b"], text: Self.file(["a", "taken"]), outside: ["taken", "other"])
    #expect(reason == .clash(ItemName("taken"), line: 2))
    #expect(BulkRenameRefusal(reason!).message.contains("“taken” (line 2)"))
    #expect(BulkRenameRefusal(reason!).providerError.code == .filenameCollision)
  }

  @Test("Two lines with one name refuse, naming both lines")
  func duplicate() {
    #expect(Self.refusal(["a", "b", "c"], text: Self.file(["x", "b", "x"])) == .duplicate(ItemName("x"), lines: [1, 3]))
    // A changed line may not take an unchanged item's name either.
    #expect(Self.refusal(["a", "b"], text: Self.file(["b", "b"])) == .duplicate(ItemName("b"), lines: [1, 2]))
  }

  @Test("A line added or removed refuses")
  func countChange() {
    #expect(Self.refusal(["a", "b"], text: Self.file(["a"])) == .lineCount(expected: 2, found: 1))
    #expect(Self.refusal(["a", "b"], text: Self.file(["a", "b", "c"])) == .lineCount(expected: 2, found: 3))
    #expect(Self.refusal(["a"], text: []) == .lineCount(expected: 1, found: 0))
    // A blank line at the end is a line.
    #expect(Self.refusal(["a"], text: Array("a\n\n".utf8)) == .lineCount(expected: 1, found: 2))
  }

  @Test("The newline after the last line is optional")
  func noFinalNewline() throws {
    let plan = try BulkRenamePlan.make(names: Self.names(["a", "b"]), text: Array("a\nc".utf8), outside: [])
    #expect(plan.steps == [.init(item: 1, from: ItemName("b"), to: ItemName("c"), group: 0)])
  }

  @Test("An empty line refuses")
  func emptyLine() {
    #expect(Self.refusal(["a", "b"], text: Array("\nb\n".utf8)) == .emptyLine(line: 1))
  }

  @Test("Invalid names refuse: '/', '.', '..', over 255 bytes")
  func invalidNames() {
    for bad in ["x/y", ".", "..", String(repeating: "n", count: 256)] {
      guard case .invalidName(let line, _) = Self.refusal(["a", "b"], text: Self.file(["a", bad])) else {
        Issue.record("\(bad) was not refused")
        continue
      }
      #expect(line == 2)
    }
  }

  @Test("Control characters in the text refuse: NUL, a CRLF file's CR, a tab")
  func controlCharacters() {
    #expect(Self.refusal(["a"], text: [0x62, 0x00, 0x63, 0x0A]) == .controlCharacter(line: 1, byte: 0))
    #expect(Self.refusal(["a", "b"], text: Array("a\r\nb\r\n".utf8)) == .controlCharacter(line: 1, byte: 0x0D))
    #expect(Self.refusal(["a"], text: Array("x\ty\n".utf8)) == .controlCharacter(line: 1, byte: 0x09))
  }

  @Test("Text that is not UTF-8 refuses")
  func notText() {
    #expect(Self.refusal(["a"], text: [0x63, 0xE9, 0x0A]) == .notText(line: 1))
  }

  @Test("A case-only change is a plain rename where names keep their case")
  func caseOnlyCaseSensitive() throws {
    let plan = try Self.plan(["readme", "other"], ["README", "other"])
    #expect(plan.steps == [.init(item: 0, from: ItemName("readme"), to: ItemName("README"), group: 0)])
    // "README" next to "readme" is another name on such storage: taking it from outside clashes.
    #expect(
      Self.refusal(["readme"], text: Self.file(["README"]), outside: ["README"]) == .clash(ItemName("README"), line: 1))
  }

  @Test("Where case folds, a case-only change goes through a temporary and 'A' clashes with 'a'")
  func caseOnlyFolding() throws {
    let plan = try Self.plan(["readme"], ["README"], foldsCase: true)
    #expect(plan.steps.count == 2 && plan.steps[0].toTemporary)
    #expect(Self.play(plan, old: ["readme"], foldsCase: true) == ["README"])
    #expect(throws: BulkRenameRefusal.self) { try Self.plan(["a"], ["B"], outside: ["b"], foldsCase: true) }
  }

  @Test("The temporary name avoids every name in the folder")
  func temporaryAvoidsTaken() throws {
    let plan = try Self.plan(["a", "b"], ["b", "a"], outside: [".folio-rename-1.tmp"])
    #expect(plan.steps[0].to == ItemName(".folio-rename-2.tmp"))
  }

  @Test("A name with a newline cannot be written: refused before any editor runs")
  func newlineName() {
    #expect(throws: BulkRenameRefusal(.newlineInName(ItemName("two\nlines")))) {
      try BulkRenameText.text(for: Self.names(["fine", "two\nlines"]))
    }
  }

  @Test(
    "Names shown escaped are written escaped and round-trip exactly; others are written as they are",
    arguments: [
      [0x63, 0x61, 0x66, 0xE9],  // Latin-1 "café": not UTF-8
      [0x61, 0x01, 0x62],  // a control character
      Array("zero\u{200B}width".utf8),  // invisible
      [0x62, 0x5C, 0x78, 0x34, 0x31, 0xFF],  // a backslash in an escaped name
      Array(#"back\slash $(rm -rf) 'q' "d" -x"#.utf8),  // plain, hostile, kept byte for byte
    ] as [[UInt8]])
  func escapedRoundTrip(_ bytes: [UInt8]) throws {
    let name = ItemName(bytes: bytes)
    let text = try BulkRenameText.text(for: [name])
    #expect(!text.dropLast().contains { $0 < 0x20 }, "the file is printable text")
    let plan = try BulkRenamePlan.make(names: [name], text: text, outside: [])
    #expect(plan.isEmpty, "unchanged text is no change: \(String(decoding: text, as: UTF8.self))")
  }

  @Test("An escaped name is repaired by editing its escapes")
  func repairEscaped() throws {
    let name = ItemName(bytes: [0x63, 0x61, 0x66, 0xE9])
    #expect(try BulkRenameText.text(for: [name]) == Array("caf\\xE9\n".utf8))
    let plan = try BulkRenamePlan.make(names: [name], text: Array("café\n".utf8), outside: [])
    #expect(plan.steps == [.init(item: 0, from: name, to: ItemName("café"), group: 0)])
    // A line of a plain name keeps its backslashes.
    let plain = try BulkRenamePlan.make(names: [ItemName("x")], text: Array("x\\x41\n".utf8), outside: [])
    #expect(plain.steps.first?.to == ItemName("x\\x41"))
  }
}
