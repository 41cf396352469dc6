/// The body of a PROPFIND that names its properties (RFC 4918 §9.1, §14.20).
///
/// Public so that `folio-bench webdav` sends curl's baseline PROPFIND with the very bytes Folio sends.
public enum PropfindBody {
  public static func xml(_ properties: WebDAVProperties) -> [UInt8] {
    var names: [String] = []
    if properties.contains(.resourceType) { names.append("d:resourcetype") }
    if properties.contains(.contentLength) { names.append("d:getcontentlength") }
    if properties.contains(.lastModified) { names.append("d:getlastmodified") }
    if properties.contains(.etag) { names.append("d:getetag") }
    if properties.contains(.contentType) { names.append("d:getcontenttype") }
    if properties.contains(.quotaAvailable) { names.append("d:quota-available-bytes") }
    if properties.contains(.quotaUsed) { names.append("d:quota-used-bytes") }
    if properties.contains(.fileID) { names.append("oc:fileid") }
    if properties.contains(.permissions) { names.append("oc:permissions") }
    if properties.contains(.ocSize) { names.append("oc:size") }
    if properties.contains(.favorite) { names.append("oc:favorite") }
    if properties.contains(.tagName) { names.append("oc:id"); names.append("oc:display-name") }
    if properties.contains(.systemTags) { names.append("nc:system-tags") }
    if properties.contains(.trashbin) {
      names += ["nc:trashbin-filename", "nc:trashbin-original-location", "nc:trashbin-deletion-time"]
    }
    let ownCloud =
      properties.isDisjoint(with: [.fileID, .permissions, .ocSize, .favorite, .tagName])
      ? "" : " xmlns:oc=\"\(MultistatusParser.ownCloud)\""
    let nextcloud =
      properties.isDisjoint(with: [.trashbin, .systemTags]) ? "" : " xmlns:nc=\"\(MultistatusParser.nextcloud)\""
    let text =
      "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<d:propfind xmlns:d=\"DAV:\"\(ownCloud)\(nextcloud)><d:prop>"
      + names.map { "<\($0)/>" }.joined() + "</d:prop></d:propfind>\n"
    return Array(text.utf8)
  }
}
