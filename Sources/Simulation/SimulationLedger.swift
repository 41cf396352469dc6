import Crypto
import Foundation

/// What the oracle knows that the engine must not lose: every version of a file a user or a remote
/// actor saved, by SHA-256, and why a version may be gone (an edit built on it, a delete by an
/// actor who saw it, a storage that ignores conditional writes). At the end of a run each version
/// not released must be findable byte for byte (issue 15 §2, test-plan.md I2, I3).
///
/// Also where violations found during the run are written, as they happen.
public final class SimulationLedger: @unchecked Sendable {
  public struct Version: Sendable {
    public var hash: String
    public var origin: String
    public var released: String?
  }

  private let lock = NSLock()
  private var order: [String] = []
  private var versions: [String: Version] = [:]
  private var found: [String] = []

  public init() {}

  public static func hash(_ data: Data) -> String {
    // Hex by hand: `String(format:)` per byte was an eighth of a run's time.
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(64)
    for byte in SHA256.hash(data: data) {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// A version someone saved. Saving bytes that exist already adds nothing new to find.
  public func saved(_ data: Data, origin: String) {
    let h = Self.hash(data)
    lock.lock()
    defer { lock.unlock() }
    if versions[h] == nil { order.append(h) }
    versions[h] = Version(hash: h, origin: origin, released: nil)
  }

  /// A version that may now be gone, and why.
  public func release(_ hash: String, because reason: String) {
    lock.lock()
    defer { lock.unlock() }
    if versions[hash] != nil, versions[hash]?.released == nil { versions[hash]?.released = reason }
  }

  public func release(_ data: Data, because reason: String) { release(Self.hash(data), because: reason) }

  /// The versions that must still be findable.
  public var heads: [Version] {
    lock.lock()
    defer { lock.unlock() }
    return order.compactMap { versions[$0] }.filter { $0.released == nil }
  }

  public var savedCount: Int {
    lock.lock()
    defer { lock.unlock() }
    return order.count
  }

  /// An invariant that did not hold.
  public func violation(_ text: String) {
    lock.lock()
    defer { lock.unlock() }
    found.append(text)
  }

  public var violations: [String] {
    lock.lock()
    defer { lock.unlock() }
    return found
  }
}
