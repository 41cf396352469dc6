import FolioProtocol
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// The endpoints of docs/PROTOCOL.md over the stores: each parses its request, asks a store, and
/// encodes the answer. Errors are thrown as `ServerError` and turned into bodies by
/// `FrontMiddleware`.
struct ServerHandlers: Sendable {
  let users: UserStore
  let items: ItemStore
  let content: ContentStore
  let notifier: ChangeNotifier
  let faults: FaultInjector?
  let tokenLifetime: TimeInterval
  /// Content downloads go out with `sendfile` (plain HTTP; NIOSSL cannot encrypt a file region).
  var sendfile = true

  // MARK: Helpers

  /// The signed-in user of a request (its bearer token).
  func user(_ request: Request) async throws -> String {
    guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
      throw ServerError.notAuthenticated
    }
    return try await users.authenticate(String(header.dropFirst("Bearer ".count)))
  }

  /// Decodes a JSON body of at most 1 MiB.
  func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
    let buffer: ByteBuffer
    do {
      buffer = try await request.body.collect(upTo: 1 << 20)
    } catch {
      throw ServerError.invalid("the body is too large or incomplete")
    }
    do {
      return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
    } catch {
      throw ServerError.invalid("the body is not valid JSON for this request")
    }
  }

  func json(_ value: some Encodable, status: Int = 200) -> Response { FrontMiddleware.json(value, status: status) }

  func noContent() -> Response { Response(status: .noContent) }

  func id(_ context: FolioRequestContext) throws -> String {
    guard let id = context.parameters.get("id") else { throw ServerError.invalid("no identifier") }
    return id
  }

  // MARK: Users

  func login(_ request: Request) async throws -> Response {
    let body = try await decode(LoginRequest.self, from: request)
    return json(try await users.login(body.user, password: body.password, lifetime: tokenLifetime))
  }

  func logout(_ request: Request) async throws -> Response {
    _ = try await user(request)
    if let header = request.headers[.authorization] {
      try await users.logout(String(header.dropFirst("Bearer ".count)))
    }
    return noContent()
  }

  func account(_ request: Request) async throws -> Response {
    json(try await items.account(try await user(request)))
  }

  // MARK: Reading

  func item(_ request: Request, _ context: FolioRequestContext) async throws -> Response {
    json(try await items.item(try id(context), for: try await user(request)))
  }

  func lookup(_ request: Request) async throws -> Response {
    let user = try await user(request)
    let path = try QueryParameters(request.uri.query).require("path")
    return json(try await items.lookup(path: path, for: user))
  }

  func children(_ request: Request, _ context: FolioRequestContext) async throws -> Response {
    let user = try await user(request)
    let q = QueryParameters(request.uri.query)
    var listing = ItemStore.ListingRequest(folder: try id(context))
    switch try q.string("sort") ?? "name" {
    case "name": listing.sort = .name
    case "date": listing.sort = .date
    case "size": listing.sort = .size
    default: throw ServerError.invalid("sort is name, date or size")
    }
    switch try q.string("order") ?? "asc" {
    case "asc": listing.descending = false
    case "desc": listing.descending = true
    default: throw ServerError.invalid("order is asc or desc")
    }
    listing.foldersFirst = ["1", "true"].contains(try q.string("foldersFirst") ?? "0")
    if let limit = try q.int("limit") {
      guard (1...Int64(WireRoutes.maxPageSize)).contains(limit) else {
        throw ServerError.invalid("limit is 1 to \(WireRoutes.maxPageSize)")
      }
      listing.limit = Int(limit)
    }
    listing.page = try q.string("page")
    var page = try await items.children(listing, for: user)
    if context.emptyFault { page = PageResponse(items: [], nextPage: nil, total: 0) }
    return json(page)
  }

  // MARK: Changes

  func anchor(_ request: Request) async throws -> Response {
    _ = try await user(request)
    return json(AnchorResponse(anchor: try await items.anchor()))
  }

  func changes(_ request: Request, _ context: FolioRequestContext) async throws -> Response {
    let user = try await user(request)
    let q = QueryParameters(request.uri.query)
    let since = try q.require("since")
    let limit = Int(try q.int("limit") ?? Int64(WireRoutes.defaultPageSize))
    if context.emptyFault {
      if !since.isEmpty { _ = try items.validAnchor(since) }
      return json(ChangesResponse(updated: [], deleted: [], anchor: since, more: false))
    }
    return json(try await items.changes(since: since, limit: limit, for: user))
  }

  func wait(_ request: Request) async throws -> Response {
    _ = try await user(request)
    let q = QueryParameters(request.uri.query)
    let since = try items.validAnchor(try q.require("since"))
    let seconds = max(0, min(try q.int("timeout") ?? 30, Int64(WireRoutes.maxWaitSeconds)))
    // A graceful shutdown answers the poll at once instead of waiting out its timeout. The server's
    // connections run under the shutdown's task-local handler, so this one hears it.
    let notifier = notifier
    let end = await withGracefulShutdownHandler {
      await notifier.wait(since: since.rank, timeout: .seconds(seconds))
    } onGracefulShutdown: {
      Task { await notifier.close() }
    }
    return json(
      WaitResponse(changed: end > since.rank, anchor: SyncAnchor(epoch: items.epoch, rank: max(end, since.rank)).encoded))
  }

  // MARK: Writing (metadata)

  func createFolder(_ request: Request) async throws -> Response {
    let user = try await user(request)
    let body = try await decode(CreateFolderRequest.self, from: request)
    return json(try await items.createFolder(parent: body.parent, name: body.name, user: user), status: 201)
  }

  func modify(_ request: Request, _ context: FolioRequestContext) async throws -> Response {
    let user = try await user(request)
    let body = try await decode(ModifyRequest.self, from: request)
    return json(try await items.modify(id: try id(context), body, user: user))
  }

  func restore(_ request: Request, _ context: FolioRequestContext) async throws -> Response {
    let user = try await user(request)
    let body = try await decode(RestoreRequest.self, from: request)
    return json(try await items.restore(id: try id(context), to: body.parent, name: body.name, user: user))
  }

  func copy(_ request: Request, _ context: FolioRequestContext) async throws -> Response {
    let user = try await user(request)
    let body = try await decode(CopyRequest.self, from: request)
    return json(try await items.copy(id: try id(context), parent: body.parent, name: body.name, user: user), status: 201)
  }

  func delete(_ request: Request, _ context: FolioRequestContext) async throws -> Response {
    _ = try await user(request)
    try await items.deleteForever(id: try id(context))
    return noContent()
  }

  func emptyTrash(_ request: Request) async throws -> Response {
    _ = try await user(request)
    try await items.emptyTrash()
    return noContent()
  }

  func resolve(_ request: Request, _ context: FolioRequestContext) async throws -> Response {
    let user = try await user(request)
    let body = try await decode(ResolveConflictRequest.self, from: request)
    return json(try await items.resolve(copyID: try id(context), keep: body.keep, user: user))
  }

  // MARK: Actions and faults

  func declarations(_ request: Request) async throws -> Response {
    _ = try await user(request)
    return json(ServerDeclarations.response)
  }

  func perform(_ request: Request, _ context: FolioRequestContext) async throws -> Response {
    let user = try await user(request)
    let body = try await decode(PerformActionRequest.self, from: request)
    try await items.perform(action: try id(context), on: body.items, user: user)
    return noContent()
  }

  func installFaults(_ request: Request) async throws -> Response {
    guard let faults else { throw ServerError(.invalidArgument, "no such endpoint", status: 404) }
    let body = try await decode(FaultRulesRequest.self, from: request)
    try faults.install(body.rules)
    return noContent()
  }

  func faultState() async throws -> Response {
    guard faults != nil else { throw ServerError(.invalidArgument, "no such endpoint", status: 404) }
    return json(FaultStateResponse(waitingPolls: await notifier.waiting))
  }

  func clearFaults() throws -> Response {
    guard let faults else { throw ServerError(.invalidArgument, "no such endpoint", status: 404) }
    faults.clear()
    return noContent()
  }
}
