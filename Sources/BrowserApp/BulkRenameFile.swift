import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// The file Rename in Editor hands to `$EDITOR`: `folio-rename.txt` in a folder of its own that
/// `mkdtemp` makes 0700 under `$TMPDIR` (else /tmp), the file created 0600 and exclusively.
///
/// Names are private: no other user may read the list, nor swap the file between the write and
/// the read (the folder is ours alone). The whole folder is removed afterwards, with whatever the
/// editor left next to the file (a backup `~`, a swap file).
struct BulkRenameFile {
  let folder: String
  let path: [UInt8]

  init(writing text: [UInt8]) throws(ProviderError) {
    let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    var template = Array((base + "/folio-rename-XXXXXX").utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw ProviderError(.ioError, "cannot make a private folder in \(TerminalText.escape(base)) for the names (errno \(errno))", underlying: errno)
    }
    folder = String(cString: made)
    let file = folder + "/folio-rename.txt"
    path = Array(file.utf8)
    let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      let e = errno
      try? FileManager.default.removeItem(atPath: folder)
      throw ProviderError(.ioError, "cannot write the list of names (errno \(e))", underlying: e)
    }
    defer { close(fd) }
    var written = 0
    while written < text.count {
      let n = text[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        let e = errno
        try? FileManager.default.removeItem(atPath: folder)
        throw ProviderError(.ioError, "cannot write the list of names (errno \(e))", underlying: e)
      }
      written += n
    }
  }

  /// The file as the editor left it (an editor that saves by renaming left a new file there).
  func read() throws(ProviderError) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: folder + "/folio-rename.txt") else {
      throw ProviderError(.ioError, "the list of names is gone (the editor removed it): nothing was renamed")
    }
    return Array(data)
  }

  func remove() { try? FileManager.default.removeItem(atPath: folder) }
}
