import Foundation

/// Which listing a store answers: ListObjectsV2, or only the original ListObjects (v1), learnt
/// from the store and kept for as long as the value lives — one per location, shared by its
/// clients, so a store without v2 costs one refused request, not one per listing.
///
/// rclone lists Ceph, SeaweedFS and unknown stores with v1 (`list_version: 1`); stores without v2
/// answer it in one of two ways (remote-providers.md §3.2, and the reports collected there):
/// an error — 501 `NotImplemented` (Scality's cloudserver), `XNotImplemented` (StorageGRID and
/// others, as clients report it), or a 400 about the unknown parameter — or, worse, a v1 answer to
/// a v2 request (`list-type` ignored: Eucalyptus before 2018), whose truncated pages carry a
/// `NextMarker` or nothing instead of a continuation token. A client that pages by token loops
/// on the first page or stops after it (apache/opendal#5974, corymbia/eucalyptus#116). Both are
/// read as "no v2" and the listing goes on with `marker`.
public final class S3ListingDialect: @unchecked Sendable {
  public enum Version: Sendable, Equatable {
    case v2
    case v1
  }

  private let lock = NSLock()
  private var known: Version

  /// - Parameter version: `.v1` for a store known to lack v2 (nothing is tried first).
  public init(_ version: Version = .v2) { known = version }

  public var version: Version { lock.withLock { known } }

  func learnNoV2() { lock.withLock { known = .v1 } }

  /// Whether a refused ListObjectsV2 says the store does not have it (rather than that this
  /// request was wrong): 501 or a NotImplemented code, or a 400 naming an argument or request it
  /// does not take. A v1 request that fails as well surfaces its own error, and nothing is learnt.
  static func meansNoV2(_ error: S3Error) -> Bool {
    if error.code == .notImplemented || error.serverCode == "XNotImplemented" { return true }
    guard error.httpStatus == 400 else { return false }
    return error.serverCode == nil || ["InvalidArgument", "InvalidRequest", "NotImplemented", "BadRequest"].contains(error.serverCode!)
  }

  /// A page token of a v1 listing: the marker to send (a full key, or what the store gave as
  /// NextMarker), in a form no v2 token takes (those are base64, without ':').
  static func token(marker: [UInt8]) -> String { "m:" + S3URIEncoding.encode(marker, keepSlash: true) }

  /// The marker a v1 token names; nil for a v2 token.
  package static func marker(fromToken token: String) -> [UInt8]? {
    guard token.hasPrefix("m:") else { return nil }
    return S3URIEncoding.decodeURLEncoded(String(token.dropFirst(2)))
  }
}
