import Foundation
import GRDB
import ProviderAPI

/// A conflict the sync engine saw: the original item and the copy holding the other side, kept
/// until the person resolves it ("Resolve Conflict…": keep mine, keep theirs, keep both).
public struct SyncConflict: Sendable, Equatable {
  public enum Reason: String, Sendable, Codable, CaseIterable {
    /// An upload was based on a version the server no longer had: the server kept the local
    /// bytes as a copy next to the original.
    case staleBase
    /// The item was deleted on the server while it had local edits: the edits became a new item.
    case remoteDeletion
  }

  public var domain: DomainIdentifier
  /// The server's item ("theirs"). For a remote deletion, the identifier the item had.
  public var original: ItemIdentifier
  /// The item holding the local side ("mine").
  public var copy: ItemIdentifier
  public var reason: Reason
  public var detected: Date

  public init(domain: DomainIdentifier, original: ItemIdentifier, copy: ItemIdentifier, reason: Reason, detected: Date) {
    self.domain = domain
    self.original = original
    self.copy = copy
    self.reason = reason
    self.detected = detected
  }
}

extension WorkingSetIndex {
  /// Records a conflict (idempotent for the same copy).
  public func recordConflict(_ conflict: SyncConflict) throws(ProviderError) {
    try write("recording a conflict on \(conflict.original)") { db in
      try db.execute(
        sql: """
          INSERT OR REPLACE INTO syncConflict (domain, copy, original, reason, detected) VALUES (?, ?, ?, ?, ?)
          """,
        arguments: [
          conflict.domain.rawValue, conflict.copy.rawValue, conflict.original.rawValue, conflict.reason.rawValue,
          conflict.detected.timeIntervalSince1970,
        ])
    }
  }

  /// Unresolved conflicts, oldest first.
  public func conflicts(domain: DomainIdentifier? = nil) throws(ProviderError) -> [SyncConflict] {
    try read("reading conflicts") { db in
      try Row.fetchAll(
        db, sql: "SELECT * FROM syncConflict WHERE (?1 IS NULL OR domain = ?1) ORDER BY detected, copy",
        arguments: [domain?.rawValue]
      ).map(Self.conflict)
    }
  }

  /// The conflict an item is part of, as the copy or as the original (the oldest when several).
  public func conflict(domain: DomainIdentifier, involving identifier: ItemIdentifier) throws(ProviderError) -> SyncConflict? {
    try read("reading the conflict of \(identifier)") { db in
      try Row.fetchOne(
        db,
        sql: """
          SELECT * FROM syncConflict WHERE domain = ?1 AND (copy = ?2 OR original = ?2) ORDER BY detected LIMIT 1
          """,
        arguments: [domain.rawValue, identifier.rawValue]
      ).map(Self.conflict)
    }
  }

  /// The conflict was resolved.
  public func removeConflict(domain: DomainIdentifier, copy: ItemIdentifier) throws(ProviderError) {
    try write("forgetting the conflict of \(copy)") { db in
      try db.execute(
        sql: "DELETE FROM syncConflict WHERE domain = ? AND copy = ?", arguments: [domain.rawValue, copy.rawValue])
    }
  }

  private static func conflict(_ row: Row) -> SyncConflict {
    SyncConflict(
      domain: DomainIdentifier(unchecked: row["domain"]), original: ItemIdentifier(row["original"] as String),
      copy: ItemIdentifier(row["copy"] as String),
      reason: SyncConflict.Reason(rawValue: row["reason"]) ?? .staleBase,
      detected: Date(timeIntervalSince1970: row["detected"]))
  }
}
