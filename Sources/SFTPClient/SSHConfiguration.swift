/// How to reach a host with the user's own `ssh`: the command line and environment it gets.
public struct SSHConfiguration: Sendable {
  /// Anything `ssh` accepts: an alias of ~/.ssh/config, `host`, `user@host`.
  public var host: String
  public var port: Int?
  /// Passed as `-F FILE` (a domain's `--ssh-config`; the tests' private configuration).
  public var configFile: String?
  /// The ssh program; a plain name is looked up in PATH.
  public var sshProgram: String = "ssh"
  /// The askpass helper ssh runs for every prompt. Nil: prompts are refused (`/bin/false`), so an
  /// unattended connection fails cleanly instead of waiting on a terminal it must not touch.
  public var askpassProgram: String?
  /// Extra `-o` options, appended before the host (e.g. a cipher for a benchmark).
  public var options: [String] = []
  /// ServerAlive: a dead link is noticed within interval × count seconds (~45 s).
  public var serverAliveInterval = 15
  public var serverAliveCountMax = 3

  public init(host: String, port: Int? = nil, configFile: String? = nil) {
    self.host = host
    self.port = port
    self.configFile = configFile
  }

  /// What OpenSSH's `sftp` passes (`sftp.c`: no X11, no local command, no forwardings, no new
  /// control master, no agent forwarding), plus ServerAlive, then `-s -- HOST sftp`: the `--` keeps
  /// a host that starts with `-` from becoming an option.
  public var arguments: [String] {
    var arguments = [sshProgram]
    if let configFile { arguments += ["-F", configFile] }
    if let port { arguments += ["-p", String(port)] }
    arguments += [
      "-oForwardX11=no", "-oPermitLocalCommand=no", "-oClearAllForwardings=yes", "-oControlMaster=no",
      "-oForwardAgent=no", "-oServerAliveInterval=\(serverAliveInterval)",
      "-oServerAliveCountMax=\(serverAliveCountMax)",
    ]
    arguments += options.map { "-o" + $0 }
    arguments += ["-s", "--", host, "sftp"]
    return arguments
  }

  /// The prompt plumbing: every prompt to askpass (force), askpass finds the relay by its socket.
  func environment(relaySocket: String?) -> [String: String] {
    var environment = ["SSH_ASKPASS_REQUIRE": "force", "SSH_ASKPASS": askpassProgram ?? "/bin/false"]
    if let relaySocket {
      environment[AskpassWire.socketVariable] = relaySocket
      // The `folio` binary is its own askpass: it answers as one only when this says so.
      environment[AskpassWire.modeVariable] = "1"
    }
    return environment
  }
}
