import Foundation

// Request and response bodies of docs/PROTOCOL.md. Every body is JSON (UTF-8), except content.

/// `POST /v1/login`.
public struct LoginRequest: Codable, Sendable {
  public var user: String
  public var password: String
  public init(user: String, password: String) {
    self.user = user
    self.password = password
  }
}

/// The answer to a login: a bearer token for `Authorization: Bearer …`.
public struct LoginResponse: Codable, Sendable {
  public var token: String
  public var user: String
  /// Seconds since 1970 when the token stops working.
  public var expires: Double
  public init(token: String, user: String, expires: Double) {
    self.token = token
    self.user = user
    self.expires = expires
  }
}

/// `GET /v1/items/{id}/children`: one page of a folder.
public struct PageResponse: Codable, Sendable {
  public var items: [WireItem]
  /// Opaque, at most 500 bytes; nil on the last page.
  public var nextPage: String?
  /// Children in the folder at the time of the request.
  public var total: Int
  public init(items: [WireItem], nextPage: String?, total: Int) {
    self.items = items
    self.nextPage = nextPage
    self.total = total
  }
}

/// `GET /v1/anchor`.
public struct AnchorResponse: Codable, Sendable {
  public var anchor: String
  public init(anchor: String) { self.anchor = anchor }
}

/// `GET /v1/changes?since=…`: one batch of the change log, oldest first.
public struct ChangesResponse: Codable, Sendable {
  public var updated: [WireItem]
  public var deleted: [String]
  /// The anchor to ask from next.
  public var anchor: String
  /// More changes are waiting: ask again at once with `anchor`.
  public var more: Bool
  public init(updated: [WireItem], deleted: [String], anchor: String, more: Bool) {
    self.updated = updated
    self.deleted = deleted
    self.anchor = anchor
    self.more = more
  }
}

/// `GET /v1/changes/wait?since=…&timeout=S`: the long-poll's answer.
public struct WaitResponse: Codable, Sendable {
  /// True as soon as the log has moved past `since`; false when the timeout passed first.
  public var changed: Bool
  public var anchor: String
  public init(changed: Bool, anchor: String) {
    self.changed = changed
    self.anchor = anchor
  }
}

/// `POST /v1/items`: a new folder.
public struct CreateFolderRequest: Codable, Sendable {
  public var parent: String
  public var name: String
  public init(parent: String, name: String) {
    self.parent = parent
    self.name = name
  }
}

/// `PATCH /v1/items/{id}`: the fields present change; absent ones stay. `favoriteRank: 0`
/// removes the favorite (ranks start at 1).
public struct ModifyRequest: Codable, Sendable {
  public var name: String?
  public var parent: String?
  public var tags: [String]?
  public var favoriteRank: UInt64?
  public var lastUsed: Double?
  /// The metadata revision the change was based on. A rename or move based on a stale revision is
  /// still applied (the server's copy has no unsaved bytes), but answered with the new revision.
  public var baseMetadata: Int64?
  public init(
    name: String? = nil, parent: String? = nil, tags: [String]? = nil, favoriteRank: UInt64? = nil,
    lastUsed: Double? = nil, baseMetadata: Int64? = nil
  ) {
    self.name = name
    self.parent = parent
    self.tags = tags
    self.favoriteRank = favoriteRank
    self.lastUsed = lastUsed
    self.baseMetadata = baseMetadata
  }
}

/// `POST /v1/items/{id}/restore`: out of the trash, to `parent` or (nil) where it was.
public struct RestoreRequest: Codable, Sendable {
  public var parent: String?
  /// Restore under this name instead of its own ("Keep Both" when its name is taken). Absent
  /// from older clients: the item keeps its name.
  public var name: String?
  public init(parent: String?, name: String? = nil) {
    self.parent = parent
    self.name = name
  }
}

/// `POST /v1/items/{id}/copy`.
public struct CopyRequest: Codable, Sendable {
  public var parent: String
  public var name: String?
  public init(parent: String, name: String?) {
    self.parent = parent
    self.name = name
  }
}

/// The answer to a content upload (`PUT /v1/items/{id}/content`, `POST /v1/uploads`).
public struct UploadResponse: Codable, Sendable {
  /// The item as it is now on the server. After a conflict, the server's ("their") version.
  public var item: WireItem
  /// False when the base revision was stale: the uploaded bytes were kept as `conflictCopy`.
  public var contentAccepted: Bool
  public var conflictCopy: WireItem?
  public init(item: WireItem, contentAccepted: Bool, conflictCopy: WireItem?) {
    self.item = item
    self.contentAccepted = contentAccepted
    self.conflictCopy = conflictCopy
  }
}

/// `POST /v1/conflicts/{copyId}/resolve`: what to keep of a conflict copy and its original.
public struct ResolveConflictRequest: Codable, Sendable {
  public enum Keep: String, Codable, Sendable {
    /// The conflict copy's bytes become the original's new content; the copy goes away.
    case copy
    /// The original stays as it is; the copy goes to the trash.
    case original
    /// Both stay as two items; the conflict marks go.
    case both
  }
  public var keep: Keep
  public init(keep: Keep) { self.keep = keep }
}

/// `GET /v1/declarations`: the custom actions and decorations the server declares.
public struct DeclarationsResponse: Codable, Sendable {
  public struct Action: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    /// An activation rule in Folio's predicate language (ProviderAPI.ActivationRule).
    public var rule: String
    public init(id: String, name: String, rule: String) {
      self.id = id
      self.name = name
      self.rule = rule
    }
  }
  public struct Decoration: Codable, Sendable, Equatable {
    public var id: String
    /// "badge", "sharing" or "folderBadge".
    public var category: String
    /// `%@` is replaced by the item's userInfo value under `labelKey`.
    public var label: String
    public var labelKey: String?
    public var glyph: String
    public var asciiGlyph: String
    public init(id: String, category: String, label: String, labelKey: String?, glyph: String, asciiGlyph: String) {
      self.id = id
      self.category = category
      self.label = label
      self.labelKey = labelKey
      self.glyph = glyph
      self.asciiGlyph = asciiGlyph
    }
  }
  public var actions: [Action]
  public var decorations: [Decoration]
  public init(actions: [Action], decorations: [Decoration]) {
    self.actions = actions
    self.decorations = decorations
  }
}

/// `POST /v1/actions/{id}`.
public struct PerformActionRequest: Codable, Sendable {
  public var items: [String]
  public init(items: [String]) { self.items = items }
}

/// `GET /v1/account`: who is signed in, and their quota.
public struct AccountResponse: Codable, Sendable {
  public var user: String
  public var usedBytes: Int64
  /// nil: no quota.
  public var quotaBytes: Int64?
  public init(user: String, usedBytes: Int64, quotaBytes: Int64?) {
    self.user = user
    self.usedBytes = usedBytes
    self.quotaBytes = quotaBytes
  }
}
