import Foundation
import ProviderAPI

/// FEP/1 item JSON ↔ ``Item`` and ``ItemTemplate`` (docs/EXTENSIONS.md §2 "Items").
package enum ExtensionItemCoding {
  /// An item of the extension's, placed at `parentPath` (its parent's path; "/" for the root's
  /// children). Throws for an item the host refuses (a bad name, no id): the caller drops that
  /// item only and logs why.
  package static func item(
    _ json: JSONValue, parentPath: ItemPath?, capabilities caps: ExtensionCapabilities
  ) throws(ProviderError) -> Item {
    guard case .object(let o) = json else { throw ProviderError(.invalidArgument, "an item that is not an object") }
    guard let idText = o["id"]?.string, !idText.isEmpty, idText.utf8.count <= 1024 else {
      throw ProviderError(.invalidArgument, "an item without a valid id")
    }
    let id = ItemIdentifier(idText)
    let parent = ItemIdentifier(o["parent"]?.string ?? ItemIdentifier.root.rawValue)
    let isRoot = id == .root
    let name = try self.name(o, caps: caps, isRoot: isRoot)
    let kind = o["kind"]?.string ?? "file"
    let contentType: ContentType
    switch kind {
    case "folder": contentType = .folder
    case "symlink": contentType = .symlink
    case "file": contentType = .forExtension(name.pathExtension)
    default: throw ProviderError(.invalidArgument, "\(name.displayString): unknown kind \(TerminalText.escape(kind))")
    }
    let isFolder = contentType == .folder
    let path: ItemPath = isRoot ? .root : (parentPath ?? .root).appending(name)
    var capabilities = caps.defaultItemCapabilities(isFolder: isFolder, isRoot: isRoot)
    if let list = o["capabilities"]?.array {
      capabilities = []
      for c in list.compactMap(\.string) {
        switch c {
        case "read": capabilities.insert(.reading)
        case "write", "addSubItems": capabilities.insert(.writing)
        case "rename": capabilities.insert(.renaming)
        case "reparent": capabilities.insert(.reparenting)
        case "delete": capabilities.insert(.deleting)
        case "trash": capabilities.insert(.trashing)
        case "evict": capabilities.insert(.evicting)
        default: break
        }
      }
    }
    var userInfo: [String: UserInfoValue] = [:]
    for (k, v) in o["userInfo"]?.object ?? [:] {
      switch v {
      case .string(let s): userInfo[k] = .string(s)
      case .number(let n): userInfo[k] = .number(n)
      case .bool(let b): userInfo[k] = .bool(b)
      default: break
      }
    }
    func date(_ key: String) -> Date? { o[key]?.number.map { Date(timeIntervalSince1970: $0) } }
    let shared = o["shared"]?.bool ?? false
    return Item(
      identifier: id, parentIdentifier: isRoot ? .root : parent, filename: name, path: path, contentType: contentType,
      capabilities: capabilities, version: try version(o["version"]),
      documentSize: isFolder ? nil : o["size"]?.int64, childItemCount: o["childCount"]?.int, creationDate: date("created"),
      contentModificationDate: date("modified"), lastUsedDate: date("lastUsed"),
      tags: (o["tags"]?.array ?? []).compactMap(\.string), favoriteRank: o["favoriteRank"]?.int64.map { UInt64(max(0, $0)) },
      originalPath: o["originalPath"]?.string.map(ItemPath.init), trashedDate: date("trashed"),
      isDownloaded: isFolder, isMostRecentVersionDownloaded: isFolder, isShared: shared,
      ownerName: o["owner"]?.string, mostRecentEditorName: o["mostRecentEditor"]?.string, userInfo: userInfo,
      decorations: (o["decorations"]?.array ?? []).compactMap(\.string).map(DecorationIdentifier.init),
      symlinkTargetPath: o["symlinkTarget"]?.string.map(ItemPath.init),
      posixPermissions: o["mode"]?.int64.map { UInt32(truncatingIfNeeded: $0) & 0o7777 })
  }

  /// The item's name, checked with ItemName's rules: `nameBytes` (base64) only from an extension
  /// that declared `byteNames`.
  static func name(_ o: [String: JSONValue], caps: ExtensionCapabilities, isRoot: Bool) throws(ProviderError) -> ItemName {
    if caps.byteNames, let b64 = o["nameBytes"]?.string {
      guard let data = Data(base64Encoded: b64) else { throw ProviderError(.invalidArgument, "nameBytes is not base64") }
      return try ItemName.validated(Array(data))
    }
    guard let text = o["name"]?.string else { throw ProviderError(.invalidArgument, "an item without a name") }
    if isRoot && text.isEmpty { return ItemName("/") }
    return try ItemName.validated(text)
  }

  /// `{"content":"1","metadata":"1"}`; a number is read as its decimal text.
  static func version(_ json: JSONValue?) throws(ProviderError) -> ItemVersion {
    func part(_ v: JSONValue?) -> String {
      switch v {
      case .string(let s)?: return s
      case .number(let n)?: return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
      default: return ""
      }
    }
    return try ItemVersion(content: part(json?["content"]), metadata: part(json?["metadata"]))
  }

  static func json(_ version: ItemVersion) -> JSONValue {
    [
      "content": .string(String(decoding: version.content, as: UTF8.self)),
      "metadata": .string(String(decoding: version.metadata, as: UTF8.self)),
    ]
  }

  /// The name as the wire carries it: `name`, plus `nameBytes` for one that is not UTF-8 (only
  /// to an extension that declared `byteNames`).
  static func nameFields(_ name: ItemName, caps: ExtensionCapabilities) throws(ProviderError) -> [String: JSONValue] {
    if let text = name.utf8String { return ["name": .string(text)] }
    guard caps.byteNames else {
      throw ProviderError(.invalidArgument, "\(name.displayString): this location keeps names as text (UTF-8)")
    }
    return ["name": .string(name.lossyString), "nameBytes": .string(name.base64)]
  }

  static func template(_ t: ItemTemplate, caps: ExtensionCapabilities) throws(ProviderError) -> JSONValue {
    var o = try nameFields(t.filename, caps: caps)
    if let id = t.identifier { o["id"] = .string(id.rawValue) }
    o["parent"] = .string(t.parentIdentifier.rawValue)
    o["kind"] = .string(t.contentType == .folder ? "folder" : t.contentType == .symlink ? "symlink" : "file")
    if let d = t.creationDate { o["created"] = .number(d.timeIntervalSince1970) }
    if let d = t.contentModificationDate { o["modified"] = .number(d.timeIntervalSince1970) }
    if let d = t.lastUsedDate { o["lastUsed"] = .number(d.timeIntervalSince1970) }
    o["tags"] = .array(t.tags.map { .string($0) })
    o["favoriteRank"] = t.favoriteRank.map { .number(Double($0)) } ?? .null
    return .object(o)
  }

  static func fields(_ f: ItemFields) -> JSONValue {
    var out: [JSONValue] = []
    if f.contains(.filename) { out.append("name") }
    if f.contains(.parentItemIdentifier) { out.append("parent") }
    if f.contains(.contents) { out.append("contents") }
    if f.contains(.contentModificationDate) { out.append("modified") }
    if f.contains(.tagData) { out.append("tags") }
    if f.contains(.favoriteRank) { out.append("favoriteRank") }
    if f.contains(.lastUsedDate) { out.append("lastUsed") }
    return .array(out)
  }
}
