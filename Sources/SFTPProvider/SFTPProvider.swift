import Foundation
import ProviderAPI
import SFTPClient

/// A folder on any host the user can `ssh` to, as a path-keyed provider (remote-providers.md §2.4).
///
/// The storage has no change feed, no stable identifiers, no trash and no content hash: the core
/// polls listings (`ListingPoller`), re-keys what it keeps after a rename Folio made
/// (`PathKeyedProvider`), and checks content by size and version. An identifier is `s:` + the
/// base64url of the item's path bytes relative to the domain's remote folder (`.root` for that
/// folder): stable while the item stays where it is, reversible without I/O, bytes end to end.
///
/// **Conflicts.** A content modify whose base version (size + whole-second mtime) no longer
/// matches the server's file does not overwrite it: the new bytes go beside it under a conflict
/// name, and `modifyItem` returns the server's item with `uploadingError` =
/// `localVersionConflictingWithServer` naming the copy (what `FolioServerProvider` does), so the
/// sync engine records a conflict with both versions kept.
///
/// One SFTP session (one `ssh` process) serves every call; it is started on first use and again
/// after it ends (a dropped link, a server restart), so a failure is `serverUnreachable` for the
/// call that met it and the next call reconnects.
public final class SFTPProvider: Provider, PathKeyedProvider, AccountStatusProviding, @unchecked Sendable {
  public let domain: DomainIdentifier
  public var traits: ProviderTraits { Self.traits }

  /// What SFTP can do (remote-providers.md §0): cached content, no feed, paths as identifiers, no
  /// trash, ranged reads, a base-version check before replace that no protocol enforces
  /// (`unknown`), no hash, favorites in the index, names as bytes.
  public static let traits = ProviderTraits(
    content: .synced, changeFeed: .none, identity: .pathKeyed, hasTrash: false, rangedReads: true,
    conditionalWrites: .unknown, contentHash: .none, storesFavorites: false, namesAreBytes: true)

  let session: SFTPSession
  let listings = ListingCache(capacity: 16)

  /// - Parameters:
  ///   - configuration: how to run ssh (host, port, `-F` config file, askpass helper).
  ///   - remotePath: the domain's folder on the server: absolute, relative to the login folder, or
  ///     nil for the login folder itself (`--path`).
  ///   - prompts: answers ssh's questions (password, passphrase, an unknown host key).
  public init(
    domain: DomainIdentifier, configuration: SSHConfiguration, remotePath: String? = nil,
    prompts: SSHPromptHandler? = nil
  ) {
    self.domain = domain
    self.session = SFTPSession(
      configuration: configuration, location: domain.rawValue, remotePath: remotePath, prompts: prompts)
  }

  /// What a `[[domain]] type = "sftp"` holds: HOST as ssh takes it, an optional port, the remote
  /// folder, an ssh configuration file (`-F`) and the askpass helper ssh runs for prompts.
  public convenience init(
    domain: DomainIdentifier, host: String, port: Int? = nil, remotePath: String? = nil, sshConfigFile: String? = nil,
    askpassProgram: String? = nil, prompts: SSHPromptHandler? = nil
  ) {
    var configuration = SSHConfiguration(host: host, port: port, configFile: sshConfigFile)
    configuration.askpassProgram = askpassProgram
    self.init(domain: domain, configuration: configuration, remotePath: remotePath, prompts: prompts)
  }

  /// Ends the ssh session (a later call starts a new one).
  public func close() async { await session.close() }

  /// The remote folder the domain shows, once connected (for Info and `folio domain list`).
  public func remoteRoot() async throws(ProviderError) -> [UInt8] {
    try await session.connection().root
  }

  // MARK: - Identifiers

  static let identifiers = PathIdentifiers(scheme: "s:")

  public func identifier(for path: ItemPath) -> ItemIdentifier { Self.identifiers.identifier(for: path) }

  public func path(for identifier: ItemIdentifier) -> ItemPath? { Self.identifiers.path(for: identifier) }

  static func isInside(_ path: ItemPath) -> Bool { PathIdentifiers.isInside(path) }

  func requirePath(_ identifier: ItemIdentifier) throws(ProviderError) -> ItemPath {
    guard let path = path(for: identifier) else {
      if identifier == .trash { throw ProviderError(.featureUnsupported, "this SFTP location has no trash") }
      throw ProviderError.noSuchItem(identifier.rawValue)
    }
    return path
  }

  // MARK: - No feed

  public func currentSyncAnchor(for container: ItemIdentifier) async throws(ProviderError) -> SyncAnchor {
    throw ProviderError(.featureUnsupported, "an SFTP server has no change feed; Folio compares listings")
  }

  public func changes(in container: ItemIdentifier, since anchor: SyncAnchor) async throws(ProviderError) -> ChangeBatch {
    throw ProviderError(.featureUnsupported, "an SFTP server has no change feed; Folio compares listings")
  }

  // MARK: - Account

  /// statvfs@openssh.com on the remote folder: the free space decides online or over quota (a
  /// full disk refuses every upload). Servers without it answer online without numbers.
  public func accountStatus() async -> AccountStatus {
    do throws(ProviderError) {
      let connection = try await session.connection()
      guard connection.client.offers("statvfs@openssh.com") else { return .online(usedBytes: 0, quotaBytes: nil) }
      let stats = try await session.run { client in try await client.fileSystemStats(connection.root) }
      let total = Int64(clamping: stats.blocks &* stats.fragmentSize)
      let used = Int64(clamping: (stats.blocks &- stats.freeBlocks) &* stats.fragmentSize)
      if stats.availableBytes < Self.fullDiskThreshold { return .overQuota(usedBytes: used, quotaBytes: total) }
      return .online(usedBytes: used, quotaBytes: total)
    } catch {
      return AccountStatus(failure: error)
    }
  }

  /// Below this much free space an upload cannot succeed (one write request of OpenSSH).
  static let fullDiskThreshold: UInt64 = 256 * 1024
}

