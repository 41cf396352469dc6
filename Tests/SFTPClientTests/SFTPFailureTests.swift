import Foundation
import SFTPClient
import SSHTestSupport
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The failures a user meets, against a real sshd: each one a code and a one-line cause.
@Suite(.offThePool)
struct SFTPFailureTests {
  @Test func anUnknownHostKeyReachesTheHandlerAndARefusalIsClean() async throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let empty = server.folder + "/empty_known_hosts"
    FileManager.default.createFile(atPath: empty, contents: nil)
    let configuration = try server.configuration(knownHosts: empty, hostKeyChecking: "ask", name: "ask")

    let refusing = PromptRecorder(answer: .refuse)
    let error = await #expect(throws: SFTPError.self) {
      try await SFTPClient.connect(configuration, prompts: refusing.handler)
    }
    #expect(error?.code == .hostKeyRefused)
    #expect(error?.message.contains("\n") == false)
    let prompt = try #require(refusing.prompts.first)
    #expect(prompt.kind == .hostKey)
    #expect(prompt.fingerprint == server.hostKeyFingerprint)
    #expect(prompt.lines.contains { $0.contains("authenticity of host") })
    #expect(try String(contentsOfFile: empty, encoding: .utf8).isEmpty)

    let accepting = PromptRecorder(answer: .accept)
    let client = try await SFTPClient.connect(configuration, prompts: accepting.handler)
    defer { client.close() }
    #expect(accepting.prompts.map(\.kind) == [.hostKey])
    #expect(try await client.stat(Array(server.files.utf8)).fileType == .directory)
  }

  @Test func noHandlerMeansNoSilentYes() async throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let empty = server.folder + "/empty_known_hosts"
    FileManager.default.createFile(atPath: empty, contents: nil)
    var configuration = try server.configuration(knownHosts: empty, hostKeyChecking: "ask", name: "nohandler")
    configuration.askpassProgram = nil
    let error = await #expect(throws: SFTPError.self) { try await SFTPClient.connect(configuration) }
    #expect(error?.code == .hostKeyRefused)
  }

  @Test func aKeyTheServerDoesNotKnowIsSignInRefused() async throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let configuration = try server.configuration(identity: server.strangerKey, name: "stranger")
    let error = await #expect(throws: SFTPError.self) {
      try await SFTPClient.connect(configuration, prompts: PromptRecorder(answer: .refuse).handler)
    }
    #expect(error?.code == .authenticationRefused)
    #expect(error?.message.contains("Permission denied") == true)
  }

  /// A changed host key is its own error (not a refused sign-in: no password helps), with ssh's
  /// line and what to do, and nobody is asked to accept it.
  @Test func aChangedHostKeyIsRefusedAsSuchAndNeverAsked() async throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let configuration = try server.configuration(name: "changed")
    let first = try await SFTPClient.connect(configuration, prompts: PromptRecorder(answer: .refuse).handler)
    first.close()
    try server.changeHostKey()
    let asked = PromptRecorder(answer: .accept)
    let error = await #expect(throws: SFTPError.self) { try await SFTPClient.connect(configuration, prompts: asked.handler) }
    #expect(error?.code == .hostKeyChanged, "\(String(describing: error))")
    #expect(error?.message.contains("ssh-keygen -R") == true && error?.message.contains("\n") == false)
    #expect(asked.prompts.filter { $0.kind == .hostKey }.isEmpty, "never offered to accept it")
  }

  @Test func aLoginShellThatPrintsIsNamedWithItsBytes() async throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let configuration = try server.configuration(identity: server.bannerKey, name: "banner")
    let error = await #expect(throws: SFTPError.self) { try await SFTPClient.connect(configuration) }
    #expect(error?.code == .streamCorrupted)
    #expect(error?.message.contains("Today is a fine day\\x0A") == true)
    #expect(error?.message.contains("login shell") == true)
  }

  @Test func aDroppedLinkFailsEveryPendingRequest() async throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let size = 64 * 1024 * 1024
    let big = server.files + "/big"
    let fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    ftruncate(fd, off_t(size))
    close(fd)
    let client = try await SFTPClient.connect(try server.configuration())
    defer { client.close() }

    // The first progress report holds the transfer (≤ 4 MiB stay in flight) until the link is cut.
    let gate = ProgressGate()
    let transfer = Task {
      try await client.download(Array(big.utf8), to: server.folder + "/partial", progress: gate.progress)
    }
    // Waits suspend, never block: the download's task needs one of the suite's few threads (a
    // blocking wait starved it under a CPU burner). The bounds are only bounds.
    #expect(await gate.waitUntilReached(seconds: 120))
    server.killSessions()
    let deadline = Date(timeIntervalSinceNow: 120)
    while client.endedWith == nil && Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
    gate.open()
    let error = await #expect(throws: SFTPError.self) { try await transfer.value }
    #expect(error?.code == .connectionLost)
    #expect(gate.reached < UInt64(size))
    let after = await #expect(throws: SFTPError.self) { try await client.stat(Array(server.files.utf8)) }
    #expect(after?.code == .connectionLost)
  }

  @Test func aClosedPortIsUnreachableAndAnUnknownNameIsNotFound() async throws {
    let server = try PrivateSSHServer()
    server.stop()  // its port is closed now
    var closed = SSHConfiguration(host: "127.0.0.1", port: server.port)
    closed.options = ["BatchMode=yes", "UserKnownHostsFile=/dev/null", "StrictHostKeyChecking=yes"]
    closed.configFile = "/dev/null"
    let refused = await #expect(throws: SFTPError.self) { try await SFTPClient.connect(closed) }
    #expect(refused?.code == .hostUnreachable)
    #expect(refused?.message.contains("Connection refused") == true)

    var unknown = SSHConfiguration(host: "no-such-host.invalid")
    unknown.configFile = "/dev/null"
    unknown.options = ["BatchMode=yes"]
    let notFound = await #expect(throws: SFTPError.self) { try await SFTPClient.connect(unknown) }
    #expect(notFound?.code == .hostNotFound)
  }

  @Test func sshThatCannotStartIsACleanError() async throws {
    var configuration = SSHConfiguration(host: "example")
    configuration.sshProgram = "/nonexistent/ssh"
    let error = await #expect(throws: SFTPError.self) { try await SFTPClient.connect(configuration) }
    #expect(error?.code == .sshFailed)
  }
}

/// Holds the first progress report until `open()`: a transfer caught in the middle, deterministically.
final class ProgressGate: @unchecked Sendable {
  private let condition = NSCondition()
  private var isOpen = false
  private(set) var reached: UInt64 = 0

  var progress: SFTPProgress {
    { done, _ in
      self.condition.lock()
      self.reached = max(self.reached, done)
      self.condition.broadcast()
      while !self.isOpen { self.condition.wait() }
      self.condition.unlock()
    }
  }

  /// Whether the first report arrived within the bound, polled with suspensions (a blocking wait
  /// would hold a thread the transfer's own task may need).
  func waitUntilReached(seconds: Double) async -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while Date() < deadline {
      if reachedNow > 0 { return true }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return reachedNow > 0
  }

  private var reachedNow: UInt64 {
    condition.lock()
    defer { condition.unlock() }
    return reached
  }

  func open() {
    condition.lock()
    isOpen = true
    condition.broadcast()
    condition.unlock()
  }
}
