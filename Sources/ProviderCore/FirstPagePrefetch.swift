import Foundation
import ProviderAPI

/// A folder's first page, asked for before an enumeration could be opened for it.
///
/// At launch the start folder's listing needs nothing the index, the theme or the terminal
/// provide, so `folio` asks for it first and sets those up while the provider reads; the
/// ``EnumerationService`` then adopts the page (`open(_:on:slot:watch:prefetched:)`) instead of
/// asking again. Progress reported before the adoption is kept (the latest) and passed on.
public final class FirstPagePrefetch: Sendable {
  public let request: EnumerationRequest
  private let relay = ProgressRelay()
  private let task: Task<Result<ItemPage, ProviderError>, Never>

  /// Starts reading the first page of `request` now.
  public init(_ request: EnumerationRequest, on provider: any Provider) {
    self.request = request
    let relay = self.relay
    task = Task.detached {
      do throws(ProviderError) {
        return .success(try await provider.enumerate(request, page: nil) { relay.report($0) })
      } catch {
        return .failure(error)
      }
    }
  }

  /// The page (or the provider's error), passing progress on to `progress` from now on. Cancelling
  /// the caller cancels the read.
  func adopt(progress: @escaping @Sendable (EnumerationProgress) -> Void) async -> Result<ItemPage, ProviderError> {
    relay.connect(progress)
    let task = self.task
    return await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
  }

  /// The page once it is read, or nil when the read failed or was cancelled, without adopting
  /// it: the launch draws it before the app (and the index it needs) is ready, and the app's
  /// enumeration still adopts the same page. Cancelling the caller leaves the read going.
  public func peek() async -> ItemPage? {
    if case .success(let page) = await task.value { return page }
    return nil
  }

  /// Stops the read (the page will not be used).
  public func cancel() { task.cancel() }
}

/// Progress reported before anyone listens: the latest is kept for the listener to come.
private final class ProgressRelay: @unchecked Sendable {
  private let lock = NSLock()
  private var sink: (@Sendable (EnumerationProgress) -> Void)?
  private var latest: EnumerationProgress?

  func report(_ p: EnumerationProgress) {
    lock.withLock {
      latest = p
      sink?(p)
    }
  }

  func connect(_ sink: @escaping @Sendable (EnumerationProgress) -> Void) {
    lock.withLock {
      self.sink = sink
      if let latest { sink(latest) }
    }
  }
}
