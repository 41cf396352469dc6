import Foundation
import ProviderAPI
import Testing

/// Items the rules are evaluated against, built once so every case reads the same facts.
enum RuleFixtures {
  static func item(
    _ id: String, _ name: String, in folder: String = "/", type: ContentType, parent: ItemIdentifier = .root,
    capabilities: ItemCapabilities = .all, size: Int64? = nil, childItemCount: Int? = nil,
    modified: Date? = nil, tags: [String] = [], favoriteRank: UInt64? = nil, isDownloaded: Bool = true,
    isShared: Bool = false, userInfo: [String: UserInfoValue] = [:]
  ) -> Item {
    Item(
      identifier: ItemIdentifier(id), parentIdentifier: parent, filename: ItemName(name),
      path: ItemPath(folder).appending(ItemName(name)), contentType: type, capabilities: capabilities,
      documentSize: size, childItemCount: childItemCount, contentModificationDate: modified, tags: tags,
      favoriteRank: favoriteRank, isDownloaded: isDownloaded, isShared: isShared, userInfo: userInfo)
  }

  /// A pinned, in-use PNG with two tags.
  static let photo = item(
    "p1", "Beach.png", in: "/Pictures", type: ContentType("public.png"), size: 2_500_000,
    modified: Date(timeIntervalSince1970: 1_700_000_000), tags: ["Red", "Holiday"],
    userInfo: [
      "pinned": .bool(true), "pinned.inherited": .bool(true), "inUse": .string("Ana"), "rating": .number(4),
      "delta": .number(-1), "reviewed": .date(Date(timeIntervalSince1970: 1_000)),
    ])

  /// A dataless Markdown file with a diacritic in its name and few capabilities.
  static let notes = item(
    "n1", "Café notes.md", in: "/Docs", type: ContentType("net.daringfireball.markdown"),
    capabilities: [.reading, .renaming], size: 1_200, isDownloaded: false)

  /// A shared, downloaded favorite folder.
  static let folder = item(
    "f1", "Projects", type: .folder, childItemCount: 12, favoriteRank: 3, isShared: true,
    userInfo: ["pinned": .bool(false)])

  static let trashed = item("t1", "old.txt", type: .plainText, parent: .trash, size: 0)

  static let quoted = item("q1", "It's \"done\".txt", type: .plainText, size: 3)

  static let all: [String: Item] = [
    "photo": photo, "notes": notes, "folder": folder, "trashed": trashed, "quoted": quoted,
  ]

  /// Parses and evaluates, failing the test (not crashing) on a parse error.
  static func evaluate(
    _ rule: String, _ selection: [Item], domain: [String: UserInfoValue] = [:],
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> Bool? {
    do {
      return try ActivationRule(parsing: rule).matches(
        ActivationContext(selection: selection, domainUserInfo: domain))
    } catch {
      Issue.record("'\(rule)' did not parse: \(error)", sourceLocation: sourceLocation)
      return nil
    }
  }
}

@Suite("ActivationRule: one item")
struct ActivationRuleItemTests {
  /// Every key and operator against the photo alone.
  @Test(arguments: [
    // Names, paths, kinds.
    ("filename == 'Beach.png'", true),
    ("name = \"Beach.png\"", true),
    ("filename == 'beach.png'", false),
    ("filename ==[c] 'beach.PNG'", true),
    ("filename <> 'x'", true),
    ("extension == 'png'", true),
    ("path BEGINSWITH '/Pictures/'", true),
    ("path ENDSWITH '/Beach.png'", true),
    ("filename CONTAINS 'ach'", true),
    ("'ach' IN filename", true),
    ("kind == 'file'", true),
    ("kind IN {'file', 'symlink'}", true),
    ("extension IN[c] {'PNG', 'JPG'}", true),
    ("extension IN {'PNG', 'JPG'}", false),
    ("itemIdentifier == 'p1' AND parentItemIdentifier == '#root'", true),
    // Types.
    ("contentType == 'public.png'", true),
    ("contentType UTI-CONFORMS-TO \"public.image\"", true),
    ("contentType.identifier UTI-CONFORMS-TO 'public.data'", true),
    ("contentType CONFORMS TO 'public.content'", true),
    ("contentType conformsto 'public.text'", false),
    ("contentType UTI-CONFORMS-TO {'public.movie', 'public.image'}", true),
    ("contentType UTI-CONFORMS-TO {'public.movie', 'public.audio'}", false),
    // Numbers, booleans, dates.
    ("size > 1000000", true),
    ("size >= 2500000 AND size <= 2.5e6", true),
    ("documentSize < 2500000", false),
    ("size => 2500000 AND size =< 2500000", true),
    ("isFolder == NO", true),
    ("isFolder == 0", true),
    ("isDownloaded == yes AND isUploaded == true", true),
    ("isShared == FALSE AND isTrashed == NO", true),
    ("modified > 1600000000", true),
    ("contentModificationDate == 1700000000", true),
    ("lastUsed == NULL", true),
    ("lastUsed > 0", false),
    ("NOT lastUsed > 0", true),
    ("favoriteRank == nil AND isFavorite == NO", true),
    // Lists.
    ("'Red' IN tags", true),
    ("tags CONTAINS 'Holiday'", true),
    ("tags CONTAINS 'red'", false),
    ("tags CONTAINS[c] 'red'", true),
    ("tags.@count == 2", true),
    ("ANY tags BEGINSWITH 'Hol'", true),
    ("SOME tags == 'Blue'", false),
    ("ALL tags LIKE '*e*'", false),
    ("ALL tags LIKE[c] '*'", true),
    ("NONE tags == 'Blue'", true),
    ("'renaming' IN capabilities AND capabilities.@count == 8", true),
    // Patterns.
    ("filename LIKE '*.png'", true),
    ("filename LIKE 'B?ach.*'", true),
    ("filename LIKE 'b*'", false),
    ("filename LIKE[c] 'b*'", true),
    ("filename LIKE '*a*a*'", false),
    ("filename MATCHES '[A-Z][a-z]+\\\\.png'", true),
    ("filename MATCHES '[A-Z][a-z]+\\.png'", true),
    ("filename MATCHES 'Beach'", false),
    ("filename MATCHES[c] 'beach\\.PNG'", true),
    ("filename MATCHES 'Beach|Beach\\.png'", true),
    // userInfo.
    ("userInfo.pinned == YES", true),
    ("userInfo.pinned == 1", true),
    ("userInfo.pinned.inherited == TRUE", true),
    ("resolvedUserInfo.pinned == YES", true),
    ("userInfo.inUse != NULL", true),
    ("userInfo.inUse == 'Ana'", true),
    ("userInfo.missing == NULL", true),
    ("userInfo.missing != NULL", false),
    ("userInfo.missing > 0", false),
    ("userInfo.rating >= 4", true),
    ("userInfo.rating == '4'", false),
    ("userInfo.delta > -1.5 AND userInfo.delta < +0", true),
    ("userInfo.reviewed == 1000", true),
    // Mismatched types are unequal, never a crash.
    ("filename == 5", false),
    ("filename != 5", true),
    ("size CONTAINS 'x'", false),
    ("isFolder > 'a'", false),
    // Logic.
    ("filename BEGINSWITH 'Beach' && size > 10", true),
    ("isFolder == YES || extension == 'png'", true),
    ("!(isFolder == YES)", true),
    ("NOT (filename ENDSWITH '.md' OR size < 10)", true),
    ("isFolder == YES OR size > 1 AND size < 2", false),
    ("(isFolder == YES OR size > 1) AND size < 2", false),
    ("isFolder == NO OR size > 1 AND size < 2", true),
    ("NOT NOT isFolder == NO", true),
    ("TRUEPREDICATE", true),
    ("FALSEPREDICATE", false),
    ("truepredicate and not falsepredicate", true),
    ("filename endswith '.png' and not isFolder == yes", true),
  ])
  func photo(rule: String, expected: Bool) {
    #expect(RuleFixtures.evaluate(rule, [RuleFixtures.photo]) == expected)
  }

  /// Diacritics, dataless files, restricted capabilities and text conformance, on the notes.
  @Test(arguments: [
    ("filename BEGINSWITH 'Cafe'", false),
    ("filename BEGINSWITH[d] 'Cafe'", true),
    ("filename BEGINSWITH[c] 'CAFÉ'", true),
    ("filename BEGINSWITH[cd] 'CAFE'", true),
    ("filename ==[cd] 'cafe NOTES.md'", true),
    ("filename MATCHES[d] 'Cafe.*'", true),
    ("filename ENDSWITH '.md' AND size > 10", true),
    ("contentType UTI-CONFORMS-TO 'public.text'", true),
    ("contentType UTI-CONFORMS-TO 'public.image'", false),
    ("isDownloaded == NO", true),
    ("'renaming' IN capabilities", true),
    ("'deleting' IN capabilities", false),
    ("capabilities.@count == 2", true),
    ("tags.@count == 0", true),
    ("ANY tags == 'x'", false),
    ("ALL tags == 'x'", true),
    ("NONE tags == 'x'", true),
    ("path == '/Docs/Café notes.md'", true),
  ])
  func notes(rule: String, expected: Bool) {
    #expect(RuleFixtures.evaluate(rule, [RuleFixtures.notes]) == expected)
  }

  @Test(arguments: [
    ("kind == 'folder' AND isFolder == YES", true),
    ("isFavorite == YES AND favoriteRank == 3", true),
    ("isShared == YES", true),
    ("childItemCount > 10", true),
    ("size == NULL", true),
    ("contentType UTI-CONFORMS-TO 'public.folder'", true),
    ("contentType UTI-CONFORMS-TO 'public.data'", false),
  ])
  func folder(rule: String, expected: Bool) {
    #expect(RuleFixtures.evaluate(rule, [RuleFixtures.folder]) == expected)
  }

  @Test func escapesInStrings() {
    #expect(RuleFixtures.evaluate(#"filename == 'It\'s "done".txt'"#, [RuleFixtures.quoted]) == true)
    #expect(RuleFixtures.evaluate(#"filename == "It's \"done\".txt""#, [RuleFixtures.quoted]) == true)
    #expect(RuleFixtures.evaluate(#"filename BEGINSWITH 'It\'s'"#, [RuleFixtures.quoted]) == true)
  }

  @Test func trashedItem() {
    #expect(RuleFixtures.evaluate("isTrashed == YES AND size == 0", [RuleFixtures.trashed]) == true)
  }
}

@Suite("ActivationRule: selections")
struct ActivationRuleSelectionTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var rule: String
    var selection: [String]
    var expected: Bool
    var testDescription: String { "\(rule) over [\(selection.joined(separator: ", "))] → \(expected)" }
  }

  static let pin =
    "SUBQUERY ( fileproviderItems, $fileproviderItem, $fileproviderItem.userInfo.pinned == YES ).@count > 0"
  static let unpinned =
    "SUBQUERY(fileproviderItems, $fileproviderItem, $fileproviderItem.userInfo.pinned == NO OR $fileproviderItem.userInfo.pinned == NULL).@count > 0"

  @Test(arguments: [
    // FruitBasket's Pin / Unpin toggle.
    Case(rule: pin, selection: ["photo"], expected: true),
    Case(rule: pin, selection: ["notes"], expected: false),
    Case(rule: pin, selection: ["notes", "photo"], expected: true),
    Case(rule: pin, selection: [], expected: false),
    Case(rule: unpinned, selection: ["notes"], expected: true),
    Case(rule: unpinned, selection: ["folder"], expected: true),
    Case(rule: unpinned, selection: ["photo"], expected: false),
    // "Mark no longer in use", single-item actions, "Remove Download for Entire Folder".
    Case(
      rule: "SUBQUERY(fileproviderItems, $i, $i.userInfo.inUse != NULL).@count > 0", selection: ["photo"],
      expected: true),
    Case(
      rule: "SUBQUERY(fileproviderItems, $i, $i.userInfo.inUse != NULL).@count > 0", selection: ["folder"],
      expected: false),
    Case(
      rule: "SUBQUERY(fileproviderItems, $item, $item.isFolder == YES).@count == 1",
      selection: ["folder", "photo"], expected: true),
    Case(
      rule:
        "fileproviderItems.@count == 1 AND SUBQUERY(fileproviderItems, $i, $i.isFolder == YES AND $i.isDownloaded == YES).@count == 1",
      selection: ["folder"], expected: true),
    Case(
      rule:
        "SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO \"public.folder\").@count == 1",
      selection: ["folder"], expected: true),
    // Every selected item is an image (0 == 0 on an empty selection, as written).
    Case(
      rule:
        "SUBQUERY(fileproviderItems, $x, $x.contentType UTI-CONFORMS-TO 'public.image').@count == fileproviderItems.@count",
      selection: ["photo"], expected: true),
    Case(
      rule:
        "SUBQUERY(fileproviderItems, $x, $x.contentType UTI-CONFORMS-TO 'public.image').@count == fileproviderItems.@count",
      selection: ["photo", "notes"], expected: false),
    Case(
      rule:
        "SUBQUERY(fileproviderItems, $x, $x.contentType UTI-CONFORMS-TO 'public.image').@count == fileproviderItems.@count",
      selection: [], expected: true),
    Case(
      rule: "SUBQUERY(selection, $x, $x.tags.@count > 1).@count == 1", selection: ["photo", "notes"],
      expected: true),
    Case(
      rule: "SUBQUERY(fileproviderItems, $x, ANY $x.tags == 'Red').@count == 1",
      selection: ["photo", "notes"], expected: true),
    Case(
      rule: "subquery(fileproviderItems, $x, $x.filename like[c] '*.MD').@count == 1",
      selection: ["photo", "notes"], expected: true),
    // Nested SUBQUERY reading the outer variable: "the photo is the largest selected item".
    Case(
      rule:
        "SUBQUERY(fileproviderItems, $a, SUBQUERY(fileproviderItems, $b, $b.size > $a.size).@count == 0 AND $a.filename == 'Beach.png').@count == 1",
      selection: ["photo", "notes"], expected: true),
    Case(
      rule:
        "SUBQUERY(fileproviderItems, $a, SUBQUERY(fileproviderItems, $b, $b.size > $a.size).@count == 0 AND $a.filename == 'Café notes.md').@count == 1",
      selection: ["photo", "notes"], expected: false),
    // Counts.
    Case(rule: "fileproviderItems.@count == 0", selection: [], expected: true),
    Case(rule: "selection.@count >= 2", selection: ["photo", "notes"], expected: true),
    Case(rule: "count == 1", selection: ["photo", "notes"], expected: false),
    Case(rule: "TRUEPREDICATE", selection: [], expected: true),
    // Item-scoped rules: every item, and never an empty selection.
    Case(rule: "count == 1 AND isFolder == YES", selection: ["folder"], expected: true),
    Case(rule: "count == 1 AND isFolder == YES", selection: ["folder", "photo"], expected: false),
    Case(rule: "count == 1 AND isFolder == YES", selection: ["photo"], expected: false),
    Case(rule: "count == 1 AND isFolder == YES", selection: [], expected: false),
    Case(rule: "filename ENDSWITH '.md' AND size > 10", selection: ["notes"], expected: true),
    Case(rule: "filename ENDSWITH '.md' AND size > 10", selection: ["notes", "photo"], expected: false),
    Case(rule: "filename ENDSWITH '.md' AND size > 10", selection: [], expected: false),
    Case(rule: "NOT isFolder == YES", selection: ["photo", "notes"], expected: true),
    Case(rule: "NOT isFolder == YES", selection: ["photo", "folder"], expected: false),
    Case(rule: "isDownloaded == YES", selection: ["photo", "folder"], expected: true),
    Case(rule: "isDownloaded == YES", selection: ["photo", "notes"], expected: false),
    Case(rule: "size > 0 OR isFolder == YES", selection: ["photo", "folder"], expected: true),
    Case(
      rule:
        "count == 2 AND SUBQUERY(fileproviderItems, $x, $x.isFolder == YES).@count == 1 AND userInfo.pinned != NULL",
      selection: ["photo", "folder"], expected: true),
    Case(rule: "isTrashed == YES", selection: ["trashed"], expected: true),
  ])
  func selection(_ c: Case) {
    let items = c.selection.map { RuleFixtures.all[$0]! }
    #expect(RuleFixtures.evaluate(c.rule, items) == c.expected)
  }

  /// An item-scoped rule with a SUBQUERY over a large selection: the SUBQUERY is counted once, not
  /// once per item (which would be 25 million evaluations here).
  @Test func largeSelection() {
    let items = (0..<5_000).map { i in
      RuleFixtures.item("i\(i)", "file\(i).txt", type: .plainText, size: Int64(i))
    }
    let rule = "SUBQUERY(fileproviderItems, $x, $x.size > 4990).@count == 9 AND size >= 0 AND count == 5000"
    #expect(RuleFixtures.evaluate(rule, items) == true)
  }

  /// A long flat chain is one node, so neither parsing nor evaluation recurses per link.
  @Test func longChain() {
    let rule = Array(repeating: "size > 1", count: 5_000).joined(separator: " AND ")
    #expect(RuleFixtures.evaluate(rule, [RuleFixtures.photo]) == true)
    #expect(RuleFixtures.evaluate(rule + " AND size < 1", [RuleFixtures.photo]) == false)
  }

  /// The rules docs/config.example.toml shows, with the meaning its comments give them.
  @Test func configExampleRules() {
    let (photo, notes, folder) = (RuleFixtures.photo, RuleFixtures.notes, RuleFixtures.folder)
    let docx = RuleFixtures.item(
      "d1", "cv.docx", type: ContentType("org.openxmlformats.wordprocessingml.document"))
    let tarball = RuleFixtures.item(
      "a1", "src.TAR.GZ", type: ContentType("org.gnu.gnu-zip-archive"), size: 2_000_000)
    #expect(RuleFixtures.evaluate("TRUEPREDICATE", [notes]) == true)
    #expect(RuleFixtures.evaluate("count == 1 AND isFolder == YES", [folder]) == true)
    #expect(RuleFixtures.evaluate(#"contentType UTI-CONFORMS-TO "public.image""#, [photo]) == true)
    #expect(RuleFixtures.evaluate(#"contentType UTI-CONFORMS-TO "public.image""#, [photo, notes]) == false)
    #expect(
      RuleFixtures.evaluate(
        "SUBQUERY(fileproviderItems, $i, $i.size > 1000000).@count > 0", [notes, tarball]) == true)
    #expect(RuleFixtures.evaluate(#"filename ENDSWITH[c] ".tar.gz""#, [tarball]) == true)
    let office =
      #"contentType UTI-CONFORMS-TO {"org.openxmlformats.wordprocessingml.document", "org.oasis-open.opendocument.text"}"#
    #expect(RuleFixtures.evaluate(office, [docx]) == true)
    #expect(RuleFixtures.evaluate(office, [docx, notes]) == false)
    #expect(
      RuleFixtures.evaluate(#"count == 1 AND contentType UTI-CONFORMS-TO "public.archive""#, [tarball])
        == true)
    #expect(RuleFixtures.evaluate("NOT isFolder == YES", [photo, notes]) == true)
    #expect(RuleFixtures.evaluate("NOT isFolder == YES", [photo, folder]) == false)
  }

  @Test func domainUserInfo() {
    let rule = "domainUserInfo.plan == 'pro' AND count > 0"
    #expect(RuleFixtures.evaluate(rule, [RuleFixtures.photo], domain: ["plan": .string("pro")]) == true)
    #expect(RuleFixtures.evaluate(rule, [RuleFixtures.photo], domain: ["plan": .string("free")]) == false)
    #expect(RuleFixtures.evaluate(rule, [RuleFixtures.photo]) == false)
    #expect(RuleFixtures.evaluate("domainUserInfo.account.kind == NULL", []) == true)
    #expect(
      RuleFixtures.evaluate(
        "domainUserInfo.account.kind == 'team'", [], domain: ["account.kind": .string("team")])
        == true)
  }

  /// A pattern read at evaluation time is compiled then; a bad one never matches, never traps.
  @Test func matchesWithPatternFromDomain() {
    let rule = "filename MATCHES domainUserInfo.pattern"
    #expect(RuleFixtures.evaluate(rule, [RuleFixtures.photo], domain: ["pattern": .string("B.*")]) == true)
    #expect(
      RuleFixtures.evaluate(rule, [RuleFixtures.photo], domain: ["pattern": .string("[unclosed")]) == false)
    #expect(RuleFixtures.evaluate(rule, [RuleFixtures.photo], domain: ["pattern": .number(3)]) == false)
    #expect(RuleFixtures.evaluate(rule, [RuleFixtures.photo]) == false)
  }
}

@Suite("ActivationRule: value semantics")
struct ActivationRuleValueTests {
  @Test func descriptionIsTheSource() throws {
    let source = "SUBQUERY(fileproviderItems, $x, $x.isFolder == YES).@count > 0"
    let rule = try ActivationRule(parsing: source)
    #expect(rule.description == source)
    #expect(rule.source == source)
  }

  @Test func equalityAndHashFollowTheSource() throws {
    let a = try ActivationRule(parsing: "size > 1")
    let b = try ActivationRule(parsing: "size > 1")
    let c = try ActivationRule(parsing: "size  > 1")
    #expect(a == b)
    #expect(a != c)
    #expect(Set([a, b, c]).count == 2)
  }

  @Test func declaresAnAction() throws {
    let action = ActionDeclaration(
      identifier: ActionIdentifier("com.example.pin"), name: "Pin",
      activationRule: try ActivationRule(parsing: ActivationRuleSelectionTests.pin))
    #expect(action.activationRule.matches(ActivationContext(selection: [RuleFixtures.photo])))
    #expect(!action.activationRule.matches(ActivationContext(selection: [])))
  }
}
