import FolioProtocol
import Foundation
import ProviderAPI

/// `folio serve admin`: user and token management on a server root, safe while the server runs
/// (SQLite WAL: the server sees each change at its next request).
public struct ServerAdmin: Sendable {
  public struct UserLine: Sendable, Equatable {
    public var name: String
    public var quota: Int64?
    public var usedBytes: Int64
    public var activeTokens: Int
  }

  let users: UserStore

  public init(root: URL) throws(ProviderError) {
    do {
      try FileManager.default.createDirectory(
        at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      users = UserStore(pool: try ServerDatabase(root: root).pool)
    } catch {
      throw ServerRuntime.providerError(error, doing: "opening the server root \(root.path)")
    }
  }

  public func addUser(_ name: String, password: String, quota: Int64?) throws(ProviderError) {
    try wrap { try users.addUser(name, password: password, quota: quota, replace: false) }
  }

  public func setPassword(_ name: String, password: String) throws(ProviderError) {
    try wrap { try users.setPassword(name, password: password) }
  }

  public func setQuota(_ name: String, quota: Int64?) throws(ProviderError) {
    try wrap { try users.setQuota(name, quota: quota) }
  }

  /// - Returns: how many tokens were revoked.
  public func revokeTokens(of name: String) throws(ProviderError) -> Int {
    try wrap { try users.revokeTokens(of: name) }
  }

  public func list() throws(ProviderError) -> [UserLine] {
    try wrap {
      try users.list().map { UserLine(name: $0.name, quota: $0.quota, usedBytes: $0.usedBytes, activeTokens: $0.tokens) }
    }
  }

  private func wrap<T>(_ body: () throws -> T) throws(ProviderError) -> T {
    do { return try body() } catch { throw ServerRuntime.providerError(error, doing: "folio serve admin") }
  }
}
