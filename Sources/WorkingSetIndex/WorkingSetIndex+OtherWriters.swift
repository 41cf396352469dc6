import GRDB
import ProviderAPI

extension WorkingSetIndex {
  /// A number that changes when another connection, which is to say another `folio` process (a
  /// `folio tag` or `folio sync` in another terminal), committed to the index since the last call;
  /// this process's own writes leave it as is. GRDB's observations see only the latter, so the
  /// browser polls this to refresh its Recents and sidebar (`PRAGMA data_version`, asked on the
  /// writer's connection: the number is per connection).
  public func versionOfOtherWriters() throws(ProviderError) -> Int {
    try Self.wrap("reading the index's version") {
      try writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }
  }
}
