import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// How `folio domain add`/`login` get a password: the first line of standard input
/// (`--password-stdin`), or typed on the terminal with echo off.
enum PasswordInput {
  /// The first line of standard input, without its line break.
  static func fromStandardInput() throws(ProviderError) -> String {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while bytes.count < 64 * 1024 {
      let n = read(0, &byte, 1)
      if n < 0 && errno == EINTR { continue }
      if n <= 0 || byte == 0x0A { break }
      bytes.append(byte)
    }
    if bytes.last == 0x0D { bytes.removeLast() }
    guard !bytes.isEmpty else { throw ProviderError(.invalidArgument, "no password on standard input") }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw ProviderError(.invalidArgument, "the password on standard input is not UTF-8 text")
    }
    return text
  }

  /// Asks on the controlling terminal with echo off; the terminal is restored afterwards, also
  /// when Ctrl-C interrupts the prompt.
  ///
  /// - Throws: `invalidArgument` when there is no terminal to ask on (use `--password-stdin`).
  static func prompt(_ question: String) throws(ProviderError) -> String {
    let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else {
      throw ProviderError(.invalidArgument, "no terminal to ask for the password: give it with --password-stdin")
    }
    defer { close(fd) }
    var saved = termios()
    guard tcgetattr(fd, &saved) == 0 else {
      throw ProviderError(.invalidArgument, "no terminal to ask for the password: give it with --password-stdin")
    }
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO)
    quiet.c_lflag |= tcflag_t(ICANON)
    Restore.save(fd: fd, settings: saved)
    defer { Restore.now() }
    _ = question.withCString { write(fd, $0, strlen($0)) }
    tcsetattr(fd, TCSAFLUSH, &quiet)
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while bytes.count < 64 * 1024 {
      let n = read(fd, &byte, 1)
      if n < 0 && errno == EINTR { continue }
      if n <= 0 || byte == 0x0A { break }
      bytes.append(byte)
    }
    _ = write(fd, "\n", 1)
    if bytes.last == 0x0D { bytes.removeLast() }
    guard !bytes.isEmpty, let text = String(validating: bytes, as: UTF8.self) else {
      throw ProviderError(.invalidArgument, "no password given")
    }
    return text
  }

  /// The terminal settings to put back, also from a SIGINT/SIGTERM handler (hence globals: a C
  /// signal handler captures nothing).
  private enum Restore {
    nonisolated(unsafe) static var fd: Int32 = -1
    nonisolated(unsafe) static var settings = termios()

    static func save(fd: Int32, settings: termios) {
      Self.settings = settings
      Self.fd = fd
      for sig in [SIGINT, SIGTERM, SIGHUP] {
        signal(sig) { sig in
          if Restore.fd >= 0 { tcsetattr(Restore.fd, TCSAFLUSH, &Restore.settings) }
          _exit(128 + sig)
        }
      }
    }

    static func now() {
      if fd >= 0 { tcsetattr(fd, TCSAFLUSH, &settings) }
      fd = -1
      for sig in [SIGINT, SIGTERM, SIGHUP] { signal(sig, SIG_DFL) }
    }
  }
}
