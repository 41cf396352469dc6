/// A path-keyed provider that reads a folder's own entry from the storage on request, the top
/// included, with one request (a WebDAV PROPFIND Depth 0).
///
/// Why a protocol of its own: `item(for: .root)` answers the top without asking on most
/// providers (it is there, or a listing says why), and the browser asks for it often. The listing
/// poller's sweep over storage whose folder versions cover their descendants
/// (``ProviderTraits/folderVersionsCoverDescendants``) needs the top's current version instead:
/// one request that, when unchanged, says every folder below is as the last sweep left it.
public protocol FolderVersionReading: PathKeyedProvider {
  /// The folder at `path` as the storage states it now, with its version.
  func currentFolder(at path: ItemPath) async throws(ProviderError) -> Item
}
