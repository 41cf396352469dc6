import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Creates, modifies, deletes, copies, restores; actions and sign-in (docs/EXTENSIONS.md §4).
extension ExtensionProvider {
  public func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    let caps = currentCapabilities
    guard caps.canCreate else { throw ProviderError(.readOnly, "\(launch.displayName) is read-only") }
    var params: [String: JSONValue] = [
      // The idempotency key: the same for every attempt of one journaled upload.
      "key": .string(template.uploadToken ?? UUID().uuidString.lowercased()),
      "template": try ExtensionItemCoding.template(template, caps: caps),
      "fields": ExtensionItemCoding.fields(fields.union(contents != nil ? .contents : [])),
      "options": ["mayAlreadyExist": .bool(options.contains(.mayAlreadyExist))],
    ]
    // Started first: a start empties the staging folder.
    if contents != nil { _ = try await supervisor.session() }
    let staged = try contents.map { (c: URL) throws(ProviderError) -> URL in try stageUpload(c) }
    defer { if let staged { unlink(staged.path) } }
    if let staged { params["contents"] = .string(staged.path) }
    let (json, answerCaps) = try await call(
      "createItem", .object(params), staged == nil ? .metadata : .upload, progress: Self.transferProgress(progress))
    return try await decode(json["item"] ?? .null, answerCaps)
  }

  public func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    let caps = currentCapabilities
    guard let id = template.identifier else { throw ProviderError(.invalidArgument, "a modify without an identifier") }
    var fields = changedFields
    if contents != nil { fields.insert(.contents) }
    let asked = Set(ExtensionItemCoding.fields(fields).array?.compactMap(\.string) ?? [])
    guard !asked.isEmpty else { return try await item(for: id, pathHint: nil) }
    let unsupported = asked.subtracting(caps.modifies)
    if !unsupported.isEmpty {
      let readOnly = caps.modifies.isEmpty
      throw ProviderError(
        readOnly ? .readOnly : .featureUnsupported,
        readOnly ? "\(launch.displayName) is read-only" : "this location cannot change \(unsupported.sorted().joined(separator: ", "))")
    }
    var t = template
    t.identifier = id
    var params: [String: JSONValue] = [
      "template": try ExtensionItemCoding.template(t, caps: caps), "baseVersion": ExtensionItemCoding.json(baseVersion),
      "fields": ExtensionItemCoding.fields(fields),
    ]
    // Started first: a start empties the staging folder.
    if contents != nil { _ = try await supervisor.session() }
    let staged = try contents.map { (c: URL) throws(ProviderError) -> URL in try stageUpload(c) }
    defer { if let staged { unlink(staged.path) } }
    if let staged { params["contents"] = .string(staged.path) }
    do throws(ProviderError) {
      let (json, answerCaps) = try await call(
        "modifyItem", .object(params), staged == nil ? .metadata : .upload, progress: Self.transferProgress(progress))
      return try await decode(json["item"] ?? .null, answerCaps)
    } catch where error.code == .localVersionConflictingWithServer && staged != nil {
      // FEP/1 says "both kept" with a -2015 answer; a Provider says it (as SFTP, S3 and a
      // FolioServer do) by returning the item as it is now with the conflict as its
      // uploadingError. Thrown, it read as a failed upload: the queue sent the bytes again and
      // every try left one more conflict copy.
      var current = try await item(for: id, pathHint: nil)
      current.uploadingError = error
      current.isMostRecentVersionDownloaded = false
      return current
    }
  }

  public func deleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError) {
    guard currentCapabilities.canDelete else { throw ProviderError(.readOnly, "\(launch.displayName) cannot delete") }
    var params: [String: JSONValue] = [
      "id": .string(identifier.rawValue), "recursive": .bool(options.contains(.recursive)),
    ]
    if let baseVersion { params["baseVersion"] = ExtensionItemCoding.json(baseVersion) }
    _ = try await call("deleteItem", .object(params), .metadata)
  }

  public func copyItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier, name: ItemName?) async throws(ProviderError) -> Item {
    let caps = currentCapabilities
    guard caps.canCopy else { throw ProviderError(.featureUnsupported, "this location cannot copy items") }
    var params: [String: JSONValue] = ["id": .string(identifier.rawValue), "parent": .string(parent.rawValue)]
    if let name { params.merge(try ExtensionItemCoding.nameFields(name, caps: caps)) { _, b in b } }
    let (json, answerCaps) = try await call("copyItem", .object(params), .metadata)
    return try await decode(json["item"] ?? .null, answerCaps)
  }

  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?) async throws(ProviderError) -> Item {
    try await restoreItem(identifier, to: parent, as: nil)
  }

  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?, as name: ItemName?) async throws(ProviderError)
    -> Item
  {
    let caps = currentCapabilities
    guard caps.canRestore else {
      // Without `restoreItem`, a modify of the parent out of #trash (the protocol's trash move).
      guard let parent, name == nil else {
        throw ProviderError(.featureUnsupported, "this location cannot restore items to their original place")
      }
      let item = try await item(for: identifier, pathHint: nil)
      var t = ItemTemplate(item)
      t.parentIdentifier = parent
      return try await modifyItem(t, baseVersion: item.version, changedFields: .parentItemIdentifier, contents: nil)
    }
    var params: [String: JSONValue] = ["id": .string(identifier.rawValue)]
    if let parent { params["parent"] = .string(parent.rawValue) }
    if let name { params.merge(try ExtensionItemCoding.nameFields(name, caps: caps)) { _, b in b } }
    let (json, answerCaps) = try await call("restoreItem", .object(params), .metadata)
    return try await decode(json["item"] ?? .null, answerCaps)
  }

  public func performAction(_ action: ActionIdentifier, on items: [ItemIdentifier]) async throws(ProviderError) {
    _ = try await call(
      "performAction", ["action": .string(action.rawValue), "ids": .array(items.map { .string($0.rawValue) })], .action)
  }

  public func authenticate(_ credentials: Credentials) async throws(ProviderError) {
    _ = try await call("authenticate", ["user": .string(credentials.user), "secret": .string(credentials.secret)], .authenticate)
  }

  static func transferProgress(_ progress: @escaping @Sendable (TransferProgress) -> Void) -> @Sendable (JSONValue) -> Void {
    { p in progress(TransferProgress(completedBytes: p["completed"]?.int64 ?? 0, totalBytes: p["total"]?.int64)) }
  }
}
