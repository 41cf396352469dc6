import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A reply to one request: its type and the payload after the request id.
struct SFTPReply: Sendable {
  var type: UInt8
  var payload: [UInt8]
}

/// Frames packets on ssh's stdin/stdout and matches replies to requests by id, many in flight.
///
/// Two threads of its own: a reader that blocks in `recv` and resumes each request's continuation
/// directly, and a writer that drains a queue of packets, so neither a full socket nor a slow
/// server ever blocks a task of Swift's cooperative pool. The table of pending requests is guarded
/// by one lock (no actor): the reader is a plain thread, and an actor hop per reply would cost a
/// task switch for every 255 KiB READ. When ssh exits, every pending and later request fails with
/// the cause read from ssh's stderr.
package final class SFTPChannel: @unchecked Sendable {
  /// OpenSSH's sftp refuses replies longer than this; text from a login shell read as a length
  /// ("Toda" = 1416586337) is far larger.
  static let maximumPacketLength = 256 * 1024 + 1024

  private let process: SSHProcess
  private let host: String
  private let condition = NSCondition()
  private var pending: [UInt32: CheckedContinuation<SFTPReply, any Error>] = [:]
  private var versionWaiter: CheckedContinuation<SFTPReply, any Error>?
  private var earlyVersion: Result<SFTPReply, SFTPError>?
  private var nextID: UInt32 = 1
  private var outbox: [[UInt8]] = []
  private var failure: SFTPError?
  private var closing = false

  init(process: SSHProcess, host: String) {
    self.process = process
    self.host = host
    let reader = Thread { [self] in readLoop() }
    reader.name = "sftp reader"
    reader.start()
    let writer = Thread { [self] in writeLoop() }
    writer.name = "sftp writer"
    writer.start()
  }

  /// Sends INIT and waits for VERSION, the one exchange without a request id.
  func handshake() async throws -> SFTPReply {
    var initialize = SFTPWriter(type: SFTPPacketType.initialize)
    initialize.u32(3)
    return try await withCheckedThrowingContinuation { continuation in
      condition.lock()
      defer { condition.unlock() }
      if let earlyVersion {
        continuation.resume(with: earlyVersion.mapError { $0 as any Error })
        return
      }
      if let failure {
        continuation.resume(throwing: failure)
        return
      }
      versionWaiter = continuation
      outbox.append(initialize.finish())
      condition.broadcast()
    }
  }

  /// Sends a packet built with id 0 (bytes 5..<9) after giving it the next id; returns its reply.
  /// The packet is taken, not borrowed: writing the id into a borrowed array would copy it.
  func request(_ packet: consuming [UInt8]) async throws -> SFTPReply {
    var packet = consume packet
    return try await withCheckedThrowingContinuation { continuation in
      condition.lock()
      defer { condition.unlock() }
      if let failure {
        continuation.resume(throwing: failure)
        return
      }
      let id = nextID
      nextID &+= 1
      packet[5] = UInt8(truncatingIfNeeded: id >> 24)
      packet[6] = UInt8(truncatingIfNeeded: id >> 16)
      packet[7] = UInt8(truncatingIfNeeded: id >> 8)
      packet[8] = UInt8(truncatingIfNeeded: id)
      pending[id] = continuation
      outbox.append(packet)
      condition.broadcast()
    }
  }

  /// Ends the session: ssh sees EOF on its stdin and exits; later requests fail as closed.
  func close() {
    condition.lock()
    closing = true
    condition.broadcast()
    condition.unlock()
    shutdown(process.socket, Int32(SHUT_WR))
  }

  /// Kills ssh (a stuck connection); the reader then fails what is pending.
  func terminate() { process.signal(SIGKILL) }

  var processID: pid_t { process.pid }

  // MARK: - Threads

  private func writeLoop() {
    while true {
      condition.lock()
      while outbox.isEmpty && failure == nil && !closing { condition.wait() }
      if failure != nil || (closing && outbox.isEmpty) {
        condition.unlock()
        return
      }
      let batch = outbox
      outbox.removeAll(keepingCapacity: true)
      condition.unlock()
      for packet in batch where !send(packet) { return }
    }
  }

  private func send(_ packet: [UInt8]) -> Bool {
    var offset = 0
    while offset < packet.count {
      let sent = packet.withUnsafeBytes { raw in
        Glibc.send(process.socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
      }
      if sent < 0 {
        if errno == EINTR { continue }
        return false  // ssh is gone: the reader sees EOF and fails everything with the cause
      }
      offset += sent
    }
    return true
  }

  private func readLoop() {
    var buffer = [UInt8]()
    buffer.reserveCapacity(Self.maximumPacketLength * 2)
    var chunk = [UInt8](repeating: 0, count: 256 * 1024)
    var sawVersion = false
    readLoop: while true {
      let count = chunk.withUnsafeMutableBytes { recv(process.socket, $0.baseAddress, $0.count, 0) }
      if count < 0 && errno == EINTR { continue }
      if count <= 0 { break }
      buffer.append(contentsOf: chunk[0..<count])
      var start = 0
      while buffer.count - start >= 4 {
        let length =
          Int(buffer[start]) << 24 | Int(buffer[start + 1]) << 16 | Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
        if !sawVersion {
          // The first packet must be VERSION; anything else is a polluted stream, shown escaped.
          let typeKnown = buffer.count - start >= 5
          if length > Self.maximumPacketLength || length < 5 || (typeKnown && buffer[start + 4] != SFTPPacketType.version) {
            fail(Self.pollutedStream(Array(buffer[start..<min(buffer.count, start + 160)]), host: host))
            process.signal(SIGTERM)
            break readLoop
          }
        } else if length > Self.maximumPacketLength || length < 5 {
          fail(SFTPError(.malformed, "\(host): the SFTP server sent a packet of \(length) bytes"))
          process.signal(SIGTERM)
          break readLoop
        }
        guard buffer.count - start >= 4 + length else { break }
        let type = buffer[start + 4]
        if !sawVersion {
          sawVersion = true
          deliverVersion(SFTPReply(type: type, payload: Array(buffer[start + 5..<start + 4 + length])))
        } else {
          let id =
            UInt32(buffer[start + 5]) << 24 | UInt32(buffer[start + 6]) << 16 | UInt32(buffer[start + 7]) << 8
            | UInt32(buffer[start + 8])
          let reply = SFTPReply(type: type, payload: Array(buffer[start + 9..<start + 4 + length]))
          if !deliver(reply, to: id) {
            fail(SFTPError(.malformed, "\(host): the SFTP server answered request \(id), which was not asked"))
            process.signal(SIGTERM)
            break readLoop
          }
        }
        start += 4 + length
      }
      if start > 0 { buffer.removeFirst(start) }
    }
    // EOF or an error: ssh is ending. Its exit status and stderr say why.
    let status = process.waitForExit()
    condition.lock()
    let wasClosing = closing
    let established = sawVersion
    condition.unlock()
    if wasClosing {
      fail(SFTPError(.noConnection, "\(host): the connection is closed"))
    } else if !established && buffer.count > 0 {
      fail(Self.pollutedStream(buffer, host: host))
    } else {
      fail(SSHFailure.classify(stderr: process.stderrText(), exitStatus: status, host: host, established: established))
    }
  }

  // Closed only here: the writer thread may still be inside send() when the reader ends.
  deinit { Glibc.close(process.socket) }

  /// The text shown stops before the first NUL: what follows is the real VERSION reply.
  package static func pollutedStream(_ bytes: [UInt8], host: String) -> SFTPError {
    let text = bytes.prefix(120).prefix { $0 != 0 }
    return SFTPError(
      .streamCorrupted,
      "\(host) printed text before SFTP started: \"\(DisplayText.escape(text.isEmpty ? bytes.prefix(120) : text))\" (the login shell's "
        + "startup files, or the server's sftp command, print on a non-interactive login; make them quiet there)")
  }

  private func deliverVersion(_ reply: SFTPReply) {
    condition.lock()
    let waiter = versionWaiter
    versionWaiter = nil
    if waiter == nil { earlyVersion = .success(reply) }
    condition.unlock()
    waiter?.resume(returning: reply)
  }

  private func deliver(_ reply: SFTPReply, to id: UInt32) -> Bool {
    condition.lock()
    let continuation = pending.removeValue(forKey: id)
    condition.unlock()
    guard let continuation else { return false }
    continuation.resume(returning: reply)
    return true
  }

  /// Records the first failure and fails every waiter with it.
  private func fail(_ error: SFTPError) {
    condition.lock()
    if failure == nil { failure = error }
    let error = failure!
    let waiters = Array(pending.values)
    pending.removeAll()
    let version = versionWaiter
    versionWaiter = nil
    if version == nil && earlyVersion == nil { earlyVersion = .failure(error) }
    condition.broadcast()
    condition.unlock()
    for waiter in waiters { waiter.resume(throwing: error) }
    version?.resume(throwing: error)
  }

  /// The failure that ended the channel, if it has ended.
  var endedWith: SFTPError? {
    condition.lock()
    defer { condition.unlock() }
    return failure
  }
}
