import Foundation
import SFTPClient
import SSHTestSupport
import TestExecution
import Testing

/// The parts that need no server: display escaping, the askpass wire, prompt parsing, arguments.
@Suite(.offThePool)
struct SFTPPieceTests {
  @Test func displayTextEscapesWhatCouldDriveATerminal() {
    #expect(DisplayText.escape(Array("plain é".utf8)) == "plain é")
    #expect(DisplayText.escape([0x1B, 0x5B, 0x32, 0x4A]) == "\\e[2J")
    #expect(DisplayText.escape([0x61, 0xFF, 0x0A]) == "a\\xFF\\x0A")
    #expect(DisplayText.escape(Array("\u{202E}x\\".utf8)) == "\\u{202E}x\\\\")
    #expect(DisplayText.oneLine("ssh: a\r\nb\n") == "ssh: a b")
  }

  @Test func theArgumentsMirrorOpenSSHsSftpAndEndWithTheHost() {
    var configuration = SSHConfiguration(host: "-oProxyCommand=evil", port: 2222, configFile: "/c")
    configuration.options = ["Ciphers=aes128-gcm@openssh.com"]
    let arguments = configuration.arguments
    #expect(arguments.prefix(5) == ["ssh", "-F", "/c", "-p", "2222"])
    #expect(arguments.suffix(4) == ["-s", "--", "-oProxyCommand=evil", "sftp"])
    for option in ["-oForwardX11=no", "-oPermitLocalCommand=no", "-oClearAllForwardings=yes", "-oForwardAgent=no",
      "-oControlMaster=no", "-oServerAliveInterval=15", "-oServerAliveCountMax=3",
      "-oCiphers=aes128-gcm@openssh.com"]
    {
      #expect(arguments.contains(option), "\(option)")
    }
  }

  /// The Swift helper (`folio askpass` later) and the relay agree on the wire, both ways.
  @Test func theAskpassHelperRelaysPromptsAndAnswers() async throws {
    let recorder = PromptRecorder(answer: .secret("hunter2"))
    let relay = try AskpassRelay(handler: recorder.handler)
    defer { relay.stop() }
    let environment = [AskpassWire.socketVariable: relay.socketPath]
    let answer = await Task.detached {
      AskpassHelper.answer(prompt: Array("Enter passphrase for key '/k\u{1B}':".utf8), environment: environment)
    }.value
    #expect(answer == Array("hunter2".utf8))
    #expect(recorder.prompts.first?.kind == .secret)
    #expect(recorder.prompts.first?.lines == ["Enter passphrase for key '/k\\e':"])

    let refusing = PromptRecorder(answer: .refuse)
    let other = try AskpassRelay(handler: refusing.handler)
    defer { other.stop() }
    let confirm = [AskpassWire.socketVariable: other.socketPath, "SSH_ASKPASS_PROMPT": "confirm"]
    let refused = await Task.detached { AskpassHelper.answer(prompt: Array("Allow use of key?".utf8), environment: confirm) }
      .value
    #expect(refused == nil)
    #expect(refusing.prompts.first?.kind == .confirmation)
    let nowhere = await Task.detached { AskpassHelper.answer(prompt: [], environment: [:]) }.value
    #expect(nowhere == nil)
  }
}
