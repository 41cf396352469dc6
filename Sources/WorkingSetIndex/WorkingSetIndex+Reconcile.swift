import Foundation
import GRDB
import ProviderAPI

extension WorkingSetIndex {
  /// Every identifier the index holds for a domain: what a reconciliation checks one by one when
  /// the change log can no longer say what happened.
  public func itemIdentifiers(domain: DomainIdentifier) throws(ProviderError) -> [ItemIdentifier] {
    try read("listing the items of \(domain)") { db in
      try String.fetchAll(db, sql: "SELECT identifier FROM item WHERE domain = ? ORDER BY id", arguments: [domain.rawValue])
        .map(ItemIdentifier.init)
    }
  }
}
