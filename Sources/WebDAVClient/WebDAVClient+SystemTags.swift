import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI

/// A Nextcloud system tag ("collaborative tag": what the Files app shows on a file and filters
/// by): its id and its name.
public struct NextcloudSystemTag: Sendable, Equatable {
  public var id: String
  public var name: String
  public init(id: String, name: String) {
    self.id = id
    self.name = name
  }
}

/// Nextcloud's system tags, on a client made on the account's DAV root, `…/remote.php/dav/`
/// (Nextcloud's SystemTagPlugin: `apps/dav/lib/SystemTag/`; its clients, such as the Android
/// library's tag operations, use the same requests):
///
/// - `systemtags/` lists every tag the user can see (PROPFIND Depth 1, `oc:id`, `oc:display-name`);
/// - a POST of `{"name", "userVisible", "userAssignable"}` to it makes one, answered 201 with its
///   URL in `Content-Location` (409 when the name is taken);
/// - `systemtags-relations/files/FILEID/TAGID` assigns one to a file with PUT (201; 409 when it is
///   already) and removes it with DELETE (204).
///
/// A file's own tags come with its listing, as `nc:system-tags` (``WebDAVProperties/systemTags``).
extension WebDAVClient {
  /// Every system tag the user can see.
  public func systemTags() async throws -> [NextcloudSystemTag] {
    let found = TagList()
    _ = try await list(try WebDAVPath("systemtags"), properties: [.resourceType, .tagName]) { batch in
      for entry in batch {
        if let name = entry.tagName, !entry.name.isEmpty {
          found.add(NextcloudSystemTag(id: String(decoding: entry.name, as: UTF8.self), name: name))
        }
      }
    }
    return found.tags
  }

  /// Makes a system tag the user sees and may assign; returns its id.
  ///
  /// - Throws: `conflict` (409) when a tag of that name exists (list them again).
  public func createSystemTag(_ name: String) async throws(WebDAVError) -> String {
    let body: [String: Any] = ["name": name, "userVisible": true, "userAssignable": true]
    let json = (try? JSONSerialization.data(withJSONObject: body)) ?? Data()
    let folder = try WebDAVPath("systemtags")
    let response = try await send(
      .POST, try url(folder, collection: true), headers: headers([("Content-Type", "application/json")]),
      body: .bytes(ByteBuffer(bytes: Array(json))), operation: .post, subject: folder)
    await drain(response)
    guard let location = response.headers.first(name: "Content-Location"),
      let id = location.split(separator: "/").last.map(String.init), !id.isEmpty
    else {
      throw WebDAVError(.malformedResponse, "\(server) made the tag but did not say where (no Content-Location)")
    }
    return id
  }

  /// Assigns tag `tagID` to the file or folder `fileID` (`oc:fileid`); one already assigned is success.
  public func assignSystemTag(_ tagID: String, toFile fileID: String) async throws(WebDAVError) {
    let path = try relation(tagID, fileID)
    do {
      await drain(try await send(.PUT, try url(path), headers: headers(), operation: .put, subject: path))
    } catch where error.status == 409 {
      return
    }
  }

  /// Removes tag `tagID` from the file or folder `fileID`; one not assigned is success.
  public func unassignSystemTag(_ tagID: String, fromFile fileID: String) async throws(WebDAVError) {
    let path = try relation(tagID, fileID)
    do {
      await drain(try await send(.DELETE, try url(path), headers: headers(), operation: .delete, subject: path))
    } catch where error.code == .notFound {
      return
    }
  }

  private func relation(_ tagID: String, _ fileID: String) throws(WebDAVError) -> WebDAVPath {
    try WebDAVPath("systemtags-relations/files").appending(Array(fileID.utf8)).appending(Array(tagID.utf8))
  }
}

/// Tags gathered from a streamed listing.
private final class TagList: @unchecked Sendable {
  private let lock = NSLock()
  private var found: [NextcloudSystemTag] = []
  func add(_ tag: NextcloudSystemTag) { lock.withLock { found.append(tag) } }
  var tags: [NextcloudSystemTag] { lock.withLock { found } }
}
