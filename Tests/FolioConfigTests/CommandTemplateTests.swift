import FolioConfig
import ProviderAPI
import Testing

@Suite struct CommandTemplateTests {
  @Test func placeholdersExpandToWholeArguments() {
    let argv = ["tool", "--in", "{path}", "{name}", "{folder}", "--", "{paths}", "{}"]
    #expect(CommandTemplate.validate(argv) == nil)
    let expanded = CommandTemplate.expand(
      argv, focused: ItemPath("/home/ana/a b.txt"), selection: [ItemPath("/home/ana/a b.txt"), ItemPath("/x/-rf")])
    #expect(
      expanded.map { String(decoding: $0, as: UTF8.self) } == [
        "tool", "--in", "/home/ana/a b.txt", "a b.txt", "/home/ana", "--", "/home/ana/a b.txt", "/x/-rf", "{}",
      ])
  }

  @Test func namesStayBytes() {
    let invalid = ItemPath(bytes: Array("/tmp/caf".utf8) + [0xE9])
    #expect(
      CommandTemplate.expand(["cat", "{path}"], focused: invalid, selection: []) == [Array("cat".utf8), invalid.bytes])
    #expect(CommandTemplate.expand(["ls", "{paths}"], focused: invalid, selection: []) == [Array("ls".utf8)])
  }

  @Test(arguments: [
    (["--out={path}"], "--out={path}"),
    (["cp", "{paths}/", "dest"], "{paths}/"),
    (["sh", "-c", "cat {path}"], "cat {path}"),
    (["x", "{file}"], "{file}"),
    ([], ""),
    ([""], ""),
  ])
  func badCommandsAreRefused(argv: [String], offending: String) throws {
    let problem = try #require(CommandTemplate.validate(argv))
    #expect(problem.argument == offending)
    #expect(!problem.message.contains("\n"))
  }

  @Test func derivedActionIdentifiers() {
    #expect(
      CustomActionConfig.derivedIdentifier(fromName: "Compress to .tar.gz")?.rawValue == "user.compress-to-tar-gz")
    #expect(CustomActionConfig.derivedIdentifier(fromName: "  Open -- here! ")?.rawValue == "user.open-here")
    #expect(CustomActionConfig.derivedIdentifier(fromName: "Ünïcode 2")?.rawValue == "user.ünïcode-2")
    #expect(CustomActionConfig.derivedIdentifier(fromName: "→ ✓") == nil)
  }
}
