import FolioProtocol
import Foundation
import GRDB

/// The custom actions and decorations FolioServer declares (docs/PROTOCOL.md, "Custom actions and
/// decorations"), and the actions' effect.
///
/// A lock is advisory for reading and binding for writing: a locked file refuses content from
/// anybody but the user who locked it, so two people editing one document find out before they
/// make a conflict, not after.
enum ServerDeclarations {
  static let response = DeclarationsResponse(
    actions: [
      .init(id: "lock", name: "Lock", rule: "isFolder == NO AND userInfo.locked != YES"),
      .init(id: "unlock", name: "Unlock", rule: "isFolder == NO AND userInfo.locked == YES"),
    ],
    decorations: [
      .init(id: "locked", category: "badge", label: "Locked by %@", labelKey: "lockedBy", glyph: "🔒", asciiGlyph: "L"),
      .init(id: "sharedBy", category: "sharing", label: "Shared by %@", labelKey: "owner", glyph: "👥", asciiGlyph: "S"),
      .init(id: "conflict", category: "badge", label: "Conflict", labelKey: nil, glyph: "⚠", asciiGlyph: "!"),
    ])
}

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
            throw ServerError(.noPermission, "\(item.name) is locked by \(locker)")
          }
          item.lockedBy = user
        } else {
          guard let locker = item.lockedBy else { continue }
          if locker != user, item.owner != user {
            throw ServerError(.noPermission, "\(item.name) is locked by \(locker)")
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
