import Foundation
import ProviderAPI
import Synchronization

/// `→ name 42%` on stderr while a rename or move of many requests runs (an S3 folder: a copy and
/// a delete per key), when stderr is a terminal: one line rewritten in place, the name through the
/// sanitiser, as ``ProgressLine`` shows transfers. Nothing when stderr is a file or a pipe, and
/// nothing for a provider that renames at once (it never reports).
final class RelocationProgress: Sendable {
  private let name: String
  private let quiet: Bool
  private let shown = Mutex(false)

  /// - Parameters:
  ///   - name: Already fit for a terminal (`displayString`).
  ///   - quiet: Shows nothing (`--json`).
  init(_ name: String, quiet: Bool = false) {
    self.name = name
    self.quiet = quiet
  }

  /// What to hand the rename as its progress.
  var report: @Sendable (TransferProgress) -> Void {
    guard !quiet, Console.stderrIsTerminal else { return { _ in } }
    return { [self] p in
      let percent = p.percent.map { "\($0)%" } ?? ""
      FileHandle.standardError.write(Data("\r\u{1B}[K→ \(self.name) \(percent)".utf8))
      self.shown.withLock { $0 = true }
    }
  }

  /// Clears the line.
  func finish() {
    if shown.withLock({ $0 }) { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
  }
}
