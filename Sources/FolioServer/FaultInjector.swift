import FolioProtocol
import Foundation

/// The fault rules a test installed (`--faults` only), consumed as requests match them.
///
/// Rules are checked in order; the first that matches a request and has requests left applies,
/// and its count goes down by one. The `/v1/_faults` endpoint itself never matches, so a test can
/// always take its faults back.
final class FaultInjector: @unchecked Sendable {
  private let lock = NSLock()
  private var rules: [FaultRule] = []

  func install(_ new: [FaultRule]) throws {
    for rule in new {
      if rule.kind == .status, !(400...599).contains(rule.status ?? 0) {
        throw ServerError.invalid("a status fault needs a status from 400 to 599")
      }
      if let c = rule.count, c < 1 { throw ServerError.invalid("count must be at least 1") }
    }
    lock.withLock { rules = new }
  }

  func clear() { lock.withLock { rules = [] } }

  /// The rule that applies to this request, if any, counting it as used.
  func take(method: String, path: String) -> FaultRule? {
    if path.hasPrefix("/v1/_faults") { return nil }
    return lock.withLock {
      for i in rules.indices {
        let rule = rules[i]
        if let m = rule.method, m.uppercased() != method.uppercased() { continue }
        if let p = rule.pathPrefix, !path.hasPrefix(p) { continue }
        if let c = rule.count {
          if c <= 0 { continue }
          rules[i].count = c - 1
        }
        return rule
      }
      return nil
    }
  }
}
