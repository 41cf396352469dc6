import Foundation
import GRDB
import ProviderAPI

/// `folio_name`: the SQLite collation that sorts a folder's names as every other location does
/// (``NameOrdering``: case-insensitive, digit runs as numbers, then bytewise).
///
/// SQL's BINARY order put "Zeta" before "alpha" and "file10" before "file2" on a Folio server
/// while the local disk, SFTP, S3 and WebDAV sorted them naturally. The collation is total (two
/// names compare equal only when their bytes are equal), so the keyset paging of
/// ItemStore+Listing stays stable with it; ties on equal names are broken by the id as before.
/// It is registered on every connection of the server's pool (ServerDatabase), and the name
/// indexes are built with it, so a page is read in index order, never sorted.
enum NameCollation {
  static let name = "folio_name"

  static let collation = DatabaseCollation(name) { a, b in
    var a = a
    var b = b
    let c = a.withUTF8 { pa in
      b.withUTF8 { pb in
        NameOrdering.compare(
          pa.baseAddress ?? NameOrdering.emptyPointer, pa.count, pb.baseAddress ?? NameOrdering.emptyPointer, pb.count)
      }
    }
    return c < 0 ? .orderedAscending : c > 0 ? .orderedDescending : .orderedSame
  }
}
