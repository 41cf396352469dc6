import FolioProtocol
import Foundation
import GRDB

/// Declared actions, performed on the server.
extension ItemStore {
  /// Performs a declared action on `ids`, all or nothing.
  func perform(action: String, on ids: [String], user: String) async throws {
    guard action == "lock" || action == "unlock" else { throw ServerError.invalid("no action \(action)") }
    guard !ids.isEmpty else { throw ServerError.invalid("no items") }
    _ = try await mutate { db in
      for id in ids {
        var item = try ItemRecord.live(db, id: id)
        guard !item.isFolder else { throw ServerError.invalid("\(item.name) is a folder: only files lock") }
        if action == "lock" {
          if let locker = item.lockedBy {
            if locker == user { continue }
            throw ServerError(.locked, "\(item.name) is locked by \(locker)")
          }
          item.lockedBy = user
        } else {
          guard let locker = item.lockedBy else { continue }
          if locker != user, item.owner != user {
            throw ServerError(.locked, "\(item.name) is locked by \(locker)")
          }
          item.lockedBy = nil
        }
        try Self.touch(db, &item)
        try item.update(db)
      }
      return true
    }
  }
}
