import FolioProtocol
import Foundation

/// A sync anchor: the database epoch and a rank of the change log, "EPOCH.RANK".
package struct SyncAnchor: Sendable, Equatable {
  var epoch: String
  var rank: Int64

  package var encoded: String { "\(epoch).\(rank)" }

  /// Parses an anchor; anything not of this epoch is syncAnchorExpired.
  package init(decoding s: String, epoch expected: String) throws(ServerError) {
    let parts = s.split(separator: ".", omittingEmptySubsequences: false)
    guard s.utf8.count <= WireRoutes.maxTokenBytes, parts.count == 2, String(parts[0]) == expected,
      let r = Int64(parts[1]), r >= 0
    else { throw ServerError(.syncAnchorExpired, "the sync anchor is unknown to this server") }
    epoch = expected
    rank = r
  }

  init(epoch: String, rank: Int64) {
    self.epoch = epoch
    self.rank = rank
  }
}
