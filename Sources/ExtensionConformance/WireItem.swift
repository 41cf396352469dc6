import Foundation

/// An item as an extension described it, with the fields the checks read.
struct WireItem {
  var raw: JSONValue
  var id: String
  var parent: String
  var name: String
  var nameBytes: [UInt8]
  var kind: String
  var content: String
  var metadata: String
  var size: Int?
  var sha256: String?

  /// Parses an item; the reason when a required field is missing.
  static func parse(_ value: JSONValue?) -> Result<WireItem, CheckFailure> {
    guard let value, value.object != nil else { return .failure(CheckFailure("not an item: \(value?.compact ?? "nothing")")) }
    guard let id = value["id"]?.string, !id.isEmpty else { return .failure(CheckFailure("an item without an id")) }
    guard let parent = value["parent"]?.string else { return .failure(CheckFailure("item \(id) has no parent")) }
    guard let name = value["name"]?.string else { return .failure(CheckFailure("item \(id) has no name")) }
    guard let kind = value["kind"]?.string, ["file", "folder", "symlink"].contains(kind) else {
      return .failure(CheckFailure("item \(id) has no kind file, folder or symlink"))
    }
    guard let version = value["version"], let content = version["content"]?.text, let metadata = version["metadata"]?.text
    else { return .failure(CheckFailure("item \(id) has no version {content, metadata}")) }
    var bytes = Array(name.utf8)
    if let b64 = value["nameBytes"]?.string {
      guard let data = Data(base64Encoded: b64) else { return .failure(CheckFailure("item \(id): nameBytes is not base64")) }
      bytes = Array(data)
    }
    return .success(
      WireItem(
        raw: value, id: id, parent: parent, name: name, nameBytes: bytes, kind: kind, content: content,
        metadata: metadata, size: value["size"]?.int, sha256: value["sha256"]?.string))
  }
}

/// The extension's answer to `initialize`, read into what the kit decides by.
struct DeclaredCapabilities {
  var raw: JSONValue = [:]
  var feed = true
  var byteNames = false
  var ranges = false
  var fetchSHA256 = false
  var create = false
  var modify: Set<String> = []
  var delete = false
  var trash = false
  var pathIdentity = false
  var metadataDepth = 4
  var downloads = 2

  init() {}

  init(_ capabilities: JSONValue?) {
    guard let c = capabilities else { return }
    raw = c
    feed = c["changes"]?["feed"]?.bool ?? true
    byteNames = c["byteNames"]?.bool ?? false
    ranges = c["fetch"]?["ranges"]?.bool ?? false
    fetchSHA256 = c["fetch"]?["sha256"]?.bool ?? false
    if let w = c["write"], w.object != nil {
      create = w["create"]?.bool ?? false
      modify = Set(w["modify"]?.array?.compactMap(\.string) ?? [])
      delete = w["delete"]?.bool ?? false
      trash = w["trash"]?.bool ?? false
    }
    pathIdentity = c["identity"]?.string == "path"
    metadataDepth = c["concurrency"]?["metadata"]?.int ?? 4
    downloads = c["concurrency"]?["downloads"]?.int ?? 2
  }

  var readOnly: Bool { !create && modify.isEmpty && !delete }
}
