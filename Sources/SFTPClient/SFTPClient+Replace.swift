import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Safe replace (remote-providers.md §2.4, §7 traps 1–2): the old file is never truncated or
/// removed before the new bytes are complete and durable on the server.
extension SFTPClient {
  /// Writes the local file to a temporary name in the target's folder (OPEN EXCL), fsyncs it,
  /// copies the old permission bits, checks the size arrived, then compares the target with `base`
  /// (nil = the target must not exist) and renames over it: `posix-rename` when it exists
  /// (atomic), plain RENAME when it does not (refuses to clobber a file created meanwhile).
  /// A target that changed is a `.conflict`: the temporary file is removed and the target is left
  /// as it is; the caller still has its bytes. Returns the target's new attributes.
  ///
  /// `temporary` is the name of an upload that may be tried again (``temporaryName(for:token:)``,
  /// from its journal entry): whatever an earlier attempt left under it (killed, or its link cut
  /// before it could clean up) is removed first, so no attempt leaves a file behind for ever. Only
  /// that name is removed: another client's temporary files are never touched. A new file is made
  /// under it (OPEN EXCL), never the leftover reopened: an old session the server has not noticed
  /// is dead may still write into the leftover's handle. Nil: a fresh random name.
  @discardableResult
  public func replace(
    _ target: [UInt8], from localPath: String, expecting base: SFTPVersion?, temporary owned: [UInt8]? = nil,
    progress: SFTPProgress? = nil
  ) async throws -> SFTPAttributes {
    let (fd, size) = try Self.openLocal(localPath)
    defer { Glibc.close(fd) }

    let temporary = owned ?? Self.temporaryName(for: target)
    if let owned {
      do {
        try await remove(owned)
      } catch let error as SFTPError where error.code == .noSuchFile {}
    }
    let old = try? await lstat(target)
    let handle = try await open(
      temporary, flags: [.write, .create, .exclusive],
      attributes: SFTPAttributes(permissions: (old?.permissions ?? 0o644) & 0o7777))
    do {
      do {
        try await writeFrom(fd, size: size, to: handle, progress: progress)
        if offers("fsync@openssh.com") { try await fsync(handle) }
        try await close(handle)
      } catch let error as SFTPError {
        try? await close(handle)
        throw await classifyWriteFailure(error, target)
      }
      let written = try await lstat(temporary)
      guard written.size == size else {
        throw SFTPError(.failure, "the upload of \(Self.describe(target)) arrived incomplete (\(written.size ?? 0) of \(size) bytes)")
      }
      try await swapIn(temporary, over: target, expecting: base)
      return try await lstat(target)
    } catch {
      try? await remove(temporary)
      throw error
    }
  }

  /// The short window between the comparison and the rename is SFTP v3's unavoidable TOCTOU.
  private func swapIn(_ temporary: [UInt8], over target: [UInt8], expecting base: SFTPVersion?) async throws {
    let current: SFTPAttributes?
    do {
      current = try await lstat(target)
    } catch let error as SFTPError where error.code == .noSuchFile {
      current = nil
    }
    switch (base, current) {
    case (nil, nil):
      try await rename(temporary, to: target)
    case (let base?, let current?) where current.version == base:
      if offers("posix-rename@openssh.com") {
        try await posixRename(temporary, to: target)
      } else {
        // Never remove-then-rename: move the old file aside first, so a failure keeps one copy.
        let aside = Self.temporaryName(for: target, suffix: "old")
        try await rename(target, to: aside)
        try await rename(temporary, to: target)
        try? await remove(aside)
      }
    default:
      let now = current?.version.map { "\($0.size) bytes, modified \($0.modificationTime)" } ?? "gone"
      let expected = base.map { "\($0.size) bytes, modified \($0.modificationTime)" } ?? "absent"
      throw SFTPError(
        .conflict, "\(Self.describe(target)) changed on the server (expected \(expected), found \(now)); it was not replaced")
    }
  }

  /// `.NAME.folio-RANDOM.part` beside the target: same folder, so the rename cannot cross filesystems.
  static func temporaryName(for target: [UInt8], suffix: String = "part") -> [UInt8] {
    temporaryName(for: target, tag: String(UInt64.random(in: 0...UInt64.max), radix: 36), suffix: suffix)
  }

  /// `.NAME.folio-TOKEN.part` beside the target: the temporary file of an upload named by `token`
  /// (its journal entry's), the same for each of its attempts. Only letters, digits and "-" of
  /// the token are kept.
  public static func temporaryName(for target: [UInt8], token: String) -> [UInt8] {
    let tag = token.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }.prefix(32)
    return temporaryName(for: target, tag: String(tag), suffix: "part")
  }

  /// NAME is shortened so the whole name stays within the 255 bytes of NAME_MAX (a long name's
  /// upload failed with a bare "Failure" otherwise).
  private static func temporaryName(for target: [UInt8], tag: String, suffix: String) -> [UInt8] {
    let slash = target.lastIndex(of: UInt8(ascii: "/"))
    let folder = slash.map { Array(target[...$0]) } ?? []
    let name = slash.map { Array(target[($0 + 1)...]) } ?? target
    let tail = Array(".folio-\(tag).\(suffix)".utf8)
    return folder + Array(".".utf8) + name.prefix(255 - 1 - tail.count) + tail
  }
}
