import Crypto
import Foundation
import ProviderAPI

/// A file's content version on S3: its ETag, and on a versioned bucket its version id too
/// (remote-providers.md §1.2, issue 11 §2).
///
/// The ETag alone misses a rewrite of the same bytes (same MD5, same ETag) and cannot name which
/// of the kept versions a cached copy is; the version id does both. Conditions stay on the ETag
/// (`If-Match` compares ETags, never version ids), so ``etag`` is what a conditional replace
/// sends, and a version made from a listing equals one made from a HEAD or an upload of the same
/// object: every source gives both parts (a listing of a versioned bucket reads ListObjectVersions
/// for them). Encoded as `ETAG VERSIONID` (an ETag is a quoted string without spaces); a version
/// id too long for the 128 bytes of an `ItemVersion` is replaced by the hex of its SHA-256's first
/// 16 bytes, which still changes with it.
enum S3ContentVersion {
  /// The item version of an object; `versionID` nil (an unversioned bucket) or S3's `null` (an
  /// object written before versioning was turned on) leaves the ETag alone.
  static func make(etag: String, versionID: String?) -> ItemVersion {
    var text = etag
    if let versionID, !versionID.isEmpty, versionID != "null" {
      let id =
        etag.utf8.count + 1 + versionID.utf8.count <= ItemVersion.maxComponentSize
        ? versionID : "#" + SHA256.hash(data: Data(versionID.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
      text += " " + id
    }
    return (try? ItemVersion(content: text, metadata: "")) ?? .empty
  }

  /// The ETag part of a version this provider made (nil for another provider's, or a folder's).
  static func etag(_ version: ItemVersion) -> String? {
    guard let text = String(data: version.content, encoding: .utf8), !text.isEmpty, text != "folder" else { return nil }
    return String(text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)[0])
  }
}
