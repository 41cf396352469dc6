import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Called with the bytes done so far and the total when known. Called from several tasks: it
/// must be quick (store a number; the UI reads it on its own schedule).
public typealias SFTPProgress = @Sendable (_ done: UInt64, _ total: UInt64?) -> Void

/// Pipelined transfers between a remote file and a local one (remote-providers.md §2.3).
///
/// Up to 64 requests and at most 4 MiB in flight, of the server's `limits` size (OpenSSH:
/// 255 KiB) or 32 KiB: what OpenSSH's `sftp` does, and the memory stays bounded whatever the size.
/// Each request is a child task; replies may arrive in any order and land with pwrite at their
/// offset, so no reordering buffer is needed.
extension SFTPClient {
  static let maximumRequestsInFlight = 64
  static let maximumBytesInFlight = 4 << 20

  func window(for requestLength: Int) -> Int {
    max(1, min(Self.maximumRequestsInFlight, Self.maximumBytesInFlight / requestLength))
  }

  /// Downloads `remote` into the local file at `localPath` (created or truncated, mode 0600).
  /// The remote file is FSTAT-ed before and after: if it changed meanwhile the copy may splice two
  /// versions, so that is a `.conflict` error. Returns the attributes the copy matches.
  @discardableResult
  public func download(_ remote: [UInt8], to localPath: String, progress: SFTPProgress? = nil) async throws
    -> SFTPAttributes
  {
    let handle = try await open(remote, flags: .read)
    do {
      let before = try await fstat(handle)
      let fd = Glibc.open(localPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
      guard fd >= 0 else { throw SFTPError(.localIO, "cannot write \(localPath): \(String(cString: strerror(errno)))") }
      defer { Glibc.close(fd) }
      let length = try await readInto(fd, from: handle, expectedSize: before.size, progress: progress)
      let after = try await fstat(handle)
      try await close(handle)
      guard before.version == after.version, after.size == nil || after.size == length else {
        throw SFTPError(.conflict, "\(Self.describe(remote)) changed on the server while it was downloaded")
      }
      return after
    } catch {
      try? await close(handle)
      throw error
    }
  }

  /// The pipelined READ loop. A short read asks again for the rest; EOF ends the schedule.
  /// Beyond the size FSTAT gave, one request at a time looks for more (a growing file).
  private func readInto(_ fd: Int32, from handle: SFTPHandle, expectedSize: UInt64?, progress: SFTPProgress?)
    async throws -> UInt64
  {
    let chunk = readLength
    let window = window(for: chunk)
    let knownSize = expectedSize ?? 0
    var nextOffset: UInt64 = 0
    var endOfFile = UInt64.max
    var done: UInt64 = 0
    var running = 0
    try await withThrowingTaskGroup(of: (bytes: UInt64, endOfFile: UInt64?).self) { group in
      func canSchedule() -> Bool {
        guard nextOffset < endOfFile, running < window else { return false }
        return nextOffset < knownSize || running == 0
      }
      while true {
        while canSchedule() {
          let offset = nextOffset
          nextOffset += UInt64(chunk)
          running += 1
          group.addTask { try await self.readChunk(handle, offset: offset, length: chunk, into: fd) }
        }
        guard let result = try await group.next() else { break }
        running -= 1
        done += result.bytes
        if let end = result.endOfFile { endOfFile = min(endOfFile, end) }
        progress?(done, expectedSize)
      }
    }
    return endOfFile == .max ? nextOffset : endOfFile
  }

  /// One window slot: reads [offset, offset+length) with as many READs as short reads need.
  private func readChunk(_ handle: SFTPHandle, offset: UInt64, length: Int, into fd: Int32) async throws
    -> (bytes: UInt64, endOfFile: UInt64?)
  {
    var position = offset
    var remaining = length
    while remaining > 0 {
      let data = try await read(handle, offset: position, length: remaining)
      if data.isEmpty { return (position - offset, position) }
      try Self.writeAll(fd, data, at: position)
      position += UInt64(data.count)
      remaining -= data.count
    }
    return (UInt64(length), nil)
  }

  static func writeAll(_ fd: Int32, _ data: [UInt8], at offset: UInt64) throws {
    var written = 0
    while written < data.count {
      let count = data.withUnsafeBytes { pwrite(fd, $0.baseAddress! + written, $0.count - written, off_t(offset) + off_t(written)) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { throw SFTPError(.localIO, "cannot write the downloaded file: \(String(cString: strerror(errno)))") }
      written += count
    }
  }

  /// Uploads the local file into `remote`, opened with `flags` (default: create or truncate).
  /// Returns the bytes sent. For a replace that cannot lose the old file, use ``replace(_:from:expecting:progress:)``.
  @discardableResult
  public func upload(
    from localPath: String, to remote: [UInt8], flags: SFTPOpenFlags = [.write, .create, .truncate],
    progress: SFTPProgress? = nil
  ) async throws -> UInt64 {
    let (fd, size) = try Self.openLocal(localPath)
    defer { Glibc.close(fd) }
    let handle = try await open(remote, flags: flags, attributes: SFTPAttributes(permissions: 0o644))
    do {
      try await writeFrom(fd, size: size, to: handle, progress: progress)
      try await close(handle)
    } catch let error as SFTPError {
      try? await close(handle)
      throw await classifyWriteFailure(error, remote)
    }
    return size
  }

  /// The pipelined WRITE loop: ≤ window writes unacknowledged, each read from the local file
  /// with pread just before it is sent, straight into its packet.
  func writeFrom(_ fd: Int32, size: UInt64, to handle: SFTPHandle, progress: SFTPProgress?) async throws {
    let chunk = writeLength
    let window = window(for: chunk)
    var nextOffset: UInt64 = 0
    var done: UInt64 = 0
    var running = 0
    try await withThrowingTaskGroup(of: UInt64.self) { group in
      while true {
        while running < window && nextOffset < size {
          let offset = nextOffset
          let length = Int(min(UInt64(chunk), size - offset))
          nextOffset += UInt64(length)
          running += 1
          group.addTask {
            try await self.write(handle, offset: offset, length: length, from: fd)
            return UInt64(length)
          }
        }
        guard let sent = try await group.next() else { break }
        running -= 1
        done += sent
        progress?(done, size)
      }
    }
  }

  /// The local file an upload or a replace sends, open for reading, and its size.
  static func openLocal(_ localPath: String) throws -> (fd: Int32, size: UInt64) {
    let fd = Glibc.open(localPath, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw SFTPError(.localIO, "cannot read \(localPath): \(String(cString: strerror(errno)))") }
    var info = Glibc.stat()
    guard Glibc.fstat(fd, &info) == 0 else {
      Glibc.close(fd)
      throw SFTPError(.localIO, "cannot read \(localPath)")
    }
    return (fd, UInt64(info.st_size))
  }

  /// One WRITE of `length` bytes of the local file at `offset`. The bytes are read with pread
  /// straight into the packet that carries them: no buffer in between, no copy (this loop is where
  /// an upload spends its CPU, next to ssh's encryption on the same cores).
  func write(_ handle: SFTPHandle, offset: UInt64, length: Int, from fd: Int32) async throws {
    let header = 4 + 1 + 4 + (4 + handle.bytes.count) + 8 + 4
    var packet = try [UInt8](unsafeUninitializedCapacity: header + length) { buffer, initialized in
      var writer = SFTPWriter(type: SFTPPacketType.write, capacity: header)
      writer.u32(0)
      writer.string(handle.bytes)
      writer.u64(offset)
      writer.u32(UInt32(length))
      let head = writer.bytes
      _ = buffer.initialize(from: head)
      initialized = head.count
      var got = 0
      while got < length {
        let count = pread(fd, buffer.baseAddress! + header + got, length - got, off_t(offset) + off_t(got))
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else {
          throw SFTPError(
            .localIO,
            count == 0 ? "the local file shrank during the upload" : "cannot read the local file: \(String(cString: strerror(errno)))")
        }
        got += count
      }
      initialized = header + length
    }
    SFTPWriter.patchLength(&packet)
    let reply = try await channel.request(consume packet)
    try expectOK(reply, "write")
  }

  /// OpenSSH maps ENOSPC and EDQUOT to plain FAILURE; statvfs tells a full disk from other causes.
  func classifyWriteFailure(_ error: SFTPError, _ path: [UInt8]) async -> SFTPError {
    guard error.code == .failure, offers("statvfs@openssh.com") else { return error }
    let folder = Self.parentFolder(of: path)
    guard let stats = try? await fileSystemStats(folder), stats.availableBytes < UInt64(writeLength) else {
      return error
    }
    return SFTPError(.diskFull, "cannot write \(Self.describe(path)): the server's disk is full", status: error.status)
  }

  /// The folder part of a path ("." for a bare name, "/" for a name at the root).
  static func parentFolder(of path: [UInt8]) -> [UInt8] {
    guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return [UInt8(ascii: ".")] }
    return slash == 0 ? [UInt8(ascii: "/")] : Array(path[..<slash])
  }
}
