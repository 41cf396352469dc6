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
}

/// A folder of a bucket read whole and sorted (ListObjectsV2 lists keys in byte order only).
typealias S3ListingSnapshot = FolderListing<S3ListingEntry>
