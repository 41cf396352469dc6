/// A provider that stops trying by itself after repeated failures (an extension whose breaker
/// tripped after it kept crashing), until a person asks again: the browser's Reload, `folio sync`
/// and `folio domain check` call ``retryNow()`` before they use it.
public protocol RetryableProvider: Provider {
  /// Forgets the failures that made it stop; the next call tries again at once. No I/O.
  func retryNow()
}
