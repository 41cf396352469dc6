import BrowserUI
import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// What the browser hands to the shell that started it, once it has quit: the folder it was in
/// (`--cwd-file`, for a shell function to `cd` there) and the items the picker chose
/// (`--chooser-file`). yazi's, lf's and ranger's habit; see docs/DECISIONS.md.
struct ShellHandOver {
  var cwdFile: String?
  var chooserFile: String?

  /// The bytes of the cwd file: the path of the folder being browsed, with no newline (a path
  /// may end with one; `$(cat FILE)` would strip it, `read -z` in fish keeps it). Nil — nothing
  /// written — when that folder is not on this computer (a remote location, Recently Deleted):
  /// the shell stays where it was rather than go somewhere Folio was not.
  static func cwdContents(_ state: AppState) -> [UInt8]? {
    state.localFolder?.path.bytes
  }

  /// The bytes of the chooser file: each chosen path followed by a newline. Nil when the picker
  /// quit choosing nothing: the file is left as it was (yazi's way), so a caller tests for an
  /// empty file (`test -s`).
  static func chooserContents(_ state: AppState) -> [UInt8]? {
    state.chosen.map { paths in paths.flatMap { $0.bytes + [UInt8(ascii: "\n")] } }
  }

  /// Writes what there is to write; the first failure, if any (the terminal is back by then, so
  /// the caller says it on stderr and exits 1: a picker whose choice was lost must not look like
  /// one that chose nothing).
  func write(after state: AppState) -> ProviderError? {
    var failure: ProviderError?
    if let cwdFile, let bytes = Self.cwdContents(state) {
      failure = failure ?? Self.replace(cwdFile, with: bytes)
    }
    if let chooserFile, let bytes = Self.chooserContents(state) {
      failure = failure ?? Self.replace(chooserFile, with: bytes)
    }
    return failure
  }

  /// Truncates and writes `file` (created 0600 if missing: it names where the person was).
  static func replace(_ file: String, with bytes: [UInt8]) -> ProviderError? {
    let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      let reason = String(cString: strerror(errno))
      return ProviderError(.ioError, "cannot write \(TerminalText.escape(file)): \(reason)", underlying: errno)
    }
    defer { close(fd) }
    var written = 0
    while written < bytes.count {
      let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        let reason = String(cString: strerror(errno))
        return ProviderError(.ioError, "cannot write \(TerminalText.escape(file)): \(reason)", underlying: errno)
      }
      written += n
    }
    return nil
  }
}
