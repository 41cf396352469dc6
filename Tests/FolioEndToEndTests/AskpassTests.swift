import Foundation
import SFTPClient
import TestExecution
import Testing

/// An SFTP location's ssh asks for passwords, passphrases and host keys through SSH_ASKPASS,
/// which is the `folio` binary itself: with `FOLIO_ASKPASS=1` it relays the prompt to the Folio
/// process that started ssh (`AskpassRelay`) and prints the answer for ssh.
@Suite(.offThePool) struct AskpassTests {
  @Test func folioAnswersSSHAsItsAskpassThroughTheRelay() throws {
    let relay = try AskpassRelay { prompt in
      prompt.lines.joined(separator: " ").contains("passphrase") ? .secret("s3cret") : .refuse
    }
    defer { relay.stop() }
    let binary = try FolioRunner.binary()
    let environment = ["FOLIO_ASKPASS": "1", "FOLIO_ASKPASS_SOCKET": relay.socketPath, "PATH": "/usr/bin:/bin"]
    let answered = try FolioRunner.run(binary, ["Enter passphrase for key '/k': "], environment: environment, directory: "/")
    #expect(answered.status == 0, "\(answered)")
    #expect(answered.out == "s3cret\n")
    let refused = try FolioRunner.run(
      binary, ["Are you sure you want to continue connecting (yes/no/[fingerprint])?"], environment: environment, directory: "/")
    #expect(refused.status == 1 && refused.out.isEmpty, "\(refused)")
    // Without the mode variable the same words are a command line, never relayed.
    let plain = try FolioRunner.run(
      binary, ["Enter passphrase"], environment: ["FOLIO_ASKPASS_SOCKET": relay.socketPath, "PATH": "/usr/bin:/bin"],
      directory: "/")
    #expect(plain.status != 0 && !plain.out.contains("s3cret"), "\(plain)")
  }
}
