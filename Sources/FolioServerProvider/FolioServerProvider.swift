import AsyncHTTPClient
import FolioProtocol
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI

/// A FolioServer account as a provider: docs/PROTOCOL.md over HTTP (AsyncHTTPClient).
///
/// Everything the server sends is checked before it becomes an `Item` (``WireItemMapper``): a
/// hostile name or a listing entry from another folder makes the whole answer an error, never a
/// path. Files come back dataless (`isDownloaded == false`): the core decides what to materialize
/// and calls `fetchContents`, which verifies the length and the SHA-256 before it returns.
///
/// **Conflicts.** A content upload based on a stale version is not an error: the server keeps the
/// uploaded bytes as a conflict copy next to the original and changes nothing else. `modifyItem`
/// then returns the server's item (the original, unchanged: "theirs" wins on disk, as in Apple's
/// sample) with
/// - `uploadingError` = `ProviderError(.localVersionConflictingWithServer, …)` whose `existingItem`
///   is the conflict copy's identifier — the reliable signal that our bytes did not become the
///   item's content;
/// - the `conflict` decoration (``conflictDecoration``) and `isMostRecentVersionDownloaded = false`.
///
/// The working set is the whole tree, as in Apple's sample: `currentSyncAnchor`/`changes` answer for
/// `.workingSet` from the server's change log, and `changeSignals` rides the long-poll.
///
/// Errors: the server's codes map to `ProviderError` codes one to one; no connection is
/// `serverUnreachable`, 401 after one transparent re-login `notAuthenticated`, 507
/// `insufficientQuota`, 5xx/429 `serverBusy` with `retryAfter`, an unreadable answer
/// `cannotSynchronize`.
///
/// Secrets: the password comes from a ``PasswordSource`` when a sign-in is needed; the token lives
/// in memory only. Neither is ever logged or written.
public final class FolioServerProvider: Provider {
  public let domain: DomainIdentifier
  /// The name of the root folder (what the sidebar shows for the domain).
  public let displayName: String
  public let account: ServerAccount
  let connection: ServerConnection
  let mapper: WireItemMapper
  private let declarations: LockedValue<Declarations>

  struct Declarations: Sendable {
    var actions: [ActionDeclaration] = []
    var decorations: [DecorationDeclaration] = []
  }

  /// The decoration the server puts on a conflict copy and on its original.
  public static let conflictDecoration = DecorationIdentifier("conflict")
  /// The userInfo key of a conflict copy that names its original.
  public static let conflictOfKey = "conflictOf"

  /// - Parameters:
  ///   - domain: The domain this provider serves.
  ///   - displayName: What the root folder is called.
  ///   - account: The server and the user.
  ///   - password: Where the password comes from when a sign-in is needed.
  ///   - signInHint: Appended to `notAuthenticated` messages, e.g. "run `folio domain login work`".
  ///   - firstByteTimeout: How long a request (not an upload, not the long-poll) may wait for the
  ///     head of its answer; 30 s unless a test needs a shorter one.
  public init(
    domain: DomainIdentifier, displayName: String, account: ServerAccount, password: PasswordSource = .none,
    signInHint: String? = nil, firstByteTimeout: Duration = .seconds(30)
  ) {
    self.domain = domain
    self.displayName = displayName
    self.account = account
    let box = LockedValue(Declarations())
    declarations = box
    let (seconds, attoseconds) = firstByteTimeout.components
    let timeout = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    connection = ServerConnection(
      account: account, password: password, signInHint: signInHint, firstByteTimeout: timeout
    ) { connection, token in
      // Loaded at every sign-in: a failure leaves the previous declarations, and the next sign-in
      // tries again. Never fatal: the files matter more than the menu.
      if let loaded = try? await FolioServerProvider.loadDeclarations(connection, token: token) { box.set(loaded) }
    }
    let root = (try? ItemName.validated(displayName)) ?? ItemName(domain.rawValue)
    mapper = WireItemMapper(rootName: root, user: account.user)
  }

  public var actionDeclarations: [ActionDeclaration] { declarations.get().actions }
  public var decorationDeclarations: [DecorationDeclaration] { declarations.get().decorations }

  // MARK: Reading

  public func item(for identifier: ItemIdentifier, pathHint: ItemPath?) async throws(ProviderError) -> Item {
    let id = try WireItemMapper.wireID(identifier)
    let wire = try await connection.json(ServerRequest(.GET, ["items", id]), as: WireItem.self, what: "an item")
    let item = try mapper.item(wire)
    guard item.identifier == identifier else {
      throw ProviderError(.cannotSynchronize, "\(connection.serverName) answered for another item than \(identifier)")
    }
    return item
  }

  public func item(at path: ItemPath) async throws(ProviderError) -> Item {
    guard path.isAbsolute else { throw ProviderError(.invalidArgument, "\(path.displayString) is not an absolute path") }
    if path == .root { return try await item(for: .root, pathHint: nil) }
    // Names on a Folio server are UTF-8 text: other bytes name nothing there.
    guard let text = path.utf8String else { throw ProviderError.noSuchItem(path.displayString) }
    let wire = try await connection.json(
      ServerRequest(.GET, ["lookup"], query: [("path", text)]), as: WireItem.self, what: "an item")
    return try mapper.item(wire)
  }

  /// The signed-in user's account: quota and usage.
  public func account() async throws(ProviderError) -> AccountResponse {
    try await connection.json(ServerRequest(.GET, ["account"]), as: AccountResponse.self, what: "the account")
  }

  // MARK: Helpers shared by the extensions

  /// A request body as JSON.
  func jsonBody(_ value: some Encodable) throws(ProviderError) -> ServerRequest.Body {
    do {
      return .json(try JSONEncoder().encode(value))
    } catch {
      throw ProviderError(.invalidArgument, "cannot encode the request: \(error)")
    }
  }

  /// A name as the server stores it: UTF-8 text.
  func wireName(_ name: ItemName) throws(ProviderError) -> String {
    let valid = try ItemName.validated(name.bytes)
    guard let text = valid.utf8String else {
      throw ProviderError(
        .invalidArgument, "'\(name.displayString)' is not valid UTF-8: a Folio server stores names as text")
    }
    return text
  }
}
