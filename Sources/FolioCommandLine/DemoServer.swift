import FolioServer
import Foundation
import ProviderAPI

/// `folio demo`'s FolioServer, in this process: the same `ServerRuntime` as `folio serve`, on a
/// free loopback port, stopped by cancelling the task that runs it.
final class DemoServer: Sendable {
  let url: URL
  private let task: Task<Void, Never>

  private init(url: URL, task: Task<Void, Never>) {
    self.url = url
    self.task = task
  }

  /// Starts serving `root` (created if missing) and returns once connections are accepted.
  static func start(root: URL) async throws(ProviderError) -> DemoServer {
    let runtime = try ServerRuntime(options: ServerOptions(root: root, host: "127.0.0.1", port: 0))
    let (ready, continuation) = AsyncStream<Result<String, ProviderError>>.makeStream()
    let task = Task {
      do throws(ProviderError) {
        try await runtime.run { url in continuation.yield(.success(url)) }
        continuation.yield(.failure(ProviderError(.serverUnreachable, "the demo server stopped")))
      } catch {
        continuation.yield(.failure(error))
      }
      continuation.finish()
    }
    for await result in ready {
      switch result {
      case .success(let text):
        guard let url = URL(string: text) else { break }
        return DemoServer(url: url, task: task)
      case .failure(let error):
        task.cancel()
        throw error
      }
    }
    task.cancel()
    throw ProviderError(.ioError, "the demo server did not start")
  }

  /// Stops serving and waits until it has.
  func stop() async {
    task.cancel()
    await task.value
  }
}
