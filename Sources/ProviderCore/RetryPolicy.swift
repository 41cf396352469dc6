import Foundation
import ProviderAPI

/// When a transfer that failed for a transient reason is tried again: capped exponential backoff
/// with jitter (File Provider semantics §3, "1 s doubling to a 5 min cap, with jitter").
///
/// Pure: the jitter is an argument, so tests pin it and the queue draws it from its random source.
/// "Equal jitter" keeps at least half the delay (a burst of failures still spreads out, and no
/// retry comes back at once), unlike full jitter which may retry immediately.
public struct RetryPolicy: Sendable, Equatable {
  /// The delay after the first failure.
  public var base: TimeInterval
  /// The longest delay, however many failures.
  public var cap: TimeInterval
  /// Failures of one transfer in one `folio sync` run before it gives up on it for this run (the
  /// transfer stays queued for the next run or the browser).
  public var attemptsPerDrain: Int

  public init(base: TimeInterval = 1, cap: TimeInterval = 300, attemptsPerDrain: Int = 4) {
    self.base = base
    self.cap = cap
    self.attemptsPerDrain = attemptsPerDrain
  }

  public static let standard = RetryPolicy()

  /// The delay before attempt `attempt + 1`, after `attempt` failures (1 or more).
  ///
  /// - Parameters:
  ///   - jitter: A number in 0..<1 (uniformly random in use).
  ///   - retryAfter: The server's own hint; never retried sooner than it asked.
  public func delay(afterFailures attempt: Int, jitter: Double, retryAfter: TimeInterval? = nil) -> TimeInterval {
    let exponent = Double(max(0, min(attempt - 1, 40)))
    let full = min(cap, base * pow(2, exponent))
    let jittered = full * (0.5 + 0.5 * min(max(jitter, 0), 1))
    return max(jittered, min(retryAfter ?? 0, cap))
  }
}

/// What the queue does with a failed transfer, by its error's code.
public enum FailureDisposition: Sendable, Equatable {
  /// A resolvable error (notAuthenticated, serverUnreachable, insufficientQuota,
  /// cannotSynchronize): the transfer and its domain wait until the condition is resolved.
  case throttle
  /// A transient error (5xx, timeouts, truncated or mismatched bytes, anything unknown): back
  /// off and try again.
  case retry
  /// Trying again cannot help (the item is gone, permission, a bad name): a person must act.
  case fail
  /// The task was cancelled (shutdown): the transfer goes back to the queue untouched.
  case requeue

  /// Unknown codes are transient (File Provider: "considered to be transient and will cause the
  /// operation to be retried"), never a silent permanent failure.
  public static func of(_ error: ProviderError) -> FailureDisposition {
    if error.code == .cancelled { return .requeue }
    if error.isResolvable { return .throttle }
    switch error.code {
    case .noSuchItem, .invalidArgument, .noPermission, .featureUnsupported, .excludedFromSync, .readOnly,
      .badConfig, .badRule, .tokenTooLarge, .directoryNotEmpty, .filenameCollision, .deletionRejected, .itemLocked:
      return .fail
    default:
      return .retry
    }
  }
}
