import Dispatch
import ProviderAPI
import Synchronization

/// Runs blocking file work (copying, hashing, fsync) on a dispatch queue, never on Swift's
/// cooperative pool: a 1 GiB copy or a slow disk must not starve the threads the rest of Folio
/// (the UI's events, other transfers) runs on. Cancelling the calling task sets a flag the work
/// polls between chunks.
enum BlockingWork {
  /// A flag the blocking loop polls to stop early when its task is cancelled.
  final class Cancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    func cancel() { flag.store(true, ordering: .relaxed) }
    var isCancelled: Bool { flag.load(ordering: .relaxed) }
  }

  private static let queue = DispatchQueue(label: "folio.sync-io", qos: .utility, attributes: .concurrent)
  /// Set once by `folio-sim` (``SyncEngine/runFileWorkInline()``): the work runs on the caller.
  static let runsInline = Atomic<Bool>(false)

  static func run<T: Sendable>(
    _ body: @escaping @Sendable (Cancellation) throws(ProviderError) -> T
  ) async throws(ProviderError) -> T {
    let flag = Cancellation()
    if runsInline.load(ordering: .relaxed) { return try body(flag) }
    let result: Result<T, ProviderError> = await withTaskCancellationHandler {
      await withCheckedContinuation { (cont: CheckedContinuation<Result<T, ProviderError>, Never>) in
        queue.async {
          if flag.isCancelled { return cont.resume(returning: .failure(.cancelledError)) }
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
