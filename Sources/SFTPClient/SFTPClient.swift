/// An SFTP v3 session over the user's `ssh` (draft-ietf-secsh-filexfer-02 plus OpenSSH extensions).
///
/// Every operation is an async request; many may be in flight at once (``SFTPChannel`` matches the
/// replies). Paths and names are bytes end to end: the protocol defines no encoding, and a name
/// that is not UTF-8 must round-trip exactly. Extensions are used only when the server's VERSION
/// reply offered them (OpenSSH PROTOCOL §4: "Clients MUST check the version number").
public final class SFTPClient: Sendable {
  public let configuration: SSHConfiguration
  /// The server's extension names and their version data, from SSH_FXP_VERSION.
  public let extensions: [String: [UInt8]]
  /// limits@openssh.com when offered.
  public let limits: SFTPLimits?
  let channel: SFTPChannel
  private let relay: AskpassRelay?

  /// Bytes per READ: the server's limit when stated (OpenSSH: 255 KiB), else the 32 KiB every server
  /// must accept (draft §3).
  public var readLength: Int {
    guard let length = limits?.maximumReadLength, length > 0 else { return 32768 }
    return Int(min(length, 256 * 1024))
  }

  /// Bytes per WRITE: the limit when stated, else 32 KiB.
  public var writeLength: Int {
    guard let length = limits?.maximumWriteLength, length > 0 else { return 32768 }
    return Int(min(length, 256 * 1024))
  }

  private init(
    configuration: SSHConfiguration, channel: SFTPChannel, relay: AskpassRelay?, extensions: [String: [UInt8]],
    limits: SFTPLimits?
  ) {
    self.configuration = configuration
    self.channel = channel
    self.relay = relay
    self.extensions = extensions
    self.limits = limits
  }

  /// Starts ssh, says INIT, reads VERSION and the server's limits. Prompts go to `prompts`.
  public static func connect(_ configuration: SSHConfiguration, prompts: SSHPromptHandler? = nil) async throws
    -> SFTPClient
  {
    let relay = try prompts.map { try AskpassRelay(handler: $0) }
    let process: SSHProcess
    do {
      process = try SSHProcess.start(
        arguments: configuration.arguments, environment: configuration.environment(relaySocket: relay?.socketPath))
    } catch {
      relay?.stop()
      throw error
    }
    let channel = SFTPChannel(process: process, host: DisplayText.escape(Array(configuration.host.utf8)))
    do {
      let version = try await channel.handshake()
      var reader = SFTPReader(version.payload)
      let number = try reader.u32()
      guard number == 3 else {
        throw SFTPError(.operationUnsupported, "\(configuration.host): the server speaks SFTP version \(number), not 3")
      }
      var extensions: [String: [UInt8]] = [:]
      while !reader.isAtEnd {
        let name = try reader.string()
        let data = try reader.string()
        extensions[String(decoding: name, as: UTF8.self)] = data
      }
      var client = SFTPClient(
        configuration: configuration, channel: channel, relay: relay, extensions: extensions, limits: nil)
      if extensions["limits@openssh.com"] != nil {
        let limits = try await client.fetchLimits()
        client = SFTPClient(
          configuration: configuration, channel: channel, relay: relay, extensions: extensions, limits: limits)
      }
      return client
    } catch {
      channel.close()
      relay?.stop()
      throw error
    }
  }

  /// Ends the session cleanly (ssh sees EOF and exits).
  public func close() {
    channel.close()
    relay?.stop()
  }

  /// Kills ssh at once: what a dropped link looks like, for tests and for a stuck connection.
  public func terminate() {
    channel.terminate()
    relay?.stop()
  }

  /// Whether the server offered an extension (name and version string, e.g. "posix-rename@openssh.com").
  public func offers(_ name: String) -> Bool { extensions[name] != nil }

  /// ssh's process id (tests kill it; the provider shows it in diagnostics).
  public var sshProcessID: Int32 { channel.processID }

  /// The failure that ended the session, nil while it is alive.
  public var endedWith: SFTPError? { channel.endedWith }

  // MARK: - Requests

  func packet(_ type: UInt8, _ build: (inout SFTPWriter) -> Void = { _ in }) -> [UInt8] {
    var writer = SFTPWriter(type: type)
    writer.u32(0)  // the id, set by the channel
    build(&writer)
    return writer.finish()
  }

  func send(_ type: UInt8, _ build: (inout SFTPWriter) -> Void) async throws -> SFTPReply {
    try await channel.request(packet(type, build))
  }

  /// A STATUS reply that must be OK; anything else becomes an error naming `context`.
  func expectOK(_ reply: SFTPReply, _ context: @autoclosure () -> String) throws {
    guard reply.type == SFTPPacketType.status else {
      throw SFTPError.malformed("\(context()): expected a status, got packet type \(reply.type)")
    }
    var reader = SFTPReader(reply.payload)
    let code = try reader.u32()
    guard code == 0 else { throw Self.statusError(code, &reader, context()) }
  }

  package static func statusError(_ code: UInt32, _ reader: inout SFTPReader, _ context: String) -> SFTPError {
    let message = (try? reader.string()) ?? []
    return SFTPError.fromStatus(code, serverMessage: message, context: context)
  }

  /// A reply of `type`, or the error its STATUS carries.
  func expect(_ type: UInt8, _ reply: SFTPReply, _ context: @autoclosure () -> String) throws -> SFTPReader {
    var reader = SFTPReader(reply.payload)
    if reply.type == type { return reader }
    if reply.type == SFTPPacketType.status {
      let code = try reader.u32()
      throw Self.statusError(code, &reader, context())
    }
    throw SFTPError.malformed("\(context()): expected packet type \(type), got \(reply.type)")
  }

  static func describe(_ path: [UInt8]) -> String { "“" + DisplayText.escape(path) + "”" }
}
