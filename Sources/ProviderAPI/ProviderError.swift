/// An error a provider (or the core) reports, carrying a File Provider code.
///
/// Errors are values: a `Code` (a struct, so new codes don't break clients), a one-line message
/// meant for a person, and for collisions the identifier of the existing item. Four codes are
/// *resolvable* (File Provider semantics §3): the operation is throttled until something resolves
/// the condition (a sign-in, the network coming back, freed quota, a user action) rather than being
/// retried blindly.
public struct ProviderError: Error, Sendable, Equatable, CustomStringConvertible {
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public let name: String
    public init(_ rawValue: Int, _ name: String) {
      self.rawValue = rawValue
      self.name = name
    }
    public static func == (a: Code, b: Code) -> Bool { a.rawValue == b.rawValue }
    public func hash(into h: inout Hasher) { h.combine(rawValue) }
    public var description: String { name }

    // NSFileProviderError codes.
    public static let notAuthenticated = Code(-1000, "notAuthenticated")
    public static let filenameCollision = Code(-1001, "filenameCollision")
    public static let syncAnchorExpired = Code(-1002, "syncAnchorExpired")
    /// Same value as syncAnchorExpired in the File Provider API.
    public static let pageExpired = Code(-1002, "pageExpired")
    public static let insufficientQuota = Code(-1003, "insufficientQuota")
    public static let serverUnreachable = Code(-1004, "serverUnreachable")
    public static let noSuchItem = Code(-1005, "noSuchItem")
    public static let deletionRejected = Code(-1006, "deletionRejected")
    public static let directoryNotEmpty = Code(-1007, "directoryNotEmpty")
    public static let cannotSynchronize = Code(-2005, "cannotSynchronize")
    public static let nonEvictableChildren = Code(-2006, "nonEvictableChildren")
    public static let unsyncedEdits = Code(-2007, "unsyncedEdits")
    public static let nonEvictable = Code(-2008, "nonEvictable")
    public static let versionNoLongerAvailable = Code(-2009, "versionNoLongerAvailable")
    public static let excludedFromSync = Code(-2010, "excludedFromSync")
    /// An upload based on a stale version: the server kept both versions (the item carries it as
    /// its `uploadingError`; `existingItem` names the server's conflict copy).
    public static let localVersionConflictingWithServer = Code(-2015, "localVersionConflictingWithServer")
    // Cocoa codes the File Provider system also lets through.
    public static let noPermission = Code(257, "noPermission")
    public static let cancelled = Code(3072, "cancelled")
    public static let featureUnsupported = Code(3328, "featureUnsupported")
    // Folio's own, for failures that are neither of the above.
    public static let invalidArgument = Code(1, "invalidArgument")
    public static let ioError = Code(2, "ioError")
    public static let badRule = Code(3, "badRule")
    public static let badConfig = Code(4, "badConfig")
    public static let tokenTooLarge = Code(5, "tokenTooLarge")
    public static let readOnly = Code(6, "readOnly")
    /// The server is overloaded or down for a moment (HTTP 5xx, 429): transient, retried with
    /// backoff, never a resolvable latch. `retryAfter` carries the server's hint when it gave one.
    public static let serverBusy = Code(7, "serverBusy")
    /// Another user holds a lock on the item: their server refuses this user's content (and
    /// renames, moves) until the lock is released. Trying again cannot help before that.
    public static let itemLocked = Code(8, "itemLocked")
    /// The server is not provably the one this computer knows (an SSH host key changed). Not a
    /// sign-in: no password can fix it, only the person, after checking, can (known_hosts).
    public static let serverNotTrusted = Code(9, "serverNotTrusted")
  }

  public let code: Code
  public let message: String
  /// For `filenameCollision`: the item already holding the name.
  public let existingItem: ItemIdentifier?
  /// An errno or similar underlying number, for diagnostics.
  public let underlying: Int32?
  /// Seconds the server asked to wait before trying again (`Retry-After`), for transient errors.
  public let retryAfter: Double?

  public init(
    _ code: Code, _ message: String, existingItem: ItemIdentifier? = nil, underlying: Int32? = nil,
    retryAfter: Double? = nil
  ) {
    self.code = code
    self.message = message
    self.existingItem = existingItem
    self.underlying = underlying
    self.retryAfter = retryAfter
  }

  /// Resolvable errors latch a throttled state until they are resolved (FP semantics §3).
  public var isResolvable: Bool {
    [Code.notAuthenticated, .serverUnreachable, .insufficientQuota, .cannotSynchronize, .serverNotTrusted].contains(code)
  }

  /// A short suggestion of what the user can do, shown in Info and on the status line.
  public var recoverySuggestion: String? {
    switch code {
    case .notAuthenticated: return "Sign in to the location again."
    case .serverUnreachable: return "Check the network; Folio retries when the server is back."
    case .insufficientQuota: return "Free space on the server, then retry."
    case .cannotSynchronize: return "Retry after changing the item."
    case .filenameCollision: return "Choose another name."
    case .noPermission: return "Check the permissions of the item and its folder."
    case .syncAnchorExpired: return "Folio re-reads the folder."
    case .serverBusy: return "The server is busy; Folio retries in a moment."
    case .itemLocked: return "Ask whoever locked it to unlock it, then Retry; your edits are kept here."
    case .localVersionConflictingWithServer: return "Both versions were kept; resolve the conflict."
    case .serverNotTrusted: return "Check with the server's administrator that its key really changed; then update known_hosts."
    default: return nil
    }
  }

  public var description: String { message }

  public static func == (a: ProviderError, b: ProviderError) -> Bool {
    a.code == b.code && a.message == b.message && a.existingItem == b.existingItem
  }

  public static func noSuchItem(_ what: String) -> ProviderError {
    ProviderError(.noSuchItem, "no such item: \(what)")
  }

  public static let cancelledError = ProviderError(.cancelled, "cancelled")
}
