import Foundation
import ProviderAPI

/// An item as the command line prints it with `--json`.
///
/// `name` and `path` are the exact text when the bytes are valid UTF-8; otherwise they carry the
/// visible escape of the bytes and `nameBytes` / `pathBytes` carry the exact bytes in base64.
struct ItemJSON: Encodable {
  var id: String
  var name: String
  var nameBytes: String?
  var path: String
  var pathBytes: String?
  var location: String
  var kind: String
  var contentType: String
  var size: Int64?
  var modified: String?
  var created: String?
  var tags: [String]
  var favorite: Bool
  var lastUsed: String?
  var originalPath: String?
  var trashed: String?
  var symlinkTarget: String?
  var capabilities: [String]?
  var version: String?
  var permissions: String?
  var decorations: [String]?
  var userInfo: [String: String]?
  /// Why the item is listed by name only (``Item/metadataError``); absent otherwise.
  var error: String?
  /// Recents and search: true for an entry whose item can no longer be found (absent otherwise).
  var missing: Bool?
  /// Recents and search print `lastUsed` always (`null` for an item never opened, such as one
  /// only tagged): it is the field those listings are ordered by.
  var alwaysHasLastUsed = false

  nonisolated(unsafe) static let dateFormatter: ISO8601DateFormatter = {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime]
    return f
  }()

  init(_ item: Item, location: String, detailed: Bool = false) {
    func text<B: ByteString>(_ b: B) -> (String, String?) {
      if let s = b.utf8String { return (s, nil) }
      return (b.displayString, b.base64)
    }
    id = item.identifier.rawValue
    (name, nameBytes) = text(item.filename)
    (path, pathBytes) = text(item.path)
    self.location = location
    kind = item.kind.rawValue
    contentType = item.contentType.identifier
    size = item.documentSize
    modified = item.contentModificationDate.map(Self.dateFormatter.string)
    created = item.creationDate.map(Self.dateFormatter.string)
    tags = item.tags
    favorite = item.isFavorite
    lastUsed = item.lastUsedDate.map(Self.dateFormatter.string)
    originalPath = item.originalPath.map { text($0).0 }
    trashed = item.trashedDate.map(Self.dateFormatter.string)
    symlinkTarget = item.symlinkTargetPath.map { text($0).0 }
    error = item.metadataError?.message
    if detailed {
      capabilities = item.capabilities.names
      version = item.version.displayString
      permissions = item.posixPermissions.map { String($0, radix: 8) }
      decorations = item.decorations.map(\.rawValue)
      userInfo = item.userInfo.isEmpty ? nil : item.userInfo.mapValues(\.description)
    }
  }

  private enum CodingKeys: String, CodingKey {
    case id, name, nameBytes, path, pathBytes, location, kind, contentType, size, modified, created, tags, favorite
    case lastUsed, originalPath, trashed, symlinkTarget, capabilities, version, permissions, decorations, userInfo
    case error, missing
  }

  /// The fields every item carries are always present, `null` when unknown (a folder's size), so
  /// that a script can rely on the keys; the synthesized encoding would leave them out. Extra
  /// fields appear only when they apply.
  func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(id, forKey: .id)
    try c.encode(name, forKey: .name)
    try c.encodeIfPresent(nameBytes, forKey: .nameBytes)
    try c.encode(path, forKey: .path)
    try c.encodeIfPresent(pathBytes, forKey: .pathBytes)
    try c.encode(location, forKey: .location)
    try c.encode(kind, forKey: .kind)
    try c.encode(contentType, forKey: .contentType)
    try c.encode(size, forKey: .size)
    try c.encode(modified, forKey: .modified)
    try c.encodeIfPresent(created, forKey: .created)
    try c.encode(tags, forKey: .tags)
    try c.encode(favorite, forKey: .favorite)
    if alwaysHasLastUsed {
      try c.encode(lastUsed, forKey: .lastUsed)
    } else {
      try c.encodeIfPresent(lastUsed, forKey: .lastUsed)
    }
    try c.encodeIfPresent(originalPath, forKey: .originalPath)
    try c.encodeIfPresent(trashed, forKey: .trashed)
    try c.encodeIfPresent(symlinkTarget, forKey: .symlinkTarget)
    try c.encodeIfPresent(capabilities, forKey: .capabilities)
    try c.encodeIfPresent(version, forKey: .version)
    try c.encodeIfPresent(permissions, forKey: .permissions)
    try c.encodeIfPresent(decorations, forKey: .decorations)
    try c.encodeIfPresent(userInfo, forKey: .userInfo)
    try c.encodeIfPresent(error, forKey: .error)
    try c.encodeIfPresent(missing, forKey: .missing)
  }

  static func encode<T: Encodable>(_ value: T) -> String {
    let e = JSONEncoder()
    e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    guard let d = try? e.encode(value) else { return "null" }
    return String(decoding: d, as: UTF8.self)
  }
}
