import Hummingbird
import NIOCore

/// The per-request context: Hummingbird's core storage plus the connection, which the `drop` and
/// `truncate` faults close, and the `empty` fault's flag for listings and change batches.
struct FolioRequestContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  let channel: any Channel
  /// Set by an `empty` fault: the handler answers a listing or a change batch with no items.
  var emptyFault = false

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    channel = source.channel
  }
}
