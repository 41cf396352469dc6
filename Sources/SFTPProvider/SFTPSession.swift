import Foundation
import ProviderAPI
import SFTPClient

/// The one SFTP session a provider uses: started on first use, started again after it ended.
///
/// Concurrent callers share one connect (a second `ssh` would prompt a second time). The remote
/// folder is resolved once per session: nil is the login folder (home-directory /
/// expand-path / REALPATH "."), a relative path is below it, an absolute path is used as it is.
actor SFTPSession {
  struct Connection: Sendable {
    let client: SFTPClient
    /// The domain's folder on the server, absolute, without a trailing slash (except "/").
    let root: [UInt8]
    /// How the person names the location (`box` in `box:/path`): what error messages say
    /// instead of the server's absolute paths.
    let location: String

    /// A failure met on this connection as a `ProviderError` whose message names paths as
    /// `location:/path`.
    func mapped(_ error: any Error) -> ProviderError {
      SFTPErrorMapping.map(error, root: root, location: location)
    }

    /// The server path of a domain path ("/" is the root itself).
    func remote(_ path: ItemPath) -> [UInt8] {
      if path == .root || path.bytes.isEmpty { return root }
      return (root == [0x2F] ? [] : root) + path.bytes
    }
  }

  private let configuration: SSHConfiguration
  private let location: String
  private let remotePath: String?
  private let prompts: SSHPromptHandler?
  private var current: Connection?
  private var connecting: Task<Connection, any Error>?

  init(configuration: SSHConfiguration, location: String, remotePath: String?, prompts: SSHPromptHandler?) {
    self.configuration = configuration
    self.location = location
    self.remotePath = remotePath
    self.prompts = prompts
  }

  /// The live session, connecting when there is none or the last one ended.
  func connection() async throws(ProviderError) -> Connection {
    if let current, current.client.endedWith == nil { return current }
    current?.client.close()
    current = nil
    let task: Task<Connection, any Error>
    if let connecting {
      task = connecting
    } else {
      let (configuration, location, remotePath, prompts) = (self.configuration, self.location, self.remotePath, self.prompts)
      task = Task { try await Self.open(configuration, location: location, remotePath: remotePath, prompts: prompts) }
      connecting = task
    }
    do {
      let made = try await task.value
      if connecting == task {
        connecting = nil
        current = made
      }
      return made
    } catch {
      if connecting == task { connecting = nil }
      throw SFTPErrorMapping.map(error)
    }
  }

  private static func open(
    _ configuration: SSHConfiguration, location: String, remotePath: String?, prompts: SSHPromptHandler?
  ) async throws -> Connection
  {
    let client = try await SFTPClient.connect(configuration, prompts: prompts)
    do {
      var root: [UInt8]
      let given = remotePath.map { Array($0.utf8) } ?? []
      if given.first == 0x2F {
        root = given
      } else {
        root = try await client.homeDirectory()
        if !given.isEmpty { root = (root == [0x2F] ? [] : root) + [0x2F] + given }
      }
      while root.count > 1 && root.last == 0x2F { root.removeLast() }
      let attributes = try await client.stat(root)
      guard attributes.fileType == .directory else {
        throw SFTPError(.noSuchFile, "\(DisplayText.escape(root)) on the server is not a folder")
      }
      return Connection(client: client, root: root, location: location)
    } catch {
      client.close()
      throw error
    }
  }

  /// Runs `body` on the live session; SFTP and ssh failures become `ProviderError`s.
  func run<T: Sendable>(_ body: @Sendable (SFTPClient) async throws -> T) async throws(ProviderError) -> T {
    let connection = try await connection()
    do {
      return try await body(connection.client)
    } catch {
      throw connection.mapped(error)
    }
  }

  func close() {
    current?.client.close()
    current = nil
  }
}
