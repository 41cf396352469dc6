import Crypto
import FolioProtocol
import Foundation
import _CryptoExtras

/// scrypt password hashes (N=2^14, r=8, p=1, 16-byte salt, 32-byte key; docs/PROTOCOL.md).
///
/// scrypt rather than a fast hash: a stolen `server.sqlite` should cost an attacker memory and time
/// per guess. Comparison is constant-time, and an unknown user is hashed against a dummy salt so
/// that "no such user" and "wrong password" take the same time.
enum PasswordHasher {
  static let saltBytes = 16
  static let keyBytes = 32

  static func newSalt() -> [UInt8] { randomBytes(saltBytes) }

  static func hash(_ password: String, salt: [UInt8]) throws -> [UInt8] {
    let key = try KDF.Scrypt.deriveKey(
      from: Array(password.utf8), salt: salt, outputByteCount: keyBytes, rounds: 1 << 14, blockSize: 8,
      parallelism: 1)
    return key.withUnsafeBytes { Array($0) }
  }

  /// True when `password` hashes to `expected` with `salt`; constant time in the comparison.
  static func verify(_ password: String, salt: [UInt8], expected: [UInt8]) -> Bool {
    guard let actual = try? hash(password, salt: salt), actual.count == expected.count else { return false }
    var diff: UInt8 = 0
    for i in actual.indices { diff |= actual[i] ^ expected[i] }
    return diff == 0
  }

  /// One scrypt at a time, off Swift's cooperative pool: each takes ~16 MiB and tens of ms, so a
  /// burst of logins neither starves request handling on a 2-core machine nor multiplies memory.
  private static let queue = DispatchQueue(label: "folio.scrypt")

  static func verifyInBackground(_ password: String, salt: [UInt8], expected: [UInt8]) async -> Bool {
    await withCheckedContinuation { continuation in
      queue.async { continuation.resume(returning: verify(password, salt: salt, expected: expected)) }
    }
  }

  static func randomBytes(_ n: Int) -> [UInt8] {
    var g = SystemRandomNumberGenerator()
    return (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
  }
}
