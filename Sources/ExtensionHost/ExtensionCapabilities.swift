import Foundation
import ProviderAPI

/// What an extension said it can do in its `initialize` answer (docs/EXTENSIONS.md §3), with
/// the protocol's conservative defaults for everything it left out.
public struct ExtensionCapabilities: Sendable, Equatable {
  public var sorts: Set<String> = ["name"]
  public var push = false
  public var pollSeconds: Double = 60
  public var feed = true
  public var pathIdentity = false
  public var byteNames = false
  public var ranges = false
  public var sha256 = false
  public var metadataConcurrency = 4
  public var downloadConcurrency = 2
  public var uploadConcurrency = 1
  public var canCreate = false
  public var modifies: Set<String> = []
  public var canDelete = false
  public var hasTrash = false
  public var canCopy = false
  public var canRestore = false
  public var authFields: [String] = []
  public var authHint: String?
  public var about = false

  public init() {}

  public init(_ json: JSONValue?) {
    guard let c = json?.object else { return }
    if let s = c["enumerate"]?["sorts"]?.array { sorts = Set(s.compactMap(\.string)) }
    if let ch = c["changes"] {
      push = ch["push"]?.bool ?? false
      pollSeconds = max(1, ch["pollSeconds"]?.number ?? 60)
      feed = ch["feed"]?.bool ?? true
    }
    pathIdentity = c["identity"]?.string == "path"
    byteNames = c["byteNames"]?.bool ?? false
    ranges = c["fetch"]?["ranges"]?.bool ?? false
    sha256 = c["fetch"]?["sha256"]?.bool ?? false
    func limit(_ key: String, _ fallback: Int) -> Int { min(128, max(1, c["concurrency"]?[key]?.int ?? fallback)) }
    metadataConcurrency = limit("metadata", 4)
    downloadConcurrency = limit("downloads", 2)
    uploadConcurrency = limit("uploads", 1)
    if let w = c["write"]?.object {
      canCreate = w["create"]?.bool ?? false
      modifies = Set((w["modify"]?.array ?? []).compactMap(\.string))
      canDelete = w["delete"]?.bool ?? false
      hasTrash = w["trash"]?.bool ?? false
      canCopy = w["copy"]?.bool ?? false
      canRestore = w["restore"]?.bool ?? false
    }
    authFields = (c["auth"]?["fields"]?.array ?? []).compactMap(\.string)
    authHint = c["auth"]?["hint"]?.string
    about = c["about"]?.bool ?? false
  }

  public var isReadOnly: Bool { !canCreate && modifies.isEmpty && !canDelete }

  /// The traits the core and the browser read. Content is always synced (bytes come through the
  /// staging folder into the cache); conditional writes are honoured wherever content can be
  /// written, since the protocol requires a stale `baseVersion` never to lose bytes.
  public var traits: ProviderTraits {
    ProviderTraits(
      content: .synced, changeFeed: feed ? (push ? .push : .pull) : .none, identity: pathIdentity ? .pathKeyed : .stable,
      hasTrash: hasTrash, rangedReads: ranges, conditionalWrites: modifies.contains("contents") ? .honoured : .unknown,
      contentHash: sha256 ? .sha256 : .none, storesFavorites: modifies.contains("favoriteRank"), namesAreBytes: byteNames,
      storesTags: modifies.contains("tags"))
  }

  /// What an item may do when it does not list its own `capabilities`.
  func defaultItemCapabilities(isFolder: Bool, isRoot: Bool) -> ItemCapabilities {
    var caps: ItemCapabilities = [.reading]
    if isFolder ? canCreate : modifies.contains("contents") { caps.insert(.writing) }
    if isRoot { return caps }
    if modifies.contains("name") { caps.insert(.renaming) }
    if modifies.contains("parent") { caps.insert(.reparenting) }
    if canDelete { caps.insert(.deleting) }
    if hasTrash { caps.insert(.trashing) }
    if !isFolder { caps.insert(.evicting) }
    return caps
  }
}
