/// OpenSSH's extensions (PROTOCOL §4.3–4.12), each used only when VERSION offered it.
extension SFTPClient {
  func extended(_ name: String, _ build: (inout SFTPWriter) -> Void = { _ in }) async throws -> SFTPReply {
    guard offers(name) else {
      throw SFTPError(.operationUnsupported, "\(DisplayText.escape(Array(configuration.host.utf8))): the server does not offer \(name)")
    }
    return try await send(SFTPPacketType.extended) {
      $0.string(name)
      build(&$0)
    }
  }

  func fetchLimits() async throws -> SFTPLimits {
    let reply = try await extended("limits@openssh.com")
    var reader = try expect(SFTPPacketType.extendedReply, reply, "limits")
    return SFTPLimits(
      maximumPacketLength: try reader.u64(), maximumReadLength: try reader.u64(),
      maximumWriteLength: try reader.u64(), maximumOpenHandles: try reader.u64())
  }

  /// posix-rename@openssh.com: rename(2), replacing the target atomically.
  public func posixRename(_ source: [UInt8], to target: [UInt8]) async throws {
    let reply = try await extended("posix-rename@openssh.com") {
      $0.string(source)
      $0.string(target)
    }
    try expectOK(reply, "replace \(Self.describe(target))")
  }

  /// fsync@openssh.com: the bytes written through `handle` reach the server's disk.
  public func fsync(_ handle: SFTPHandle) async throws {
    let reply = try await extended("fsync@openssh.com") { $0.string(handle.bytes) }
    try expectOK(reply, "fsync")
  }

  /// statvfs@openssh.com: free space of the filesystem holding `path`.
  public func fileSystemStats(_ path: [UInt8]) async throws -> SFTPFileSystemStats {
    let reply = try await extended("statvfs@openssh.com") { $0.string(path) }
    var reader = try expect(SFTPPacketType.extendedReply, reply, "free space of \(Self.describe(path))")
    return SFTPFileSystemStats(
      blockSize: try reader.u64(), fragmentSize: try reader.u64(), blocks: try reader.u64(),
      freeBlocks: try reader.u64(), availableBlocks: try reader.u64(), files: try reader.u64(),
      freeFiles: try reader.u64(), availableFiles: try reader.u64(), fileSystemID: try reader.u64(),
      flags: try reader.u64(), maximumNameLength: try reader.u64())
  }

  /// hardlink@openssh.com: a second name for `existing`.
  public func hardLink(_ existing: [UInt8], as newPath: [UInt8]) async throws {
    let reply = try await extended("hardlink@openssh.com") {
      $0.string(existing)
      $0.string(newPath)
    }
    try expectOK(reply, "link \(Self.describe(newPath))")
  }

  /// copy-data: the server copies `length` bytes (0 = to the end) between two open handles.
  public func copyData(
    from source: SFTPHandle, offset: UInt64 = 0, length: UInt64 = 0, to target: SFTPHandle, at targetOffset: UInt64 = 0
  ) async throws {
    let reply = try await extended("copy-data") {
      $0.string(source.bytes)
      $0.u64(offset)
      $0.u64(length)
      $0.string(target.bytes)
      $0.u64(targetOffset)
    }
    try expectOK(reply, "copy on the server")
  }

  /// The login folder: home-directory with an empty user name, else expand-path@openssh.com of
  /// "~", else REALPATH of ".". OpenSSH 9.2's server answers FAILURE to home-directory for an
  /// empty name (later releases take it as "the login user"), so each step falls back to the next.
  public func homeDirectory() async throws -> [UInt8] {
    if offers("home-directory"),
      let home = try? singleName(try await extended("home-directory") { $0.string([]) }, "home folder")
    {
      return home
    }
    if offers("expand-path@openssh.com"), let home = try? await expandPath(Array("~".utf8)) { return home }
    return try await realPath(Array(".".utf8))
  }

  /// home-directory: the home folder of another user on the server.
  public func homeDirectory(of user: [UInt8]) async throws -> [UInt8] {
    try singleName(try await extended("home-directory") { $0.string(user) }, "home folder of \(Self.describe(user))")
  }

  /// expand-path@openssh.com: REALPATH that also expands `~` and `~user`.
  public func expandPath(_ path: [UInt8]) async throws -> [UInt8] {
    let reply = try await extended("expand-path@openssh.com") { $0.string(path) }
    return try singleName(reply, "resolve \(Self.describe(path))")
  }
}
