import Foundation
import ProviderAPI

/// One entry of a bucket folder's listing: a key directly in it, or a common prefix (a folder).
struct S3ListingEntry: FolderListingEntry, Equatable {
  var name: [UInt8]
  var isFolder: Bool
  var size: Int64
  var lastModified: Date?
  var etag: String
  /// On a versioned bucket, the version the listing saw (part of the content version).
  var versionID: String? = nil
  /// Set on the one entry that stands for the keys and prefixes of the folder Folio cannot show
  /// (relative to the location, in the store's order); empty on every other entry.
  var unshownKeys: [[UInt8]] = []

  /// The entry that says a folder holds keys Folio cannot show ("a//b", "a/./b", "a/.."): a
  /// listing that hid them would let a person believe the folder holds only what is shown.
  static func unshown(_ keys: [[UInt8]]) -> S3ListingEntry {
    let name = keys.count == 1 ? "(1 key Folio cannot show)" : "(\(keys.count) keys Folio cannot show)"
    return S3ListingEntry(name: Array(name.utf8), isFolder: false, size: 0, lastModified: nil, etag: "", unshownKeys: keys)
  }
}

/// A folder of a bucket read whole and sorted (ListObjectsV2 lists keys in byte order only).
typealias S3ListingSnapshot = FolderListing<S3ListingEntry>
