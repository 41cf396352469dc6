import Foundation
import TestSupport

/// Nextcloud's system tags ("collaborative tags", what the Files app shows and filters by) as its
/// SystemTagPlugin serves them (`apps/dav/lib/SystemTag/`), at `remote.php/dav/`:
///
/// - `systemtags/`: PROPFIND Depth 1 lists the tags (`oc:id`, `oc:display-name`, one response each
///   at `systemtags/ID`); a POST of JSON `{"name", "userVisible", "userAssignable"}` makes one,
///   201 with `Content-Location: /remote.php/dav/systemtags/ID`, or 409 when the name is taken
///   (compared exactly, as the server's unique key on the name does);
/// - `systemtags-relations/files/FILEID/TAGID`: PUT assigns (201; 409 when assigned already; 404
///   for an unknown tag or file), DELETE removes (204; 404 when not assigned);
/// - a file's listing states `nc:system-tags`, one `nc:system-tag` a tag, its name as text and
///   `oc:id`, `oc:can-assign`, `oc:user-visible`, `oc:user-assignable` as attributes (the
///   `SystemTagList` serializer), natural-sorted by name; empty when it has none. A tag moves no
///   ETag, as a favorite does not (owncloud/core#16589).
extension NextcloudDouble {
  /// The names of the system tags of the item at `path`, sorted (nil: no such item).
  public func systemTags(of path: String) -> [String]? {
    lock.withLock {
      guard let node = nodes[path] else { return nil }
      return (tagRelations[node.fileID] ?? []).compactMap { systemTagNames[$0] }.sorted()
    }
  }

  /// Every system tag of the instance, by name.
  public var systemTagList: [String] { lock.withLock { systemTagNames.values.sorted() } }

  /// Another client (the web interface) tags the item at `path`, making the tag when no tag has
  /// that exact name.
  public func tag(_ path: String, _ name: String) {
    lock.withLock {
      guard let node = nodes[path] else { return }
      let id = systemTagNames.first { $0.value == name }?.key ?? makeTag(name)
      tagRelations[node.fileID, default: []].insert(id)
    }
  }

  /// Another client removes a tag from the item at `path`.
  public func untag(_ path: String, _ name: String) {
    lock.withLock {
      guard let node = nodes[path], let id = systemTagNames.first(where: { $0.value == name })?.key else { return }
      tagRelations[node.fileID]?.remove(id)
    }
  }

  private func makeTag(_ name: String) -> Int {
    counter += 1
    systemTagNames[counter] = name
    return counter
  }

  /// `nc:system-tags` of a file id, for its listing entry.
  func systemTagsProperty(_ fileID: Int) -> String {
    let tags = (tagRelations[fileID] ?? []).compactMap { id in systemTagNames[id].map { (id, $0) } }
      .sorted { $0.1.localizedStandardCompare($1.1) == .orderedAscending }
    guard !tags.isEmpty else { return "<nc:system-tags/>" }
    return "<nc:system-tags>"
      + tags.map { id, name in
        "<nc:system-tag oc:id=\"\(id)\" oc:can-assign=\"true\" oc:user-visible=\"true\" oc:user-assignable=\"true\">"
          + escapeXML(name) + "</nc:system-tag>"
      }.joined() + "</nc:system-tags>"
  }

  /// Answers a request below `remote.php/dav/systemtags…` (the lock is held); `path` starts there.
  func systemTags(_ r: ScriptedHTTPServer.Received, _ path: String) -> [UInt8] {
    let parts = path.split(separator: "/").map(String.init)
    switch (r.method, parts.first, parts.count) {
    case ("PROPFIND", "systemtags", 1):
      var responses = [
        "<d:response><d:href>/remote.php/dav/systemtags/</d:href><d:propstat><d:prop><d:resourcetype><d:collection/>"
          + "</d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
      ]
      if r.headers["depth"] == "1" {
        for (id, name) in systemTagNames.sorted(by: { $0.key < $1.key }) {
          responses.append(
            "<d:response><d:href>/remote.php/dav/systemtags/\(id)</d:href><d:propstat><d:prop><oc:id>\(id)</oc:id>"
              + "<oc:display-name>\(escapeXML(name))</oc:display-name><oc:user-visible>true</oc:user-visible>"
              + "<oc:user-assignable>true</oc:user-assignable><d:resourcetype/></d:prop>"
              + "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>")
        }
      }
      return multistatus(responses)
    case ("POST", "systemtags", 1):
      guard let object = try? JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any],
        let name = object["name"] as? String, !name.isEmpty
      else { return status("400 Bad Request") }
      if systemTagNames.values.contains(name) { return status("409 Conflict") }
      let id = makeTag(name)
      return ScriptedHTTPServer.answer("201 Created", headers: [("Content-Location", "/remote.php/dav/systemtags/\(id)")])
    case (let method, "systemtags-relations", 4) where parts[1] == "files" && (method == "PUT" || method == "DELETE"):
      guard let fileID = Int(parts[2]), let tagID = Int(parts[3]), systemTagNames[tagID] != nil,
        nodes.values.contains(where: { $0.fileID == fileID })
      else { return status("404 Not Found") }
      if method == "PUT" {
        guard tagRelations[fileID, default: []].insert(tagID).inserted else { return status("409 Conflict") }
        return status("201 Created")
      }
      guard tagRelations[fileID]?.remove(tagID) != nil else { return status("404 Not Found") }
      return status("204 No Content")
    default:
      return status("405 Method Not Allowed")
    }
  }
}
