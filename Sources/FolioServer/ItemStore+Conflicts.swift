import FolioProtocol
import Foundation
import GRDB

/// Conflict copies: their names and how a person resolves them.
extension ItemStore {
  /// `notes (conflict, ben, 2026-11-22 10.31).txt`, with a number added if even that is taken,
  /// shortened (never inside a character) to fit 255 bytes.
  static func conflictName(_ db: Database, original: String, parent: String, user: String, date: Double) throws
    -> String
  {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH.mm"
    let stamp = formatter.string(from: Date(timeIntervalSince1970: date))
    var base = original
    var ext = ""
    if let dot = original.lastIndex(of: "."), dot != original.startIndex {
      base = String(original[..<dot])
      ext = String(original[dot...])
    }
    for n in 1...1000 {
      let note = n == 1 ? " (conflict, \(user), \(stamp))" : " (conflict, \(user), \(stamp) \(n))"
      var stem = base
      while stem.utf8.count + note.utf8.count + ext.utf8.count > NameRules.maxBytes, !stem.isEmpty {
        stem.removeLast()
      }
      let candidate = stem + note + ext
      if try ItemRecord.child(db, parent: parent, name: candidate) == nil || parent == "trash" { return candidate }
    }
    throw ServerError(.serverError, "no free name for a conflict copy of \(original)")
  }

  /// Resolves the conflict of copy `copyID` with its original.
  ///
  /// - `copy`: the copy's bytes become the original's next content revision, and the copy takes
  ///   the original's previous bytes and goes to the trash: the version not kept stays
  ///   restorable, as with `original` (deleting it forever lost the other person's edit).
  /// - `original`: the original stays; the copy goes to the trash, no longer a conflict.
  /// - `both`: both stay as two ordinary items.
  /// - Returns: the original as it is afterwards.
  func resolve(copyID: String, keep: ResolveConflictRequest.Keep, user: String) async throws -> WireItem {
    let content = content
    let (item, stale) = try await mutate { db -> (WireItem, [(id: String, revision: Int64)]) in
      var copy = try ItemRecord.live(db, id: copyID)
      guard let originalID = copy.conflictOf else { throw ServerError.invalid("\(copyID) is not a conflict copy") }
      var original = try ItemRecord.live(db, id: originalID)
      let now = Date().timeIntervalSince1970
      var stale: [(id: String, revision: Int64)] = []
      switch keep {
      case .copy:
        if let locker = original.lockedBy, locker != user {
          throw ServerError(.locked, "\(original.name) is locked by \(locker)")
        }
        let theirs = original
        let mine = copy
        original.contentVersion += 1
        try content.link(from: (mine.id, mine.contentVersion), to: (original.id, original.contentVersion))
        original.size = mine.size
        original.sha256 = mine.sha256
        original.modified = now
        original.editor = mine.owner
        try Self.touch(db, &original)
        try original.update(db)
        copy.contentVersion += 1
        try content.link(from: (theirs.id, theirs.contentVersion), to: (copy.id, copy.contentVersion))
        copy.size = theirs.size
        copy.sha256 = theirs.sha256
        copy.modified = theirs.modified
        copy.editor = theirs.editor
        try Self.trashResolved(db, &copy, at: now)
        stale += [(theirs.id, theirs.contentVersion), (mine.id, mine.contentVersion)]
      case .original:
        try Self.trashResolved(db, &copy, at: now)
        try Self.touch(db, &original)
        try original.update(db)
      case .both:
        copy.conflictOf = nil
        try Self.touch(db, &copy)
        try copy.update(db)
        try Self.touch(db, &original)
        try original.update(db)
      }
      return (try original.wire(db, for: user), stale)
    }
    content.remove(stale)
    return item
  }

  /// The copy holding the version not kept goes to the trash, no longer a conflict: restorable.
  private static func trashResolved(_ db: Database, _ copy: inout ItemRecord, at now: Double) throws {
    copy.conflictOf = nil
    copy.originalParent = copy.parent
    copy.originalPath = try ItemRecord.path(db, of: copy)
    copy.parent = "trash"
    copy.trashed = now
    try touch(db, &copy)
    try copy.update(db)
  }
}
