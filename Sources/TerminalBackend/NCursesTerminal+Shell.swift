import BrowserUI
import CNCursesW
import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What the shell integration needs of the terminal beyond drawing: the system clipboard (OSC 52)
/// and a pause after a shell command, before Folio's screen comes back over its output.
extension NCursesTerminal {
  /// Writes `ESC ] 52 ; c ; BASE64 BEL` between frames. The bytes are base64: nothing of a file
  /// name reaches the terminal as it is. tmux takes it into a buffer with `set-clipboard on` (and
  /// passes it on to the outer terminal); a terminal without OSC 52 ignores it.
  public func copyToSystemClipboard(_ bytes: [UInt8]) {
    let sequence = Self.clipboardSequence(bytes)
    _ = sequence.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, folio_stdout()) }
    fflush(folio_stdout())
  }

  /// The OSC 52 sequence that sets the clipboard ("c") to `bytes`.
  nonisolated static func clipboardSequence(_ bytes: [UInt8]) -> [UInt8] {
    Array("\u{1B}]52;c;".utf8) + Array(Data(bytes).base64EncodedString().utf8) + [0x07]
  }

  /// Writes `prompt` on the normal screen and waits for one key in raw mode (Ctrl-C is a key
  /// too: it only returns to Folio), then drops what else the key sent (the rest of an arrow's
  /// sequence) so it does not reach Folio as keys. The wait is on a dispatch thread: the main
  /// actor keeps running the loop's tasks meanwhile.
  public func waitForKeyWhileSuspended(prompt: String) async {
    guard suspended else { return }
    let bytes = Array(prompt.utf8)
    _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, folio_stdout()) }
    fflush(folio_stdout())
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      DispatchQueue.global().async {
        Self.readOneKey()
        // Off the prompt's line: what comes after on the normal screen (the shell's prompt once
        // Folio quits) starts on a line of its own.
        _ = "\r\n".withCString { fputs($0, folio_stdout()) }
        fflush(folio_stdout())
        done.resume()
      }
    }
  }

  /// One byte from standard input with echo, line editing and signal keys off; the modes put back.
  nonisolated static func readOneKey() {
    var saved = termios()
    guard isatty(0) == 1, tcgetattr(0, &saved) == 0 else { return }
    var raw = saved
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
    withUnsafeMutableBytes(of: &raw.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    _ = tcsetattr(0, TCSANOW, &raw)
    var byte: UInt8 = 0
    while read(0, &byte, 1) < 0 && errno == EINTR {}
    // The rest of a multi-byte key (an arrow's ESC [ A) arrives with its first byte.
    usleep(20_000)
    _ = tcflush(0, TCIFLUSH)
    _ = tcsetattr(0, TCSANOW, &saved)
  }
}
