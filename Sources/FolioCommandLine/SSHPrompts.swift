import BrowserApp
import BrowserUI
import FolioConfig
import Foundation
import ProviderAPI
import SFTPClient

#if canImport(Glibc)
  import Glibc
#endif

/// Who answers an SFTP location's ssh when it asks (a password, a key's passphrase, an unknown
/// host key). ssh never touches the terminal itself: it runs in its own session and asks through
/// `folio` as its askpass (`AskpassRelay`), and these handlers answer.
enum SSHPrompts {
  /// The `folio` binary's own path: what ssh runs as SSH_ASKPASS (it answers only with
  /// FOLIO_ASKPASS=1 in its environment, which the SFTP client sets).
  static var askpassProgram: String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard n > 0 else { return nil }
    return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The command line: on the terminal. A secret is typed with echo off; a host key is shown with
  /// its fingerprint and accepted only by a typed "yes" — never by Folio on the person's behalf.
  static let terminal: SSHPromptHandler = { prompt in
    switch prompt.kind {
    case .secret:
      guard let secret = try? PasswordInput.prompt(prompt.lines.joined(separator: " ") + " ") else { return .refuse }
      return .secret(secret)
    case .hostKey, .confirmation:
      let question = prompt.lines.joined(separator: "\n") + (prompt.kind == .hostKey ? " " : " (yes/no) ")
      return askYes(question) ? .accept : .refuse
    case .notice:
      tell(prompt.lines.joined(separator: "\n") + "\n")
      return .accept
    }
  }

  /// The browser (which owns the terminal): a password saved with `folio domain login` answers a
  /// connection's first secret question; everything else — a second one (ssh did not take the
  /// saved one), a passphrase, an unknown host key — goes to the person in the question box, and
  /// the connection waits for the answer. Folio never answers a host key itself.
  static func browser(_ domain: DomainIdentifier, broker: SignInBroker, paths: FolioPaths) -> SSHPromptHandler {
    let store = CredentialsStore(paths: paths)
    return { prompt in
      if prompt.kind == .secret, prompt.attempt == 1, let saved = try? store.secret(for: domain) { return .secret(saved) }
      let kind: SignInQuestion.Kind =
        switch prompt.kind {
        case .secret: .secret
        case .hostKey: .hostKey
        case .confirmation: .confirmation
        case .notice: .notice
        }
      let answer = await broker.ask(
        domain: domain, kind: kind, lines: prompt.lines, fingerprint: prompt.fingerprint, askedAgain: prompt.attempt > 1)
      switch answer {
      case .secret(let secret): return .secret(secret)
      case .accept: return .accept
      case .refuse: return .refuse
      }
    }
  }

  /// A command (`folio ls box:/`): a password saved with `folio domain login` answers a
  /// connection's first secret question, so scripts and cron jobs work without a terminal; a
  /// second one (ssh did not take it), a host key and anything else are asked on the terminal.
  static func commandLine(_ domain: DomainIdentifier, paths: FolioPaths) -> SSHPromptHandler {
    let store = CredentialsStore(paths: paths)
    return { prompt in
      if prompt.kind == .secret, prompt.attempt == 1, let saved = try? store.secret(for: domain) { return .secret(saved) }
      return await terminal(prompt)
    }
  }

  /// No person to ask: a password saved with `folio domain login`, if any; everything else is
  /// refused and the error says what to run on the command line.
  static func stored(_ domain: DomainIdentifier, paths: FolioPaths) -> SSHPromptHandler {
    let store = CredentialsStore(paths: paths)
    return { prompt in
      guard prompt.kind == .secret, let secret = try? store.secret(for: domain) else { return .refuse }
      return .secret(secret)
    }
  }

  private static func tell(_ text: String) {
    let fd = open("/dev/tty", O_WRONLY | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { return }
    defer { close(fd) }
    _ = text.withCString { write(fd, $0, strlen($0)) }
  }

  /// Asks on the terminal; true only for "yes".
  private static func askYes(_ question: String) -> Bool {
    let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    _ = question.withCString { write(fd, $0, strlen($0)) }
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while line.count < 256, read(fd, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
    return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased() == "yes"
  }
}
