import Crypto
import FolioProtocol
import Foundation
import GRDB

/// Users, their passwords and quotas, and bearer tokens.
///
/// A token is 32 random bytes, given to the client once in base64url and stored only as its
/// SHA-256: a copy of the database signs nobody in. Every request looks its token up, so a token
/// revoked by `folio serve admin` (another process) stops working at the next request.
struct UserStore: Sendable {
  let pool: DatabasePool

  struct UserSummary: Sendable {
    var name: String
    var quota: Int64?
    var usedBytes: Int64
    var tokens: Int
  }

  /// User names are plain words: they appear in conflict-copy names and in `owner` fields.
  static func validateName(_ name: String) throws(ServerError) {
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
    guard !name.isEmpty, name.count <= 64, name.allSatisfy({ allowed.contains($0) }), !name.hasPrefix("-"),
      !name.hasPrefix(".")
    else { throw .invalid("a user name is 1-64 letters, digits, '.', '_' or '-'") }
  }

  /// Adds a user; `replace` updates the password and quota of an existing one (the users file).
  func addUser(_ name: String, password: String, quota: Int64?, replace: Bool) throws {
    try Self.validateName(name)
    guard !password.isEmpty else { throw ServerError.invalid("the password is empty") }
    let salt = PasswordHasher.newSalt()
    let hash = try PasswordHasher.hash(password, salt: salt)
    try pool.write { db in
      let exists = try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM user WHERE name = ?)", arguments: [name]) ?? false
      if exists {
        guard replace else { throw ServerError.invalid("the user \(name) already exists") }
        try db.execute(
          sql: "UPDATE user SET salt = ?, hash = ?, quota = ? WHERE name = ?",
          arguments: [Data(salt), Data(hash), quota, name])
      } else {
        try db.execute(
          sql: "INSERT INTO user(name, salt, hash, quota, created) VALUES (?, ?, ?, ?, ?)",
          arguments: [name, Data(salt), Data(hash), quota, Date().timeIntervalSince1970])
      }
    }
  }

  /// Changes a password and revokes every token of the user: whoever had the old one is out.
  func setPassword(_ name: String, password: String) throws {
    guard !password.isEmpty else { throw ServerError.invalid("the password is empty") }
    let salt = PasswordHasher.newSalt()
    let hash = try PasswordHasher.hash(password, salt: salt)
    try pool.write { db in
      try db.execute(
        sql: "UPDATE user SET salt = ?, hash = ? WHERE name = ?", arguments: [Data(salt), Data(hash), name])
      guard db.changesCount == 1 else { throw ServerError.invalid("no user \(name)") }
      try db.execute(sql: "DELETE FROM token WHERE user = ?", arguments: [name])
    }
  }

  func setQuota(_ name: String, quota: Int64?) throws {
    try pool.write { db in
      try db.execute(sql: "UPDATE user SET quota = ? WHERE name = ?", arguments: [quota, name])
      guard db.changesCount == 1 else { throw ServerError.invalid("no user \(name)") }
    }
  }

  /// Revokes every token of `name`. - Returns: how many.
  @discardableResult
  func revokeTokens(of name: String) throws -> Int {
    try pool.write { db in
      guard try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM user WHERE name = ?)", arguments: [name]) == true
      else { throw ServerError.invalid("no user \(name)") }
      try db.execute(sql: "DELETE FROM token WHERE user = ?", arguments: [name])
      return db.changesCount
    }
  }

  func list() throws -> [UserSummary] {
    try pool.read { db in
      let now = Date().timeIntervalSince1970
      return try Row.fetchAll(db, sql: "SELECT name, quota FROM user ORDER BY name").map { row in
        let name: String = row[0]
        return UserSummary(
          name: name, quota: row[1], usedBytes: try ItemStore.usedBytes(db, user: name),
          tokens: try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM token WHERE user = ? AND expires > ?", arguments: [name, now]) ?? 0)
      }
    }
  }

  /// Checks a password and issues a token valid for `lifetime` seconds.
  ///
  /// - Throws: notAuthenticated for an unknown user or a wrong password alike.
  func login(_ name: String, password: String, lifetime: TimeInterval) async throws -> LoginResponse {
    let row = try await pool.read { db -> (salt: Data, hash: Data)? in
      try Row.fetchOne(db, sql: "SELECT salt, hash FROM user WHERE name = ?", arguments: [name]).map { ($0[0], $0[1]) }
    }
    // Hash even for an unknown user, so the answer takes the same time.
    let salt: [UInt8] = row.map { [UInt8]($0.salt) } ?? Self.dummySalt
    let expected: [UInt8] = row.map { [UInt8]($0.hash) } ?? Self.dummyHash
    let ok = await PasswordHasher.verifyInBackground(password, salt: salt, expected: expected)
    guard ok, row != nil else { throw ServerError(.notAuthenticated, "wrong user name or password") }
    let raw = PasswordHasher.randomBytes(32)
    let token = Base64URL.encode(raw)
    let now = Date().timeIntervalSince1970
    let expires = now + lifetime
    try await pool.write { db in
      try db.execute(
        sql: "INSERT INTO token(hash, user, created, expires) VALUES (?, ?, ?, ?)",
        arguments: [Data(Self.digest(raw)), name, now, expires])
      // Expired tokens are of no use to anybody: drop them while here.
      try db.execute(sql: "DELETE FROM token WHERE expires <= ?", arguments: [now])
    }
    return LoginResponse(token: token, user: name, expires: expires)
  }

  /// The user a bearer token belongs to.
  ///
  /// - Throws: notAuthenticated when the token is malformed, unknown, expired or revoked.
  func authenticate(_ token: String) async throws -> String {
    guard token.utf8.count <= 100, let raw = Base64URL.decode(token), raw.count == 32 else {
      throw ServerError.notAuthenticated
    }
    let hash = Data(Self.digest(raw))
    let now = Date().timeIntervalSince1970
    let user = try await pool.read { db in
      try String.fetchOne(
        db, sql: "SELECT user FROM token WHERE hash = ? AND expires > ?", arguments: [hash, now])
    }
    guard let user else { throw ServerError(.notAuthenticated, "the token is unknown, expired or revoked") }
    return user
  }

  func logout(_ token: String) async throws {
    guard let raw = Base64URL.decode(token) else { return }
    let hash = Data(Self.digest(raw))
    try await pool.write { db in try db.execute(sql: "DELETE FROM token WHERE hash = ?", arguments: [hash]) }
  }

  private static func digest(_ raw: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: raw)) }

  private static let dummySalt: [UInt8] = PasswordHasher.newSalt()
  private static let dummyHash: [UInt8] = [UInt8](repeating: 0, count: PasswordHasher.keyBytes)
}
