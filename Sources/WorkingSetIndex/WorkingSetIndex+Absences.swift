import Foundation
import GRDB
import ProviderAPI

/// The listing poller's absences (storage without a change feed, remote-providers.md §1.3): the
/// items the last complete listing of a folder lacked for the first time.
///
/// A deletion needs two consecutive complete listings that both lack the item. In memory only,
/// that count died with the process, so `folio sync` — one listing per folder per run — could
/// never confirm a deletion. Stored here, the second run finds the first run's absence.
extension WorkingSetIndex {
  /// The items of `folder` the last complete listing lacked once, with when it first lacked them.
  public func listingAbsences(
    domain: DomainIdentifier, folder: ItemIdentifier
  ) throws(ProviderError) -> [ItemIdentifier: Date] {
    try read("reading the absences of a folder's listing") { db in
      let rows = try Row.fetchAll(
        db, sql: "SELECT identifier, firstMissed FROM listingAbsence WHERE domain = ? AND folder = ?",
        arguments: [domain.rawValue, folder.rawValue])
      var absences: [ItemIdentifier: Date] = [:]
      for row in rows {
        absences[ItemIdentifier(row["identifier"] as String)] = Date(timeIntervalSince1970: row["firstMissed"])
      }
      return absences
    }
  }

  /// Makes `missing` the folder's absences after a listing: a row that stays keeps its first
  /// date, a new one gets `date`, and every other row of the folder goes (the item was listed
  /// again, deleted or moved, or the listing was not complete and the count starts again).
  public func replaceListingAbsences(
    _ missing: Set<ItemIdentifier>, domain: DomainIdentifier, folder: ItemIdentifier, at date: Date = Date()
  ) throws(ProviderError) {
    try write("saving the absences of a folder's listing") { db in
      let kept = try String.fetchSet(
        db, sql: "SELECT identifier FROM listingAbsence WHERE domain = ? AND folder = ?",
        arguments: [domain.rawValue, folder.rawValue])
      for id in kept where !missing.contains(ItemIdentifier(id)) {
        try db.execute(
          sql: "DELETE FROM listingAbsence WHERE domain = ? AND identifier = ?", arguments: [domain.rawValue, id])
      }
      // An item is in one folder: a row under another folder (a move Folio did) is taken over.
      for id in missing where !kept.contains(id.rawValue) {
        try db.execute(
          sql: """
            INSERT INTO listingAbsence (domain, identifier, folder, firstMissed) VALUES (?, ?, ?, ?)
            ON CONFLICT (domain, identifier) DO UPDATE SET folder = excluded.folder, firstMissed = excluded.firstMissed
            """,
          arguments: [domain.rawValue, id.rawValue, folder.rawValue, date.timeIntervalSince1970])
      }
    }
  }

  /// Drops the absences of items that left the index: an identifier a path-keyed store gives to
  /// the next file at that path must start its own count.
  static func forgetAbsences(_ db: Database, domain: DomainIdentifier, identifiers: [String]) throws {
    for id in identifiers {
      try db.execute(
        sql: "DELETE FROM listingAbsence WHERE domain = ? AND (identifier = ? OR folder = ?)",
        arguments: [domain.rawValue, id, id])
    }
  }
}
