/// The draft's file and folder requests (draft §6).
extension SFTPClient {
  public func open(_ path: [UInt8], flags: SFTPOpenFlags, attributes: SFTPAttributes = SFTPAttributes()) async throws
    -> SFTPHandle
  {
    let reply = try await send(SFTPPacketType.open) {
      $0.string(path)
      $0.u32(flags.rawValue)
      attributes.encode(into: &$0)
    }
    var reader = try expect(SFTPPacketType.handle, reply, "open \(Self.describe(path))")
    return SFTPHandle(bytes: try reader.string())
  }

  /// Closes a handle. Its status matters: "even a close can fail" (draft §6.3), e.g. a full disk.
  public func close(_ handle: SFTPHandle) async throws {
    let reply = try await send(SFTPPacketType.close) { $0.string(handle.bytes) }
    try expectOK(reply, "close")
  }

  /// Up to `length` bytes at `offset`; an empty array at end of file. May return fewer bytes
  /// than asked (a pipe, a file growing or shrinking): callers ask again for the rest.
  public func read(_ handle: SFTPHandle, offset: UInt64, length: Int) async throws -> [UInt8] {
    let reply = try await send(SFTPPacketType.read) {
      $0.string(handle.bytes)
      $0.u64(offset)
      $0.u32(UInt32(length))
    }
    if reply.type == SFTPPacketType.status {
      var reader = SFTPReader(reply.payload)
      let code = try reader.u32()
      if code == 1 { return [] }  // SSH_FX_EOF
      throw Self.statusError(code, &reader, "read")
    }
    var reader = try expect(SFTPPacketType.data, reply, "read")
    return try reader.string()
  }

  public func write(_ handle: SFTPHandle, offset: UInt64, bytes: some Collection<UInt8>) async throws {
    var writer = SFTPWriter(type: SFTPPacketType.write, capacity: bytes.count + handle.bytes.count + 24)
    writer.u32(0)
    writer.string(handle.bytes)
    writer.u64(offset)
    writer.string(bytes)
    let reply = try await channel.request(writer.finish())
    try expectOK(reply, "write")
  }

  public func lstat(_ path: [UInt8]) async throws -> SFTPAttributes {
    try await attributes(SFTPPacketType.lstat, path)
  }

  public func stat(_ path: [UInt8]) async throws -> SFTPAttributes {
    try await attributes(SFTPPacketType.stat, path)
  }

  public func fstat(_ handle: SFTPHandle) async throws -> SFTPAttributes {
    let reply = try await send(SFTPPacketType.fstat) { $0.string(handle.bytes) }
    var reader = try expect(SFTPPacketType.attrs, reply, "fstat")
    return try SFTPAttributes(from: &reader)
  }

  private func attributes(_ type: UInt8, _ path: [UInt8]) async throws -> SFTPAttributes {
    let reply = try await send(type) { $0.string(path) }
    var reader = try expect(SFTPPacketType.attrs, reply, Self.describe(path))
    return try SFTPAttributes(from: &reader)
  }

  public func setAttributes(_ path: [UInt8], _ attributes: SFTPAttributes) async throws {
    let reply = try await send(SFTPPacketType.setstat) {
      $0.string(path)
      attributes.encode(into: &$0)
    }
    try expectOK(reply, "set attributes of \(Self.describe(path))")
  }

  public func setAttributes(_ handle: SFTPHandle, _ attributes: SFTPAttributes) async throws {
    let reply = try await send(SFTPPacketType.fsetstat) {
      $0.string(handle.bytes)
      attributes.encode(into: &$0)
    }
    try expectOK(reply, "set attributes")
  }

  public func openDirectory(_ path: [UInt8]) async throws -> SFTPHandle {
    let reply = try await send(SFTPPacketType.opendir) { $0.string(path) }
    var reader = try expect(SFTPPacketType.handle, reply, "open folder \(Self.describe(path))")
    return SFTPHandle(bytes: try reader.string())
  }

  /// The next batch of entries (OpenSSH sends ≤ 100), or nil at the end: only then is the listing
  /// complete, which is what lets a poller infer deletions (remote-providers.md §1.3).
  public func readDirectory(_ handle: SFTPHandle) async throws -> [SFTPDirectoryEntry]? {
    let reply = try await send(SFTPPacketType.readdir) { $0.string(handle.bytes) }
    if reply.type == SFTPPacketType.status {
      var reader = SFTPReader(reply.payload)
      let code = try reader.u32()
      if code == 1 { return nil }
      throw Self.statusError(code, &reader, "list folder")
    }
    var reader = try expect(SFTPPacketType.name, reply, "list folder")
    return try Self.directoryEntries(&reader)
  }

  /// The entries of a NAME reply's payload (count, then name, long name and ATTRS each).
  package static func directoryEntries(_ reader: inout SFTPReader) throws(SFTPError) -> [SFTPDirectoryEntry] {
    let count = try reader.u32()
    var entries: [SFTPDirectoryEntry] = []
    entries.reserveCapacity(Int(min(count, 1000)))
    for _ in 0..<count {
      let name = try reader.string()
      let longName = try reader.string()
      entries.append(SFTPDirectoryEntry(name: name, longName: longName, attributes: try SFTPAttributes(from: &reader)))
    }
    return entries
  }

  /// READDIRs kept in flight on one folder handle.
  static let directoryReadsInFlight = 8

  /// Every entry of a folder except "." and "..", batch by batch as the replies come; `batch`
  /// sees each reply as it arrives (for paging into the index while the listing goes on).
  ///
  /// READDIRs are pipelined, `directoryReadsInFlight` at once: a folder of 100,000 entries is
  /// ~1,000 batches, and one at a time they cost a round trip each (20 s over a 20 ms link;
  /// OpenSSH's `sftp` and sshfs ask one at a time). Each READDIR returns the next batch of the
  /// handle, and once one answers "end", none is asked any more; the ones already in flight are
  /// still collected, since a server that serves requests concurrently (rclone) may answer an
  /// earlier batch after the end. So the listing is complete exactly when it was one at a time.
  public func listDirectory(
    _ path: [UInt8], batch: (([SFTPDirectoryEntry]) -> Void)? = nil
  ) async throws -> [SFTPDirectoryEntry] {
    let handle = try await openDirectory(path)
    var all: [SFTPDirectoryEntry] = []
    do {
      try await withThrowingTaskGroup(of: [SFTPDirectoryEntry]?.self) { group in
        var inFlight = 0
        var ended = false
        for _ in 0..<Self.directoryReadsInFlight {
          group.addTask { try await self.readDirectory(handle) }
          inFlight += 1
        }
        while inFlight > 0, let reply = try await group.next() {
          inFlight -= 1
          guard let entries = reply else {
            ended = true
            continue
          }
          let kept = entries.filter { $0.name != [0x2E] && $0.name != [0x2E, 0x2E] }
          batch?(kept)
          all += kept
          if !ended {
            group.addTask { try await self.readDirectory(handle) }
            inFlight += 1
          }
        }
      }
    } catch {
      try? await close(handle)
      throw error
    }
    try await close(handle)
    return all
  }

  public func remove(_ path: [UInt8]) async throws {
    let reply = try await send(SFTPPacketType.remove) { $0.string(path) }
    try expectOK(reply, "remove \(Self.describe(path))")
  }

  public func makeDirectory(_ path: [UInt8], attributes: SFTPAttributes = SFTPAttributes()) async throws {
    let reply = try await send(SFTPPacketType.mkdir) {
      $0.string(path)
      attributes.encode(into: &$0)
    }
    try expectOK(reply, "make folder \(Self.describe(path))")
  }

  public func removeDirectory(_ path: [UInt8]) async throws {
    let reply = try await send(SFTPPacketType.rmdir) { $0.string(path) }
    try expectOK(reply, "remove folder \(Self.describe(path))")
  }

  /// The canonical absolute path ("." is the login folder).
  public func realPath(_ path: [UInt8]) async throws -> [UInt8] {
    let reply = try await send(SFTPPacketType.realpath) { $0.string(path) }
    return try singleName(reply, "resolve \(Self.describe(path))")
  }

  /// SSH_FXP_RENAME: refuses to replace an existing target (draft §6.5; OpenSSH: link + unlink).
  public func rename(_ source: [UInt8], to target: [UInt8]) async throws {
    let reply = try await send(SFTPPacketType.rename) {
      $0.string(source)
      $0.string(target)
    }
    try expectOK(reply, "rename \(Self.describe(source)) to \(Self.describe(target))")
  }

  public func readLink(_ path: [UInt8]) async throws -> [UInt8] {
    let reply = try await send(SFTPPacketType.readlink) { $0.string(path) }
    return try singleName(reply, "read link \(Self.describe(path))")
  }

  /// Makes `linkPath` point at `target`. OpenSSH's server takes the two in the reverse order of the
  /// draft (PROTOCOL §4.1), and every server in use is OpenSSH's or follows it.
  public func symlink(_ linkPath: [UInt8], pointingTo target: [UInt8]) async throws {
    let reply = try await send(SFTPPacketType.symlink) {
      $0.string(target)
      $0.string(linkPath)
    }
    try expectOK(reply, "make link \(Self.describe(linkPath))")
  }

  func singleName(_ reply: SFTPReply, _ context: String) throws -> [UInt8] {
    var reader = try expect(SFTPPacketType.name, reply, context)
    guard try reader.u32() >= 1 else { throw SFTPError.malformed("\(context): no name in the reply") }
    return try reader.string()
  }
}
