import FolioProtocol
import Foundation
import ProviderAPI

/// Turns what a FolioServer sends into `Item`s, and refuses anything that could become a path.
///
/// The server promises valid names (docs/PROTOCOL.md, "Items"), but a client must not trust it: a
/// hostile or broken server could send `..`, `a/b` or `/etc/passwd` as a name, an identifier that
/// collides with Folio's reserved ones, or a listing whose entries belong to another folder
/// (test-plan N01, F08; rclone's "doesn't belong in directory"). Every such item is refused with
/// `cannotSynchronize` and a message saying what was wrong; a listing or change batch holding one
/// is refused whole, so nothing is ever half-applied.
///
/// A name such as `..\x` is a plain name on Linux (the backslash is not a separator) and other
/// clients may legitimately create it: it is kept, as one component, never split or resolved.
package struct WireItemMapper: Sendable {
  /// What the root folder is called (the domain's display name): the server's root has no name.
  let rootName: ItemName
  /// The signed-in user: a file another user locked is not writable for us.
  let user: String

  package init(rootName: ItemName, user: String) {
    self.rootName = rootName
    self.user = user
  }

  static let trashName = ItemName("Recently Deleted")

  // MARK: Identifiers

  /// The identifier of a server id: `root` and `trash` are the reserved containers.
  ///
  /// An id is opaque, but it may name a cache file or show up in a log, so it must be plain:
  /// printable ASCII without `/` or `\`, not `.` or `..`, at most 255 bytes, and not starting with
  /// `#` (Folio's own reserved identifiers, `#root`, `#trash`, `#working-set`, start with it).
  package static func identifier(_ raw: String) throws(ProviderError) -> ItemIdentifier {
    if raw == WireItem.rootID { return .root }
    if raw == WireItem.trashID { return .trash }
    let bytes = Array(raw.utf8)
    let plain = bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != 0x2F && $0 != 0x5C }
    guard !bytes.isEmpty, bytes.count <= 255, plain, raw != ".", raw != "..", bytes.first != 0x23 else {
      throw ProviderError(
        .cannotSynchronize, "the server sent an invalid item identifier '\(TerminalText.escape(raw))'")
    }
    return ItemIdentifier(raw)
  }

  /// The server id of an identifier.
  static func wireID(_ id: ItemIdentifier) throws(ProviderError) -> String {
    if id == .root { return WireItem.rootID }
    if id == .trash { return WireItem.trashID }
    if id == .workingSet {
      throw ProviderError(.featureUnsupported, "the working set is not an item on a Folio server")
    }
    return id.rawValue
  }

  // MARK: Versions

  /// Revisions as decimal strings: `{content: "3", metadata: "5"}`.
  static func version(_ v: WireVersion) -> ItemVersion {
    (try? ItemVersion(content: String(v.content), metadata: String(v.metadata))) ?? .empty
  }

  /// The content revision of a version this provider made, or nil.
  static func contentRevision(_ v: ItemVersion) -> Int64? { revision(v.content) }

  /// The metadata revision of a version this provider made, or nil.
  static func metadataRevision(_ v: ItemVersion) -> Int64? { revision(v.metadata) }

  private static func revision(_ data: Data) -> Int64? {
    guard !data.isEmpty, data.count <= 19, data.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
    return Int64(String(decoding: data, as: UTF8.self))
  }

  // MARK: Names and paths

  /// A name the server sent, checked as a name read from a disk would be.
  static func name(_ raw: String, of id: String) throws(ProviderError) -> ItemName {
    do {
      return try ItemName.validated(Array(raw.utf8))
    } catch {
      throw ProviderError(
        .cannotSynchronize,
        "the server sent an invalid name '\(TerminalText.escape(raw))' for item \(TerminalText.escape(id)): \(error.message)")
    }
  }

  /// A path the server sent: absolute, every component a valid name.
  static func path(_ raw: String, of id: String) throws(ProviderError) -> ItemPath {
    let bytes = Array(raw.utf8)
    guard bytes.first == 0x2F else {
      throw ProviderError(
        .cannotSynchronize, "the server sent a relative path '\(TerminalText.escape(raw))' for item \(TerminalText.escape(id))")
    }
    if bytes == [0x2F] { return .root }
    for component in bytes.dropFirst().split(separator: 0x2F, omittingEmptySubsequences: false) {
      do {
        _ = try ItemName.validated(Array(component))
      } catch {
        throw ProviderError(
          .cannotSynchronize,
          "the server sent an invalid path '\(TerminalText.escape(raw))' for item \(TerminalText.escape(id)): \(error.message)")
      }
    }
    return ItemPath(bytes: bytes)
  }

  // MARK: Items

  /// One item, checked.
  package func item(_ w: WireItem) throws(ProviderError) -> Item {
    let id = try Self.identifier(w.id)
    if id == .root || id == .trash { return container(id, w) }
    let parent = try Self.identifier(w.parent)
    let name = try Self.name(w.name, of: w.id)
    let path = try Self.path(w.path, of: w.id)
    guard path.lastComponent == name else {
      throw ProviderError(
        .cannotSynchronize,
        "the server sent item \(TerminalText.escape(w.id)) named '\(name.displayString)' at '\(path.displayString)'")
    }
    let type: ContentType
    switch w.kind {
    case "folder": type = .folder
    case "file": type = ContentType.forExtension(name.pathExtension)
    default:
      throw ProviderError(
        .cannotSynchronize, "the server sent item \(TerminalText.escape(w.id)) of unknown kind '\(TerminalText.escape(w.kind))'")
    }
    if let size = w.size, size < 0 {
      throw ProviderError(.cannotSynchronize, "the server sent a negative size for item \(TerminalText.escape(w.id))")
    }
    let originalPath = try w.originalPath.map { (p: String) throws(ProviderError) -> ItemPath in try Self.path(p, of: w.id) }
    if let original = w.originalParent { _ = try Self.identifier(original) }

    let isFolder = type == .folder
    let trashed = parent == .trash
    var userInfo: [String: UserInfoValue] = [:]
    for (key, value) in w.userInfo {
      switch value {
      case .string(let s): userInfo[key] = .string(s)
      case .number(let n): userInfo[key] = .number(n)
      case .bool(let b): userInfo[key] = .bool(b)
      }
    }
    var capabilities: ItemCapabilities
    if trashed {
      capabilities = [.reading, .deleting, .reparenting]
    } else {
      capabilities = [.reading, .writing, .reparenting, .renaming, .trashing, .deleting]
      if !isFolder { capabilities.insert(.evicting) }
      // The server refuses content from anyone but the user who locked the file.
      if userInfo["locked"] == .bool(true), case .string(let by)? = userInfo["lockedBy"], by != user {
        capabilities.remove(.writing)
      }
    }
    return Item(
      identifier: id, parentIdentifier: parent, filename: name, path: path, contentType: type,
      capabilities: capabilities, version: Self.version(w.version), documentSize: isFolder ? nil : (w.size ?? 0),
      childItemCount: w.childCount, creationDate: w.created.map(Date.init(timeIntervalSince1970:)),
      contentModificationDate: w.modified.map(Date.init(timeIntervalSince1970:)),
      lastUsedDate: w.lastUsed.map(Date.init(timeIntervalSince1970:)), tags: w.tags, favoriteRank: w.favoriteRank,
      originalPath: originalPath, trashedDate: w.trashed.map(Date.init(timeIntervalSince1970:)),
      // Content is never local until the core materializes it.
      isDownloaded: isFolder, isMostRecentVersionDownloaded: isFolder, isShared: w.shared,
      ownerName: w.shared ? w.owner : nil, mostRecentEditorName: w.mostRecentEditor, userInfo: userInfo,
      decorations: w.decorations.map(DecorationIdentifier.init))
  }

  /// The root folder or the trash container, named by Folio (the server's names are not shown).
  private func container(_ id: ItemIdentifier, _ w: WireItem) -> Item {
    let isRoot = id == .root
    return Item(
      identifier: id, parentIdentifier: .root, filename: isRoot ? rootName : Self.trashName, path: .root,
      contentType: .folder, capabilities: isRoot ? [.reading, .writing] : [.reading, .deleting],
      version: Self.version(w.version), childItemCount: w.childCount,
      creationDate: w.created.map(Date.init(timeIntervalSince1970:)),
      contentModificationDate: w.modified.map(Date.init(timeIntervalSince1970:)))
  }

  /// Every item of a listing or change batch, or an error for the first bad one (the whole batch
  /// is refused).
  ///
  /// - Parameter container: For a folder listing, the folder: every entry must be its child, and
  ///   no name or identifier may appear twice.
  func items(_ wire: [WireItem], in container: ItemIdentifier? = nil) throws(ProviderError) -> [Item] {
    var out: [Item] = []
    out.reserveCapacity(wire.count)
    var ids = Set<ItemIdentifier>()
    var names = Set<ItemName>()
    for w in wire {
      let item = try item(w)
      guard ids.insert(item.identifier).inserted else {
        throw ProviderError(.cannotSynchronize, "the server listed item \(TerminalText.escape(w.id)) twice")
      }
      if let container {
        guard item.parentIdentifier == container, !item.identifier.isReserved else {
          throw ProviderError(
            .cannotSynchronize,
            "the server listed item \(TerminalText.escape(w.id)) ('\(item.filename.displayString)') in a folder it does not belong to")
        }
        // The trash may hold several items of one name; a folder may not.
        guard container == .trash || names.insert(item.filename).inserted else {
          throw ProviderError(.cannotSynchronize, "the server listed the name '\(item.filename.displayString)' twice in one folder")
        }
      }
      out.append(item)
    }
    return out
  }
}
