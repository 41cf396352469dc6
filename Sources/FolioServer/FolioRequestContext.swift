import Hummingbird
import NIOCore

/// The per-request context: Hummingbird's core storage plus the connection, which the `drop` and
/// `truncate` faults close, and the `empty` fault's flag for listings and change batches.
struct FolioRequestContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  let channel: any Channel
  /// Set by an `empty` fault: the handler answers a listing or a change batch with no items.
  var emptyFault = false
  /// Set by a fault that rewrites the response body (truncate, corrupt, stall): the body must then
  /// pass through Hummingbird's writer as buffers, not go out with `sendfile`.
  var bodyFault = false

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    channel = source.channel
  }
}
