import FolioConfig
import Foundation
import ProviderAPI
import Testing

@testable import ProviderCore

/// OpenerResolver with an injected environment and set of installed programs: no test depends on
/// what this machine has in PATH.
@Suite struct OpenerResolverTests {
  static func file(_ name: String, in folder: String = "/home/ana/docs") -> Item {
    let n = ItemName(name)
    return Item(
      identifier: ItemIdentifier("id-" + name), parentIdentifier: .root, filename: n,
      path: ItemPath(folder).appending(n), contentType: ContentType.forExtension(n.pathExtension))
  }

  static let folder = Item(
    identifier: ItemIdentifier("dir"), parentIdentifier: .root, filename: ItemName("docs"),
    path: ItemPath("/home/ana/docs"), contentType: .folder)

  static func resolver(
    _ rules: [OpenerRule] = [], environment: [String: String] = [:], installed: Set<String> = []
  ) -> OpenerResolver {
    OpenerResolver(rules: rules, environment: environment, isAvailable: { installed.contains($0) })
  }

  static func strings(_ argv: [[UInt8]]) -> [String] { argv.map { String(decoding: $0, as: UTF8.self) } }

  static let rules = [
    OpenerRule(match: .extensions(["md", "markdown"]), argv: ["glow", "-p", "{path}"]),
    OpenerRule(match: .contentType(.image), argv: ["feh", "--", "{path}"]),
    OpenerRule(match: .contentType(.text), argv: ["bat", "{path}"]),
  ]

  @Test func aConfiguredOpenerWinsByExtensionThenByType() throws {
    let r = Self.resolver(
      Self.rules, environment: ["VISUAL": "vim", "EDITOR": "nano", "PAGER": "less"],
      installed: ["vim", "nano", "less", "xdg-open"])
    // Extension first (a Markdown file is also text, but the first matching rule wins).
    #expect(Self.strings(try r.argv(for: Self.file("README.md"))) == ["glow", "-p", "/home/ana/docs/README.md"])
    #expect(Self.strings(try r.argv(for: Self.file("NOTES.MARKDOWN"))) == ["glow", "-p", "/home/ana/docs/NOTES.MARKDOWN"])
    // By content type, conformance included (public.png conforms to public.image).
    #expect(Self.strings(try r.argv(for: Self.file("beach.png"))) == ["feh", "--", "/home/ana/docs/beach.png"])
    #expect(Self.strings(try r.argv(for: Self.file("main.swift"))) == ["bat", "/home/ana/docs/main.swift"])
    // No rule for a PDF: the fallbacks apply.
    #expect(Self.strings(try r.argv(for: Self.file("paper.pdf"))) == ["xdg-open", "/home/ana/docs/paper.pdf"])
  }

  @Test func rulesApplyInConfigOrder() throws {
    let textFirst = [
      OpenerRule(match: .contentType(.text), argv: ["bat", "{path}"]),
      OpenerRule(match: .extensions(["md"]), argv: ["glow", "{path}"]),
    ]
    #expect(Self.strings(try Self.resolver(textFirst).argv(for: Self.file("a.md"))) == ["bat", "/home/ana/docs/a.md"])
  }

  @Test func textGoesToVisualThenEditorWithTheAbsolutePathAsItsOnlyOperand() throws {
    let item = Self.file("-rf notes.txt", in: "/tmp/$(x)")
    let visual = Self.resolver(
      environment: ["VISUAL": "code --wait", "EDITOR": "vi"], installed: ["code", "vi", "xdg-open"])
    #expect(Self.strings(try visual.argv(for: item)) == ["code", "--wait", "/tmp/$(x)/-rf notes.txt"])

    // VISUAL names a program that is not installed: EDITOR is next.
    let editor = Self.resolver(environment: ["VISUAL": "code --wait", "EDITOR": "vi"], installed: ["vi", "xdg-open"])
    #expect(Self.strings(try editor.argv(for: item)) == ["vi", "/tmp/$(x)/-rf notes.txt"])

    // Blank variables count as unset.
    let blank = Self.resolver(environment: ["VISUAL": "  ", "EDITOR": "vi"], installed: ["vi"])
    #expect(Self.strings(try blank.argv(for: item)) == ["vi", "/tmp/$(x)/-rf notes.txt"])

    // A file of unknown type may well be text: the editor too.
    #expect(Self.strings(try editor.argv(for: Self.file("Makefile"))) == ["vi", "/home/ana/docs/Makefile"])
  }

  @Test func thePathIsOneArgumentWhateverItsBytes() throws {
    let name = ItemName(bytes: [0x2D, 0x0A, 0xFF] + Array(" $(reboot).txt".utf8))
    let item = Item(
      identifier: ItemIdentifier("x"), parentIdentifier: .root, filename: name, path: ItemPath("/d").appending(name),
      contentType: .plainText)
    let r = Self.resolver(environment: ["EDITOR": "vi"], installed: ["vi"])
    #expect(try r.argv(for: item) == [Array("vi".utf8), ItemPath("/d").appending(name).bytes])
  }

  @Test func textWithoutAnEditorGoesToThePager() throws {
    let r = Self.resolver(environment: ["PAGER": "less -R"], installed: ["less", "xdg-open"])
    #expect(Self.strings(try r.argv(for: Self.file("log.txt"))) == ["less", "-R", "/home/ana/docs/log.txt"])
  }

  @Test func otherFilesAndFoldersGoToXdgOpen() throws {
    let r = Self.resolver(
      environment: ["EDITOR": "vi", "PAGER": "less"], installed: ["vi", "less", "xdg-open"])
    #expect(Self.strings(try r.argv(for: Self.file("beach.png"))) == ["xdg-open", "/home/ana/docs/beach.png"])
    #expect(Self.strings(try r.argv(for: Self.folder)) == ["xdg-open", "/home/ana/docs"])
    // Without xdg-open, a non-text file still opens in the pager, then less or more.
    let pager = Self.resolver(environment: ["PAGER": "most"], installed: ["most"])
    #expect(Self.strings(try pager.argv(for: Self.file("beach.png"))) == ["most", "/home/ana/docs/beach.png"])
    let more = Self.resolver(installed: ["more"])
    #expect(Self.strings(try more.argv(for: Self.file("beach.png"))) == ["more", "/home/ana/docs/beach.png"])
  }

  @Test func whenNothingIsAvailableTheErrorSaysWhatToConfigure() throws {
    let nothing = Self.resolver(environment: ["EDITOR": "vi", "PAGER": "less"], installed: [])
    let error = #expect(throws: ProviderError.self) { try nothing.argv(for: Self.file("report.txt")) }
    #expect(error?.code == .featureUnsupported)
    for hint in ["report.txt", "$EDITOR", "$PAGER", "xdg-utils", "[[opener]]", "config.toml"] {
      #expect(error?.message.contains(hint) == true, "missing \(hint) in: \(error?.message ?? "")")
    }
    let folderError = #expect(throws: ProviderError.self) { try nothing.argv(for: Self.folder) }
    #expect(folderError?.code == .featureUnsupported)
    #expect(folderError?.message.contains("xdg-utils") == true)
    #expect(folderError?.message.contains("[[opener]]") == true)

    // A hostile name is escaped in the message.
    let hostile = Self.file("\u{1B}]0;pwn\u{07}.txt")
    let hostileError = #expect(throws: ProviderError.self) { try nothing.argv(for: hostile) }
    #expect(hostileError?.message.unicodeScalars.contains("\u{1B}") == false)
  }
}
