import Foundation
import ProviderAPI

/// Runs `body`, failing with a timeout error after `seconds` instead of hanging the suite.
///
/// For awaits on real servers and processes, where a bug shows as a wait that never ends.
public func within<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
  try await withThrowingTaskGroup(of: T.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
      throw ProviderError(.serverUnreachable, "timed out after \(seconds) s")
    }
    let first = try await group.next()!
    group.cancelAll()
    return first
  }
}
