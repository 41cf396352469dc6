import ProviderAPI

/// The seam through which `folio-sim` crashes a process at a durable step (issue 15 §1): called
/// before each write that reaches the disk — an index transaction (with the identity of the
/// connection pool making it), a file the content store creates, renames or removes (with none) —
/// with the path written. A throw means the process died just before that step: the write does
/// not happen, and the simulator treats everything the dead process does afterwards as not
/// happening either (its index refuses writes, its calls never answer).
///
/// Nil outside the simulator, where it costs one load per write.
public enum DurableSteps {
  /// Set once, before any task runs (folio-sim's start), never changed after.
  nonisolated(unsafe) public static var willWrite: (@Sendable (_ path: String, _ writer: ObjectIdentifier?) throws(ProviderError) -> Void)?
}

extension WorkingSetIndex {
  /// Which connection pool writes: tells the writes of a crashed process's index (a zombie task
  /// still running in the simulator) from those of the process started after it.
  public var writerIdentity: ObjectIdentifier { ObjectIdentifier(writer) }
}
