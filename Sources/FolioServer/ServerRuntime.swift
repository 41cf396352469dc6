import FolioProtocol
import Foundation
import GRDB
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// `folio serve`: opens the root, cleans up after any crash, and serves until SIGTERM or SIGINT.
///
/// Start-up order matters for crash safety: the database is migrated first, then `uploads/` and
/// every content file the database does not reference are removed (leftovers of a `kill -9`
/// between a rename and its commit), and only then does the server accept requests.
public struct ServerRuntime: Sendable {
  let options: ServerOptions
  let handlers: ServerHandlers

  /// Prepares the root (creating it) and the stores.
  ///
  /// - Throws: a ProviderError saying what could not be opened.
  public init(options: ServerOptions) throws(ProviderError) {
    self.options = options
    do {
      try FileManager.default.createDirectory(
        at: options.root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      let database = try ServerDatabase(root: options.root)
      let content = try ContentStore(root: options.root)
      let live = try database.pool.read { db in
        Set(
          try Row.fetchAll(db, sql: "SELECT id, content_version FROM item WHERE deleted = 0 AND is_folder = 0").map {
            "\($0[0] as String).\($0[1] as Int64)"
          })
      }
      let removed = content.sweep(live: live)
      if removed > 0 {
        FileHandle.standardError.write(Data("folio serve: removed \(removed) unfinished upload or unreferenced content files\n".utf8))
      }
      let rank = try database.pool.read { db in try Meta.int(db, "rank") }
      let notifier = ChangeNotifier(rank: rank)
      let items = try ItemStore(database: database, content: content, notifier: notifier)
      let users = UserStore(pool: database.pool)
      if let file = options.usersFile {
        let text = try String(contentsOf: file, encoding: .utf8)
        for entry in try UsersFile.parse(text) {
          try users.addUser(entry.name, password: entry.password, quota: entry.quota, replace: true)
        }
      }
      handlers = ServerHandlers(
        users: users, items: items, content: content, notifier: notifier,
        faults: options.faultsEnabled ? FaultInjector() : nil, tokenLifetime: options.tokenLifetime,
        sendfile: options.tlsCertificate == nil)
    } catch {
      throw Self.providerError(error, doing: "opening the server root \(options.root.path)")
    }
  }

  /// Serves until SIGTERM or SIGINT, calling `onReady` with the URL once connections are accepted.
  public func run(onReady: @escaping @Sendable (String) -> Void) async throws(ProviderError) {
    Self.pinMallocThreshold()
    do {
      try await handlers.items.pruneTombstones(olderThan: 90 * 24 * 3600)
      var logger = Logger(label: "folio-serve") { StreamLogHandler.standardError(label: $0) }
      logger.logLevel = .error
      let server: HTTPServerBuilder
      var scheme = "http"
      if let cert = options.tlsCertificate, let key = options.tlsKey {
        let chain = try NIOSSLCertificate.fromPEMFile(cert.path).map { NIOSSLCertificateSource.certificate($0) }
        let tls = TLSConfiguration.makeServerConfiguration(
          certificateChain: chain, privateKey: .privateKey(try NIOSSLPrivateKey(file: key.path, format: .pem)))
        server = try .tls(.http1(), tlsConfiguration: tls)
        scheme = "https"
      } else {
        server = .http1()
      }
      let urlScheme = scheme
      let host = options.host.contains(":") ? "[\(options.host)]" : options.host
      let app = Application(
        router: ServerRoutes.router(handlers), server: server,
        configuration: ApplicationConfiguration(address: .hostname(options.host, port: options.port), serverName: nil),
        onServerRunning: { channel in
          let port = channel.localAddress?.port ?? 0
          onReady("\(urlScheme)://\(host):\(port)")
        },
        logger: logger)
      try await app.runService()
    } catch let e as ProviderError {
      throw e
    } catch {
      throw Self.providerError(error, doing: "serving")
    }
  }

  static func providerError(_ error: any Error, doing what: String) -> ProviderError {
    if let e = error as? ProviderError { return e }
    if let e = error as? ServerError {
      return ProviderError(e.code == .invalidArgument ? .invalidArgument : .ioError, e.message)
    }
    return ProviderError(.ioError, "\(what): \(error)")
  }

  /// Keeps transfer buffers out of malloc's heaps.
  ///
  /// glibc raises its mmap threshold each time a large block is freed, so after the first
  /// download the 256 KiB read buffers come from per-thread arenas; they are allocated on one
  /// thread and freed on an event loop, and a 1 GiB download left ~60 MiB stranded there. A fixed
  /// threshold (which also turns the adjustment off) makes every such buffer its own mapping,
  /// returned at once: resident memory stays flat whatever the transfer size.
  ///
  /// `mallopt` is in <malloc.h>, which Swift's Glibc module does not include: it is looked up by
  /// name (M_MMAP_THRESHOLD is -3 in that header). Another libc simply has no such symbol.
  public static func pinMallocThreshold() {
    #if canImport(Glibc)
      typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
      guard let symbol = dlsym(nil, "mallopt") else { return }
      let mmapThreshold: Int32 = -3
      _ = unsafeBitCast(symbol, to: MallOpt.self)(mmapThreshold, 128 * 1024)
    #endif
  }
}
