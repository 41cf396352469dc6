import Foundation

/// A value behind a lock, for the few things a provider must answer synchronously (the declared
/// actions and decorations) while they are filled in from async code.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func get() -> Value { lock.withLock { value } }

  func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
