import Foundation
import ProviderAPI
import Synchronization
import WebDAVClient

/// A folder on a WebDAV server (Apache mod_dav, nginx, rclone, a NAS, Nextcloud's `/remote.php/dav`)
/// as a path-keyed provider (remote-providers.md §4).
///
/// Generic WebDAV has no change feed, no trash and no ids that survive a rename: the core polls
/// listings (`ListingPoller`) and re-keys what it keeps after a rename Folio made. A folder is read
/// whole with one streamed PROPFIND Depth 1 (never `infinity`) into a sorted snapshot that pages
/// are cut from (``FolderListingCache``).
///
/// **Versions.** `getetag` is the content version, kept without a weak `W/` prefix (Apache marks a
/// file's ETag weak while it is less than a second old, then strong: the same version); where a
/// server lists no ETag (nginx), its size and last-modified date are (``WebDAVVersion``).
///
/// **Conflicts.** Where the server honours `If-Match` (the probe of `folio domain add`, kept in the
/// domain), a replace is conditional on the base version; a refused one keeps the new bytes
/// beside the file under a conflict name. Where it does not, the file is read (PROPFIND Depth 0)
/// just before it is replaced, and `folio domain list`, `folio info` and the browser's Info say the
/// server cannot detect conflicting edits.
///
/// **Servers that write in place** (rclone's, wsgidav: the probe saw a reader get new bytes before
/// the PUT ended) get each upload to a temporary name beside the target and a MOVE over it, so an
/// interrupted upload never leaves a cut-short file under the real name.
public final class WebDAVProvider: Provider, PathKeyedProvider, FolderVersionReading, AccountStatusProviding, @unchecked Sendable {
  /// Where the password comes from when none was given yet: the credentials file, then the
  /// domain's `password_command`. Nil: there is none (the location asks to sign in).
  public typealias PasswordSource = @Sendable () async throws(ProviderError) -> String?

  public let domain: DomainIdentifier
  public let url: URL
  public let caFile: String?
  /// How long a listing or a probe waits for the answer to start (``WebDAVConfiguration/firstByteTimeout``).
  public let firstByteTimeout: Duration
  /// What the probe found the server does with conditional writes. The traits state an unprobed
  /// server as ignoring them: it is written to as one, and its location says it cannot detect
  /// conflicting edits (as `folio domain list` does).
  public let conditionalWrites: ProviderTraits.ConditionalWrites
  /// What the probe found about PUT: true (writes into the file itself), false (replaces it when
  /// complete), nil (not known: treated as true, the safe way).
  public let replacesInPlace: Bool?
  /// Nextcloud's (and ownCloud's) extensions, where the server speaks them.
  public let dialect: WebDAVDialect
  /// Nextcloud's trash bin for this location, when its URL has one.
  let trashbin: (url: URL, within: [UInt8])?
  /// Entries per page of a Nextcloud listing (`X-NC-Paginate-Count`): big enough that a folder
  /// of a few hundred entries is one request, small enough that each is short for the server.
  let nextcloudPageSize: Int
  /// Nextcloud's collection for chunked uploads, when the URL has one (``WebDAVDialect/uploads(of:)``).
  let uploadsURL: URL?
  /// When a Nextcloud upload goes in chunks, and their size.
  let chunking: NextcloudChunking
  /// Nextcloud's DAV root, where system tags are (``WebDAVDialect/davRoot(of:)``).
  let davRoot: URL?
  private let passwordSource: PasswordSource
  private let state: Mutex<(user: String, client: WebDAVClient?)>
  let listings = FolderListingCache<WebDAVListingEntry>(capacity: 16)

  static let identifiers = PathIdentifiers(scheme: "w:")

  public var traits: ProviderTraits {
    ProviderTraits(
      content: .synced, changeFeed: .none, identity: .pathKeyed, hasTrash: trashbin != nil, rangedReads: true,
      conditionalWrites: conditionalWrites == .honoured ? .honoured : .ignored, contentHash: .opaqueTag,
      storesFavorites: dialect.storesFavorites, namesAreBytes: false,
      folderVersionsCoverDescendants: dialect.folderVersionsCoverDescendants, storesTags: dialect.storesTags && davRoot != nil)
  }

  /// - Parameters:
  ///   - url: The collection that is the location's top (`https://host/dav/`).
  ///   - user: The user name for Basic authentication.
  ///   - password: Asked for once, at the first request.
  ///   - conditionalWrites: The probe's finding (`unknown` before one ran: treated as ignored).
  ///   - replacesInPlace: The probe's finding (nil: unknown, treated as in place).
  ///   - dialect: What `folio domain add` found the server speaks (``WebDAVDialect``).
  ///   - nextcloudPageSize: Entries per page of a Nextcloud listing.
  ///   - chunking: When a Nextcloud upload goes in chunks (chunked upload v2), and their size.
  ///   - firstByteTimeout: How long a listing or a probe waits for the answer to start before the
  ///     server reads as unreachable (per location: `first_byte_timeout`).
  public init(
    domain: DomainIdentifier, url: URL, user: String, caFile: String? = nil, password: @escaping PasswordSource,
    conditionalWrites: ProviderTraits.ConditionalWrites = .unknown, replacesInPlace: Bool? = nil,
    dialect: WebDAVDialect = .generic, nextcloudPageSize: Int = 1000, chunking: NextcloudChunking = .standard,
    firstByteTimeout: Duration = .seconds(30)
  ) {
    self.firstByteTimeout = firstByteTimeout
    self.dialect = dialect
    self.nextcloudPageSize = nextcloudPageSize
    self.chunking = chunking
    uploadsURL = dialect == .nextcloud ? WebDAVDialect.uploads(of: url) : nil
    davRoot = dialect == .nextcloud ? WebDAVDialect.davRoot(of: url) : nil
    trashbin = dialect == .nextcloud ? WebDAVDialect.trashbin(of: url) : nil
    self.domain = domain
    self.url = url
    self.caFile = caFile
    self.conditionalWrites = conditionalWrites
    self.replacesInPlace = replacesInPlace
    passwordSource = password
    state = Mutex((user, nil))
  }

  /// The client, made with the password at the first call.
  public func client() async throws(ProviderError) -> WebDAVClient {
    if let made = state.withLock({ $0.client }) { return made }
    guard let password = try await passwordSource() else {
      throw ProviderError(.notAuthenticated, "no password for \(domain.rawValue): sign in with `folio domain login \(domain.rawValue)`")
    }
    let made = try makeClient(user: state.withLock { $0.user }, password: password)
    state.withLock { $0.client = made }
    return made
  }

  private func makeClient(user: String, password: String) throws(ProviderError) -> WebDAVClient {
    do {
      return WebDAVClient(try configuration(url: url, user: user, password: password))
    } catch {
      throw WebDAVErrorMapping.map(error, location: domain.rawValue)
    }
  }

  /// A client's configuration for `url`, with this location's first-byte deadline.
  func configuration(url: URL, user: String, password: String) throws(WebDAVError) -> WebDAVConfiguration {
    var made = try WebDAVConfiguration(url: url, user: user, password: password, caFile: caFile)
    made.firstByteTimeout = firstByteTimeout
    return made
  }

  /// Runs `body` with a client; WebDAV failures become `ProviderError`s.
  func withClient<T: Sendable>(_ body: (WebDAVClient) async throws -> T) async throws(ProviderError) -> T {
    let c = try await client()
    do {
      return try await body(c)
    } catch {
      throw WebDAVErrorMapping.map(error, location: domain.rawValue)
    }
  }

  /// A person typed a user name (empty: the configured one) and password: tried with one
  /// PROPFIND of the top before it is kept.
  public func authenticate(_ given: Credentials) async throws(ProviderError) {
    let user = given.user.isEmpty ? state.withLock { $0.user } : given.user
    let candidate = try makeClient(user: user, password: given.secret)
    do {
      _ = try await candidate.stat(.root, properties: [.resourceType])
    } catch {
      throw WebDAVErrorMapping.map(error, location: domain.rawValue)
    }
    state.withLock { $0 = (user, candidate) }
  }

  // MARK: - Identifiers and paths

  public func identifier(for path: ItemPath) -> ItemIdentifier { Self.identifiers.identifier(for: path) }

  public func path(for identifier: ItemIdentifier) -> ItemPath? { Self.identifiers.path(for: identifier) }

  func requirePath(_ identifier: ItemIdentifier) throws(ProviderError) -> ItemPath {
    guard let path = path(for: identifier) else {
      if identifier == .trash { throw ProviderError(.featureUnsupported, "this is the trash, not a folder") }
      throw ProviderError.noSuchItem(identifier.rawValue)
    }
    return path
  }

  /// The server path of a location path: the same names, without the leading "/".
  static func davPath(_ path: ItemPath) throws(ProviderError) -> WebDAVPath {
    if path == .root || path.bytes.count <= 1 { return .root }
    do {
      return try WebDAVPath(Array(path.bytes.dropFirst()))
    } catch {
      throw ProviderError(.invalidArgument, error.message)
    }
  }

  /// WebDAV names travel as percent-escaped UTF-8 in URLs: a name that is not UTF-8 is refused
  /// before anything is sent (this client cannot address it: docs/DECISIONS.md).
  static func acceptedName(_ name: ItemName) throws(ProviderError) -> ItemName {
    let validated = try ItemName.validated(name.bytes)
    guard String(validating: validated.bytes, as: UTF8.self) != nil else {
      throw ProviderError(
        .invalidArgument, "\(validated.displayString) is not UTF-8 text, which WebDAV names must be: rename it first")
    }
    return validated
  }

  // MARK: - No feed

  public func currentSyncAnchor(for container: ItemIdentifier) async throws(ProviderError) -> SyncAnchor {
    throw ProviderError(.featureUnsupported, "this WebDAV server has no change feed; Folio compares listings")
  }

  public func changes(in container: ItemIdentifier, since anchor: SyncAnchor) async throws(ProviderError) -> ChangeBatch {
    throw ProviderError(.featureUnsupported, "this WebDAV server has no change feed; Folio compares listings")
  }

  // MARK: - Account

  /// RFC 4331 quota of the top (used, and used + available where the server says both): online,
  /// or why not. Nextcloud's negative "available" (uncomputed, unknown, unlimited) is no quota.
  public func accountStatus() async -> AccountStatus {
    do throws(ProviderError) {
      let quota = try await withClient { c in try await c.quota() }
      let used = max(0, quota.usedBytes ?? 0)
      let total = quota.availableBytes.flatMap { $0 >= 0 ? used + $0 : nil }
      // Nothing left: every upload would be refused with 507 (RFC 4331, §4.3's early refusal).
      if let total, quota.availableBytes == 0 { return .overQuota(usedBytes: used, quotaBytes: total) }
      return .online(usedBytes: used, quotaBytes: total)
    } catch {
      return AccountStatus(failure: error)
    }
  }
}

extension WebDAVProvider {
  /// The top's own entry: the account works, and the URL is a folder.
  public func checkTop() async throws(ProviderError) {
    let top = try await withClient { c in try await c.stat(.root, properties: [.resourceType]) }
    guard top.isCollection else {
      throw ProviderError(.invalidArgument, "\(TerminalText.escape(url.absoluteString)) is a file, not a folder")
    }
  }

  /// Issue 11 §1's probe on a scratch file at the top (``WebDAVClient/probe(scratchName:in:inPlaceBudget:)``).
  public func probe() async throws(ProviderError) -> WebDAVProbe {
    try await withClient { c in
      let found = try await c.probe()
      // Nextcloud keeps what is deleted: the scratch file would wait in the user's trash bin.
      if self.trashbin != nil {
        for t in try await self.trashed(c) where t.entry.trashFilename?.hasPrefix(".folio-probe-") == true {
          try? await self.trashClient(c).delete(try WebDAVPath("trash").appending(t.name), isCollection: false)
        }
      }
      return found
    }
  }

  /// Nextcloud or ownCloud when the top has an `oc:fileid`, else generic WebDAV.
  public func detectDialect() async throws(ProviderError) -> WebDAVDialect {
    let top = try await withClient { c in try await c.stat(.root, properties: [.resourceType, .fileID, .permissions]) }
    return top.fileID != nil ? .nextcloud : .generic
  }
}
