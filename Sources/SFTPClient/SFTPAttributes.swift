/// A file's ATTRS (draft §5). Each field is optional because the server says which ones it sent.
/// Times are whole seconds: SFTP v3 has no finer mtime, so versions compare size + mtime.
public struct SFTPAttributes: Sendable, Equatable {
  public var size: UInt64?
  public var uid: UInt32?
  public var gid: UInt32?
  /// The full st_mode, file type bits included (OpenSSH sends them).
  public var permissions: UInt32?
  public var accessTime: UInt32?
  public var modificationTime: UInt32?
  public var extended: [(type: [UInt8], data: [UInt8])] = []

  public init(
    size: UInt64? = nil, uid: UInt32? = nil, gid: UInt32? = nil, permissions: UInt32? = nil,
    accessTime: UInt32? = nil, modificationTime: UInt32? = nil
  ) {
    self.size = size
    self.uid = uid
    self.gid = gid
    self.permissions = permissions
    self.accessTime = accessTime
    self.modificationTime = modificationTime
  }

  public enum FileType: Sendable, Equatable { case regular, directory, symbolicLink, other }

  public var fileType: FileType? {
    guard let permissions else { return nil }
    switch permissions & 0o170000 {
    case 0o100000: return .regular
    case 0o040000: return .directory
    case 0o120000: return .symbolicLink
    default: return .other
    }
  }

  /// What a safe replace compares: size and whole-second mtime.
  public var version: SFTPVersion? {
    guard let size, let modificationTime else { return nil }
    return SFTPVersion(size: size, modificationTime: modificationTime)
  }

  public static func == (lhs: SFTPAttributes, rhs: SFTPAttributes) -> Bool {
    lhs.size == rhs.size && lhs.uid == rhs.uid && lhs.gid == rhs.gid && lhs.permissions == rhs.permissions
      && lhs.accessTime == rhs.accessTime && lhs.modificationTime == rhs.modificationTime
      && lhs.extended.elementsEqual(rhs.extended) { $0.type == $1.type && $0.data == $1.data }
  }

  private static let flagSize: UInt32 = 0x1
  private static let flagOwner: UInt32 = 0x2
  private static let flagPermissions: UInt32 = 0x4
  private static let flagTimes: UInt32 = 0x8
  private static let flagExtended: UInt32 = 0x8000_0000

  package init(from reader: inout SFTPReader) throws(SFTPError) {
    let flags = try reader.u32()
    if flags & Self.flagSize != 0 { size = try reader.u64() }
    if flags & Self.flagOwner != 0 {
      uid = try reader.u32()
      gid = try reader.u32()
    }
    if flags & Self.flagPermissions != 0 { permissions = try reader.u32() }
    if flags & Self.flagTimes != 0 {
      accessTime = try reader.u32()
      modificationTime = try reader.u32()
    }
    if flags & Self.flagExtended != 0 {
      let count = try reader.u32()
      for _ in 0..<count { extended.append((try reader.string(), try reader.string())) }
    }
  }

  /// Owner and times go together in v3: a write of only one of them sends both or neither.
  func encode(into writer: inout SFTPWriter) {
    var flags: UInt32 = 0
    if size != nil { flags |= Self.flagSize }
    if uid != nil && gid != nil { flags |= Self.flagOwner }
    if permissions != nil { flags |= Self.flagPermissions }
    if accessTime != nil && modificationTime != nil { flags |= Self.flagTimes }
    writer.u32(flags)
    if let size { writer.u64(size) }
    if let uid, let gid {
      writer.u32(uid)
      writer.u32(gid)
    }
    if let permissions { writer.u32(permissions) }
    if let accessTime, let modificationTime {
      writer.u32(accessTime)
      writer.u32(modificationTime)
    }
  }
}

/// The weak version SFTP can state: size and whole-second modification time.
public struct SFTPVersion: Sendable, Hashable {
  public var size: UInt64
  public var modificationTime: UInt32
  public init(size: UInt64, modificationTime: UInt32) {
    self.size = size
    self.modificationTime = modificationTime
  }
}

/// One READDIR entry. `name` is the exact bytes; `longName` is ls -l text for display only.
public struct SFTPDirectoryEntry: Sendable, Equatable {
  public var name: [UInt8]
  public var longName: [UInt8]
  public var attributes: SFTPAttributes
}

/// statvfs@openssh.com: what is free, for quota and "disk full" (OpenSSH PROTOCOL §4.4).
public struct SFTPFileSystemStats: Sendable, Equatable {
  public var blockSize: UInt64
  public var fragmentSize: UInt64
  public var blocks: UInt64
  public var freeBlocks: UInt64
  public var availableBlocks: UInt64
  public var files: UInt64
  public var freeFiles: UInt64
  public var availableFiles: UInt64
  public var fileSystemID: UInt64
  public var flags: UInt64
  public var maximumNameLength: UInt64

  /// Bytes an unprivileged user may still write.
  public var availableBytes: UInt64 { availableBlocks &* fragmentSize }
}

/// limits@openssh.com (PROTOCOL §4.8); zero means "no limit stated".
public struct SFTPLimits: Sendable, Equatable {
  public var maximumPacketLength: UInt64
  public var maximumReadLength: UInt64
  public var maximumWriteLength: UInt64
  public var maximumOpenHandles: UInt64
}

/// An open file or directory on the server: opaque bytes (draft §6: at most 256).
public struct SFTPHandle: Sendable, Hashable {
  public let bytes: [UInt8]
}
