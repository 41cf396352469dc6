import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// The shell integration's keys: `!` (a command on the selection), `S` (a shell here), `Y` (copy
/// the paths), and picker mode (`--chooser-file`). The reducer only asks; BrowserApp runs.
@Suite struct ShellReduceTests {
  var prompt: (AppState) -> PromptState? = { s in if case .prompt(let p) = s.overlay { return p } else { return nil } }

  // MARK: ! — a shell command

  @Test func bangOpensAPromptThatRunsTheCommandWithTheMarkedPathsAsArguments() throws {
    var s = Fixture.state()
    s.select("shell")
    s.press(.character(" "))
    s.select("plain")
    s.press(.character(" "))
    #expect(s.press(.character("!")).isEmpty)
    let p = try #require(prompt(s))
    #expect(p.title == "Shell command (\"$@\": 2 items)")
    s.type("printf '%s\\n' \"$@\" > out")
    let effects = s.press(.enter)
    let shell = Fixture.corpus.first { $0.identifier.rawValue == "shell" }!
    let plain = Fixture.corpus.first { $0.identifier.rawValue == "plain" }!
    #expect(effects == [.runShellCommand("printf '%s\\n' \"$@\" > out", arguments: [plain.path, shell.path], in: Fixture.home)])
    #expect(s.overlay == nil)
    #expect(s.browse.marked.count == 2, "the marks stay for the next command")
  }

  @Test func bangWithoutMarksGivesTheItemUnderTheCursor() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character("!"))
    s.type("wc -c")
    #expect(s.press(.enter) == [.runShellCommand("wc -c", arguments: [Fixture.home.appending(ItemName("plain.txt"))], in: Fixture.home)])
  }

  @Test func anEmptyCommandRunsNothingAndEscCloses() {
    var s = Fixture.state()
    s.press(.character("!"))
    s.type("   ")
    #expect(s.press(.enter).isEmpty)
    #expect(s.overlay == nil)
    s.press(.character("!"))
    s.type("ls")
    #expect(s.press(.escape).isEmpty)
    #expect(s.overlay == nil)
  }

  @Test func theLastCommandIsProposedAndTypingReplacesIt() throws {
    var s = Fixture.state()
    s.press(.character("!"))
    s.type("make")
    s.press(.enter)
    s.press(.character("!"))
    let p = try #require(prompt(s))
    #expect(p.editor.string == "make" && p.editor.isProposal)
    #expect(s.press(.enter) == [.runShellCommand("make", arguments: s.selection.map(\.path), in: Fixture.home)])
    s.press(.character("!"))
    s.type("ls")
    #expect(prompt(s)?.editor.string == "ls")
  }

  @Test func theShellKeysSayWhyNotInRecentsRecentlyDeletedAndOnARemoteLocation() {
    var recents = Fixture.state()
    recents.press(.character("2"))
    #expect(recents.press(.character("!")).isEmpty)
    #expect(recents.message == StatusMessage("A shell command runs in a folder: switch to Browse first", isError: true))

    var trash = Fixture.trashState()
    #expect(trash.press(.character("S")).isEmpty)
    #expect(trash.message == StatusMessage("A shell runs in a folder, not in Recently Deleted", isError: true))

    var remote = RemoteFixture.state()
    #expect(remote.press(.character("!")).isEmpty)
    #expect(remote.overlay == nil)
    #expect(
      remote.message
        == StatusMessage("A shell command works on this computer's folders only: Demo is a remote location", isError: true))
    #expect(remote.press(.character("S")).isEmpty)
    #expect(remote.message?.text.hasPrefix("A shell works on this computer's folders only") == true)
  }

  // MARK: S — a shell here

  @Test func capitalSOpensAShellInTheFolderBeingBrowsed() {
    var s = Fixture.state()
    #expect(s.press(.character("S")) == [.openShell(in: Fixture.home)])
  }

  @Test func theKeysCanBeBoundInConfigAndAreInTheHelp() {
    let (map, problems) = KeyMap.standard.overridden(by: ["shell-command": ["f5"], "shell": ["ctrl-o"], "copy-paths": ["c"]])
    #expect(problems.isEmpty)
    #expect(map.command(for: .function(5)) == .shellCommand)
    #expect(map.command(for: .control("o")) == .shell)
    #expect(map.command(for: .character("c")) == .copyPaths)
    #expect(map.command(for: .character("!")) == nil)
    #expect(KeyMap.standard.keys(for: .shellCommand) == ["!"])
    #expect(KeyMap.standard.keys(for: .shell) == ["S"])
    #expect(KeyMap.standard.keys(for: .copyPaths) == ["Y"])
  }

  // MARK: Y — copy paths

  @Test func capitalYCopiesTheMarkedPathsAsTextToBothClipboards() {
    var s = Fixture.state()
    s.select("shell")
    s.press(.character(" "))
    s.select("plain")
    s.press(.character(" "))
    let effects = s.press(.character("Y"))
    let text = Array("/home/ana/plain.txt\n/home/ana/-rf $(touch x) `id` a'b\"c %s%n;|&<>.sh".utf8)
    #expect(effects == [.copyToSystemClipboard(text)])
    #expect(s.clipboard == Clipboard(items: [], domain: .local, text: text))
    #expect(s.message == StatusMessage("Copied 2 paths"))
    #expect(s.browse.marked.count == 2)
  }

  @Test func oneItemsPathIsShownEscapedAndItsBytesKept() {
    var s = Fixture.state()
    s.select("invalid")
    let effects = s.press(.character("Y"))
    let bytes = Array("/home/ana/caf".utf8) + [0xE9, 0x20, 0xFE, 0x20, 0x9B] + Array("[31m.txt".utf8)
    #expect(effects == [.copyToSystemClipboard(bytes)])
    #expect(s.message?.text.contains("\u{9B}") == false, "the status line shows it escaped: \(s.message?.text ?? "")")
    #expect(s.message?.text.hasPrefix("Copied the path /home/ana/caf") == true)
  }

  @Test func aRemoteItemsPathIsItsAddress() {
    var s = RemoteFixture.state()
    s.press(.home)
    while s.currentItem?.filename.displayString != "Notes.txt" { s.press(.down) }
    #expect(s.press(.character("Y")) == [.copyToSystemClipboard(Array("demo:/Notes.txt".utf8))])
  }

  @Test func pasteAfterCopyPathsSaysTheClipboardHoldsText() {
    var s = Fixture.state()
    s.press(.character("Y"))
    #expect(s.press(.character("p")).isEmpty)
    #expect(s.message?.text.hasPrefix("The clipboard holds paths (text)") == true)
  }

  // MARK: Picker mode

  @Test func inAPickerEnterOnAFileChoosesItAndQuits() {
    var s = Fixture.state()
    s.isPicker = true
    s.select("plain")
    #expect(s.press(.enter) == [.quit])
    #expect(s.chosen == [Fixture.home.appending(ItemName("plain.txt"))])
    #expect(s.isQuitting)
  }

  @Test func inAPickerEnterOnAFolderStillOpensIt() {
    var s = Fixture.state()
    s.isPicker = true
    s.select("f-docs")
    let effects = s.press(.enter)
    #expect(effects.contains { if case .enumerate = $0 { return true } else { return false } })
    #expect(s.chosen == nil)
  }

  @Test func inAPickerEnterWithMarksChoosesEveryMarkedItem() {
    var s = Fixture.state()
    s.isPicker = true
    s.select("f-docs")
    s.press(.character(" "))
    s.select("plain")
    s.press(.character(" "))
    s.select("f-proj")
    #expect(s.press(.enter) == [.quit])
    #expect(s.chosen == [Fixture.home.appending(ItemName("Documents")), Fixture.home.appending(ItemName("plain.txt"))])
  }

  @Test func inAPickerQChoosesNothing() {
    var s = Fixture.state()
    s.isPicker = true
    #expect(s.press(.character("q")) == [.quit])
    #expect(s.chosen == nil)
  }

  @Test func aPickerRefusesRemoteFiles() {
    var s = RemoteFixture.state()
    s.isPicker = true
    s.press(.home)
    while s.currentItem?.filename.displayString != "Notes.txt" { s.press(.down) }
    #expect(s.press(.enter).isEmpty)
    #expect(s.chosen == nil)
    #expect(s.message?.isError == true)
  }

  @Test func inAPickerARecentsEntryIsChosenWhereItIsNow() {
    var s = Fixture.state()
    s.isPicker = true
    _ = s.reduce(.recentsChanged(Fixture.recents))
    s.press(.character("2"))
    let row = Fixture.recents[0]
    // Enter resolves the entry first (it may have moved); the picker chooses it once found.
    #expect(s.press(.enter) == [.openEntry(row)])
    let moved = row.item.with { $0.path = ItemPath("/home/ana/Archive/plain.txt") }
    #expect(s.reduce(.entryFound(row, moved)) == [.quit])
    #expect(s.chosen == [ItemPath("/home/ana/Archive/plain.txt")])
  }

  @Test func outsideAPickerEnterOpensTheFile() {
    var s = Fixture.state()
    s.select("plain")
    #expect(s.press(.enter) == [.open(Fixture.corpus.first { $0.identifier.rawValue == "plain" }!, .local)])
    #expect(s.chosen == nil)
  }

  // MARK: --cwd-file

  @Test func theLocalFolderIsTheFolderBeingBrowsedOnThisComputerOnly() {
    #expect(Fixture.state().localFolder == Fixture.start)
    #expect(Fixture.trashState().localFolder == nil)
    #expect(RemoteFixture.state().localFolder == nil)
  }
}
