import Foundation
import SFTPClient
import SSHTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// An SSH host in the browser (issue 10): what ssh asks while it connects — a key's passphrase,
/// an unknown host key — comes to Folio's own box, and the connection goes on with the answer.
/// Against a private sshd on loopback.
extension TerminalEndToEndTests {
  @Suite("SSH questions in the browser")
  struct SSHQuestions {
    /// A sandbox whose config.toml has `box`, the server's files folder over ssh.
    static func sandbox(_ server: PrivateSSHServer, sshConfig: String) throws -> Sandbox {
      let s = try Sandbox()
      let dir = s.configHome + "/folio"
      try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
      try """
      [[domain]]
      name = "box"
      type = "sftp"
      host = "sftp-test"
      path = "\(server.files)"
      ssh_config = "\(sshConfig)"

      """.write(toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
      try "hello\n".write(toFile: server.files + "/readme.txt", atomically: true, encoding: .utf8)
      return s
    }

    @Test("A wrong passphrase through the box, then the right one: the folder lists with no other key")
    func passphraseAskedAgainAfterAWrongOne() throws {
      let server = try PrivateSSHServer()
      defer { server.stop() }
      let config = try #require(try server.configuration(identity: server.passphraseKey, name: "folio").configFile)
      let s = try Self.sandbox(server, sshConfig: config)
      let term = try TmuxTerminal(s, arguments: ["box:/"])
      defer { term.kill() }

      // ssh's own words, in Folio's box.
      var screen = try term.wait(forAll: ["Sign in to box", "Enter passphrase for key"], timeout: 60)
      #expect(!screen.contains("ssh refused the previous answer"), "\(screen.framed)")
      try term.type("not the passphrase")
      try term.send("Enter")
      // ssh asks again in the same words (OpenSSH's load_identity_file): the box says what happened.
      screen = try term.wait(forAll: ["Sign in to box", "Enter passphrase for key", "ssh refused the previous answer"], timeout: 60)
      #expect(!screen.contains("not the passphrase"), "the secret is never drawn:\n\(screen.framed)")

      try term.type(PrivateSSHServer.keyPassphrase)
      try term.send("Enter")
      screen = try term.wait(until: "the folder listed, the box gone", timeout: 60) {
        $0.listShows("readme.txt") && !$0.contains("Sign in to box")
      }
      #expect(!screen.contains(PrivateSSHServer.keyPassphrase), "the secret is never drawn:\n\(screen.framed)")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("Esc: the location needs sign-in and the poller does not ask again; Ctrl-R does")
    func cancelledQuestionIsNotAskedAgainByBackgroundWork() throws {
      let server = try PrivateSSHServer()
      defer { server.stop() }
      let config = try #require(try server.configuration(identity: server.passphraseKey, name: "folio").configFile)
      let s = try Self.sandbox(server, sshConfig: config)
      let term = try TmuxTerminal(s, arguments: ["box:/"])
      defer { term.kill() }

      try term.wait(forAll: ["Sign in to box", "Enter passphrase for key"], timeout: 60)
      try term.send("Escape")
      try term.wait(forAll: ["Not signed in to box", "needs sign-in"], timeout: 60)
      // The folder's poller (every 20 s) and the status checks connect again meanwhile: each is
      // refused without a box. Two poll periods, watched all along.
      let quiet = Date().addingTimeInterval(45)
      while Date() < quiet {
        let now = try term.capture()
        #expect(!now.contains("Enter passphrase"), "a background connection asked again:\n\(now.framed)")
        if now.contains("Enter passphrase") { break }
        usleep(200_000)
      }
      try term.send("C-r")
      try term.wait(forAll: ["Sign in to box", "Enter passphrase for key"], timeout: 60)
      try term.type(PrivateSSHServer.keyPassphrase)
      try term.send("Enter")
      try term.wait(until: "the folder listed", timeout: 60) { $0.listShows("readme.txt") && !$0.contains("Sign in to box") }
    }

    @Test("An unknown host key shows its fingerprint and needs a typed yes; a changed one is refused with ssh's reason")
    func unknownHostKeyAskedChangedOneRefused() throws {
      let server = try PrivateSSHServer()
      defer { server.stop() }
      let knownHosts = server.folder + "/folio_known_hosts"
      try "".write(toFile: knownHosts, atomically: true, encoding: .utf8)
      let config = try #require(
        try server.configuration(knownHosts: knownHosts, hostKeyChecking: "ask", name: "folio").configFile)
      let s = try Self.sandbox(server, sshConfig: config)
      let term = try TmuxTerminal(s, arguments: ["box:/"])
      defer { term.kill() }

      var screen = try term.wait(forAll: ["Unknown host key: box", server.hostKeyFingerprint], timeout: 60)
      #expect(screen.contains("authenticity of host"), "ssh's words:\n\(screen.framed)")
      // Enter alone and "y" are not a yes: a hurried key must not trust a stranger.
      try term.send("Enter")
      try term.wait(for: "Type yes to trust this key")
      try term.type("y")
      try term.send("Enter")
      screen = try term.wait(for: "Type yes to trust this key")
      #expect(screen.contains(server.hostKeyFingerprint) && !screen.listShows("readme.txt"))
      try term.type("yes")
      try term.send("Enter")
      try term.wait(until: "the folder listed", timeout: 60) { $0.listShows("readme.txt") && !$0.contains("Unknown host key") }
      // As ssh does: the key is remembered in known_hosts.
      let hostKey = try String(contentsOfFile: server.folder + "/host_key.pub", encoding: .utf8).split(separator: " ")[1]
      #expect(try String(contentsOfFile: knownHosts, encoding: .utf8).contains(String(hostKey)))

      // The server's key changes: ssh refuses, and so does Folio — no box offers to accept it.
      try server.changeHostKey()
      var refused: Screen?
      let deadline = Date().addingTimeInterval(90)
      while refused == nil && Date() < deadline {
        try term.send("C-r")
        let until = Date().addingTimeInterval(3)
        while Date() < until {
          let now = try term.capture()
          #expect(!now.contains("Unknown host key") && !now.contains("Type yes"), "no box for a changed key:\n\(now.framed)")
          if now.contains("host key has changed") {
            refused = now
            break
          }
          usleep(100_000)
        }
      }
      let last = try term.capture()
      #expect(refused != nil, "ssh's reason in the status line:\n\(last.framed)")
      #expect(try String(contentsOfFile: knownHosts, encoding: .utf8).contains(String(hostKey)), "known_hosts untouched")
    }
  }
}
