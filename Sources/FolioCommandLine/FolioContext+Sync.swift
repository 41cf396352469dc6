import FolioConfig
import Foundation
import ProviderAPI
import ProviderCore
import WorkingSetIndex

/// The sync engine of the command line: the remote domains of the registry, the content store
/// under `$XDG_CACHE_HOME/folio/content` and the cache budget from config.toml.
extension FolioContext {
  func makeSyncEngine() -> SyncEngine {
    SyncEngine(
      registry: registry, index: index, contentRoot: paths.contentCache,
      cacheBudget: configuration.cacheBudgetBytes)
  }

  /// The message of a transfer or sync error, with what to do for a resolvable one.
  static func explain(_ error: ProviderError) -> String {
    guard error.isResolvable || error.code == .localVersionConflictingWithServer,
      let hint = error.recoverySuggestion, !error.message.contains(hint)
    else { return error.message }
    return "\(error.message) (\(hint))"
  }
}

/// `↓ name 42%` / `↑ name 42%` on stderr while transfers run, when stderr is a terminal: one line,
/// rewritten in place, names through the sanitiser. Nothing at all when stderr is a file or a pipe.
final class ProgressLine: Sendable {
  private let task: Task<Void, Never>?

  init(_ events: SyncEventHub, names: [Int64: String] = [:]) {
    guard Console.stderrIsTerminal else {
      task = nil
      return
    }
    let stream = events.stream()
    task = Task {
      var shown = false
      for await event in stream {
        guard case .progress(let a) = event else { continue }
        let arrow = a.direction == .download ? "↓" : "↑"
        let name = names[a.transferID] ?? a.name?.displayString ?? ""
        let percent = a.percent.map { "\($0)%" } ?? HumanFormat.size(a.completedBytes)
        FileHandle.standardError.write(Data("\r\u{1B}[K\(arrow) \(name) \(percent)".utf8))
        shown = true
      }
      if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
  }

  /// Clears the line.
  func finish() async {
    task?.cancel()
    await task?.value
  }
}
