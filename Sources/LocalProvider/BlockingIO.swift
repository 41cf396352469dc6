import Dispatch
import ProviderAPI
import Synchronization

/// A flag a blocking loop polls to stop early when its task is cancelled.
final class CancellationFlag: Sendable {
  private let flag = Atomic<Bool>(false)
  func cancel() { flag.store(true, ordering: .relaxed) }
  var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// Runs blocking filesystem calls on a dispatch queue, never on Swift's cooperative pool: a slow
/// disk or a hung network mount must not starve the threads that run the rest of Folio.
enum BlockingIO {
  private static let queue = DispatchQueue(label: "folio.local-io", qos: .userInitiated, attributes: .concurrent)

  static func run<T: Sendable>(
    _ body: @escaping @Sendable (CancellationFlag) throws(ProviderError) -> T
  ) async throws(ProviderError) -> T {
    let flag = CancellationFlag()
    let result: Result<T, ProviderError> = await withTaskCancellationHandler {
      await withCheckedContinuation { (cont: CheckedContinuation<Result<T, ProviderError>, Never>) in
        queue.async {
          if flag.isCancelled {
            cont.resume(returning: .failure(.cancelledError))
            return
          }
          do throws(ProviderError) {
            cont.resume(returning: .success(try body(flag)))
          } catch {
            cont.resume(returning: .failure(error))
          }
        }
      }
    } onCancel: {
      flag.cancel()
    }
    return try result.get()
  }
}
