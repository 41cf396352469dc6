import Foundation
import ProviderAPI
import S3Client
import Synchronization

/// A bucket (or a folder of one) on S3 or any S3-compatible store, as a path-keyed provider
/// (remote-providers.md §3).
///
/// Object storage has no folders, no rename, no change feed and no trash (an unversioned
/// bucket): the core polls listings (`ListingPoller`) and re-keys what it keeps after a rename
/// Folio made. A folder is a common prefix of a `delimiter=/` listing, or a `name/` marker object
/// (what New Folder makes, so an empty folder exists). A rename or a move is a copy and a delete of
/// every key below.
///
/// **Versions.** The ETag is the content version (quotes included: what `If-Match` takes).
/// Uploads carry `x-amz-meta-folio-sha256`, the SHA-256 of the bytes (a multipart ETag is not an
/// MD5), and downloads are checked against it when the object has it.
///
/// **Conflicts.** Where the store honours `If-Match` (the probe of `folio domain add`, kept in the
/// domain), a replace is conditional on the base version and a refused one keeps the new bytes
/// beside the object under a conflict name, as `SFTPProvider` does. Where it does not, the object
/// is read (HEAD) just before it is replaced: the window for a lost edit is as small as the
/// protocol allows, and `folio domain list`, `folio info` and the browser's Info say the store
/// cannot detect conflicting edits.
public final class S3Provider: Provider, PathKeyedProvider, AccountStatusProviding, @unchecked Sendable {
  public let domain: DomainIdentifier
  public let endpoint: S3Endpoint
  /// What the probe found the store does with conditional writes.
  public let conditionalWrites: ProviderTraits.ConditionalWrites
  /// The bucket keeps versions: a delete leaves a marker, and Recently Deleted is the keys whose
  /// newest version is one (``S3Provider+Trash``).
  public let versioned: Bool
  private let credentials: Mutex<S3Credentials?>
  /// Whether the store has ListObjectsV2, learnt by the first listing and shared by every client
  /// this provider makes.
  let listing: S3ListingDialect
  let listings = FolderListingCache<S3ListingEntry>(capacity: 16)
  /// Above this an upload is sent in parts (resumable: parts already on the store are not sent again).
  let multipartThreshold: Int64
  let partSize: Int64
  /// Above this an object is copied (a rename, a move, a copy) in parts (UploadPartCopy): S3
  /// refuses CopyObject past 5 GiB.
  let copyPartThreshold: Int64
  /// The ranges a big object is copied in.
  let copyPartSize: Int64
  /// Where renames and moves are journaled until done (``S3RelocationJob``); nil keeps no journal
  /// (a benchmark's throwaway provider), so an interrupted rename is then not finished later.
  let relocations: S3RelocationJournal?
  /// A test's stand-in for a crash: called after each copy and each delete of a rename (with its
  /// phase and how many of that phase are done), before the step is marked in the journal; what it
  /// throws ends the job there, as a kill would.
  /// How long a listing, a HEAD or a probe waits for the answer to start before the store reads
  /// as unreachable (per location: `first_byte_timeout`); transfers have the client's stall limits.
  let firstByteTimeout: Duration
  let relocationFault = Mutex<(@Sendable (S3RelocationJob.Phase, Int) throws -> Void)?>(nil)

  static let identifiers = PathIdentifiers(scheme: "k:")

  public var traits: ProviderTraits {
    ProviderTraits(
      content: .synced, changeFeed: .none, identity: .pathKeyed, hasTrash: versioned, rangedReads: true,
      // Unprobed is written to as ignoring them, and said so (as `folio domain list` does).
      conditionalWrites: conditionalWrites == .honoured ? .honoured : .ignored, contentHash: .opaqueTag,
      storesFavorites: false, namesAreBytes: false)
  }

  /// - Parameters:
  ///   - credentials: nil when none were found: every call is `notAuthenticated` until
  ///     ``authenticate(_:)`` gives some.
  ///   - conditionalWrites: the probe's finding (`unknown` before one ran: treated as ignored).
  ///   - journalFolder: this location's folder for unfinished renames (Folio's state folder).
  public init(
    domain: DomainIdentifier, endpoint: S3Endpoint, credentials: S3Credentials?,
    conditionalWrites: ProviderTraits.ConditionalWrites = .unknown, versioned: Bool = false,
    multipartThreshold: Int64 = 64 << 20, partSize: Int64 = 16 << 20, copyPartThreshold: Int64 = 5 << 30,
    copyPartSize: Int64 = 512 << 20, listing: S3ListingDialect = S3ListingDialect(), journalFolder: URL? = nil,
    firstByteTimeout: Duration = S3Client.defaultFirstByteTimeout
  ) {
    self.firstByteTimeout = firstByteTimeout
    self.listing = listing
    self.relocations = journalFolder.map(S3RelocationJournal.init(folder:))
    self.copyPartThreshold = min(5 << 30, max(5 << 20, copyPartThreshold))
    self.copyPartSize = min(5 << 30, max(5 << 20, copyPartSize))
    self.domain = domain
    self.endpoint = endpoint
    self.credentials = Mutex(credentials)
    self.conditionalWrites = conditionalWrites
    self.versioned = versioned
    self.multipartThreshold = max(5 << 20, multipartThreshold)
    self.partSize = max(5 << 20, partSize)
  }

  /// A client with the credentials known now.
  public func client() throws(ProviderError) -> S3Client {
    guard let credentials = credentials.withLock({ $0 }) else {
      throw ProviderError(
        .notAuthenticated,
        "no credentials for \(domain.rawValue): set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile in ~/.aws, or sign in")
    }
    return S3Client(endpoint: endpoint, credentials: credentials, listing: listing, firstByteTimeout: firstByteTimeout)
  }

  /// Runs `body` with a client; S3 failures become `ProviderError`s naming the location's paths.
  func withClient<T: Sendable>(_ body: (S3Client) async throws -> T) async throws(ProviderError) -> T {
    let c = try client()
    do {
      return try await body(c)
    } catch let error as ProviderError {
      throw error
    } catch {
      throw S3ErrorMapping.map(error, location: domain.rawValue, bucket: endpoint.bucket)
    }
  }

  /// A person typed an access key id (as the user) and its secret.
  public func authenticate(_ given: Credentials) async throws(ProviderError) {
    let candidate = S3Credentials(accessKeyID: given.user, secretAccessKey: given.secret)
    let c = S3Client(endpoint: endpoint, credentials: candidate, listing: listing, firstByteTimeout: firstByteTimeout)
    do {
      _ = try await c.listObjects(maxKeys: 1)
    } catch {
      throw S3ErrorMapping.map(error, location: domain.rawValue, bucket: endpoint.bucket)
    }
    credentials.withLock { $0 = candidate }
  }

  // MARK: - Identifiers and keys

  public func identifier(for path: ItemPath) -> ItemIdentifier { Self.identifiers.identifier(for: path) }

  public func path(for identifier: ItemIdentifier) -> ItemPath? { Self.identifiers.path(for: identifier) }

  func requirePath(_ identifier: ItemIdentifier) throws(ProviderError) -> ItemPath {
    guard let path = path(for: identifier) else {
      if identifier == .trash { throw ProviderError(.featureUnsupported, "this is the trash, not a folder") }
      throw ProviderError.noSuchItem(identifier.rawValue)
    }
    return path
  }

  /// The key of a file at `path` (relative to the endpoint's prefix): the path without its "/".
  static func key(_ path: ItemPath) -> [UInt8] { Array(path.bytes.dropFirst()) }

  /// The prefix of the keys inside the folder at `path` ("" for the root, "a/b/" below it).
  static func folderPrefix(_ path: ItemPath) -> [UInt8] {
    path == .root || path.bytes.isEmpty ? [] : key(path) + [0x2F]
  }

  /// S3 keys are UTF-8 text: a name that is not is refused before anything is sent.
  static func acceptedName(_ name: ItemName) throws(ProviderError) -> ItemName {
    let validated = try ItemName.validated(name.bytes)
    guard String(validating: validated.bytes, as: UTF8.self) != nil else {
      throw ProviderError(
        .invalidArgument, "\(validated.displayString) is not UTF-8 text, which S3 keys must be: rename it first")
    }
    return validated
  }

  // MARK: - No feed

  public func currentSyncAnchor(for container: ItemIdentifier) async throws(ProviderError) -> SyncAnchor {
    throw ProviderError(.featureUnsupported, "S3 has no change feed; Folio compares listings")
  }

  public func changes(in container: ItemIdentifier, since anchor: SyncAnchor) async throws(ProviderError) -> ChangeBatch {
    throw ProviderError(.featureUnsupported, "S3 has no change feed; Folio compares listings")
  }

  // MARK: - Account

  /// One listing request of at most one key: online, or why not.
  public func accountStatus() async -> AccountStatus {
    do throws(ProviderError) {
      _ = try await withClient { c in try await c.listObjects(maxKeys: 1) }
      return .online(usedBytes: 0, quotaBytes: nil)
    } catch {
      return AccountStatus(failure: error)
    }
  }
}
