import Foundation

/// Turns ssh's exit status and stderr into one error with a clear cause (remote-providers.md §1.5).
///
/// ssh exits 255 for its own failures and says why on stderr; the wording is stable across
/// OpenSSH releases (`ssh.c`, `sshconnect.c`), so matching a few phrases is reliable enough, and
/// the line itself is kept in the message so nothing is lost when no phrase matches.
enum SSHFailure {
  /// - Parameter established: The SFTP session had started: whatever ssh says now ("Connection
  ///   closed by …", "Broken pipe"), the server was reached and the link was lost — not "cannot
  ///   reach the server", which would send the person looking at the wrong thing.
  static func classify(stderr: String, exitStatus: Int32?, host: String, established: Bool = false) -> SFTPError {
    let lines = stderr.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
    // The most telling line: the first one that matches a known cause, else the last one.
    func line(containing phrase: String) -> String? { lines.first { $0.localizedCaseInsensitiveContains(phrase) } }
    if established {
      let status = exitStatus.map(describe) ?? "ended"
      let cause = line(containing: "Timeout, server") ?? line(containing: "closed by") ?? line(containing: "reset by") ?? lines.last
      return SFTPError(.connectionLost, "\(host): the connection was lost: ssh \(status)" + (cause.map { " (\($0))" } ?? ""))
    }

    if let text = line(containing: "Could not resolve hostname") {
      return SFTPError(.hostNotFound, "\(host): host not found (\(text))")
    }
    if let text = line(containing: "REMOTE HOST IDENTIFICATION HAS CHANGED")
      ?? line(containing: "Host key for") ?? line(containing: "Host key verification failed")
    {
      if stderr.contains("HAS CHANGED") {
        return SFTPError(
          .hostKeyChanged,
          "\(host): the host key has changed, so this may not be the server you know; ssh refuses to connect (\(text)). "
            + "If the change is expected, remove the old key (ssh-keygen -R with the host's name) and try again")
      }
      return SFTPError(.hostKeyRefused, "\(host): the host key was not accepted (\(text))")
    }
    if let text = line(containing: "Permission denied (") ?? line(containing: "Too many authentication failures") {
      return SFTPError(.authenticationRefused, "\(host): sign-in refused (\(text))")
    }
    for phrase in ["Connection refused", "No route to host", "Network is unreachable", "Connection timed out",
      "Operation timed out", "Connection closed by", "Connection reset by", "kex_exchange_identification"]
    {
      if let text = line(containing: phrase), !stderr.contains("Timeout, server") {
        return SFTPError(.hostUnreachable, "\(host): cannot reach the server (\(text))")
      }
    }
    if let text = line(containing: "Timeout, server") {
      return SFTPError(.connectionLost, "\(host): the connection was lost (\(text))")
    }
    if let text = line(containing: "subsystem request failed") {
      return SFTPError(.operationUnsupported, "\(host): the server offers no SFTP (\(text))")
    }
    let status = exitStatus.map(describe) ?? "ended"
    if let last = lines.last {
      return SFTPError(.connectionLost, "\(host): the connection was lost: ssh \(status) (\(last))")
    }
    return SFTPError(.connectionLost, "\(host): the connection was lost: ssh \(status)")
  }

  /// "exited with status 255", "was killed by signal 9".
  static func describe(_ status: Int32) -> String {
    if status == -1 { return "ended" }
    let signal = status & 0x7F
    if signal == 0 { return "exited with status \((status >> 8) & 0xFF)" }
    return "was killed by signal \(signal)"
  }
}
