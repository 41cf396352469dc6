import CFolioSystem
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The kind of filesystem a folder lives on, as far as SQLite cares.
///
/// WAL needs shared memory between every process using the database, on one host: "WAL does not
/// work over a network filesystem" (test plan §1.4). Over SSH, `$HOME` is often NFS, so the index
/// asks the kernel what it is opening on (`statfs` `f_type`) and falls back to a rollback journal
/// there.
public struct StorageLocation: Sendable, Equatable, CustomStringConvertible {
  /// The `f_type` magic number `statfs(2)` reported, or nil when it could not be read.
  public let filesystemType: UInt32?
  /// True for network and FUSE filesystems, where WAL is never used.
  public let isNetwork: Bool

  public init(filesystemType: UInt32?, isNetwork: Bool) {
    self.filesystemType = filesystemType
    self.isNetwork = isNetwork
  }

  /// A local filesystem of unknown type.
  public static let local = StorageLocation(filesystemType: nil, isNetwork: false)
  /// A network filesystem of unknown type (for tests and for users who know better than statfs).
  public static let network = StorageLocation(filesystemType: nil, isNetwork: true)

  /// `f_type` values of the filesystems treated as network ones (from `linux/magic.h` and the
  /// filesystems' own headers). FUSE is on the list because sshfs, rclone mount and most other FUSE
  /// filesystems are remote, and none promises the shared memory WAL needs.
  public static let networkFilesystemTypes: [UInt32: String] = [
    0x6969: "nfs",
    0x517B: "smb",
    0xFF53_4D42: "cifs",
    0xFE53_4D42: "smb2",
    0x6573_5546: "fuse",
    0x0102_1997: "9p",
    0x5346_414F: "afs",
    0x00C3_6400: "ceph",
    0x0BD0_0BD0: "lustre",
    0x4750_4653: "gpfs",
  ]

  /// Asks the kernel which filesystem holds `folder`. An unreadable folder counts as local: opening
  /// the database there reports the real problem.
  public static func detect(_ folder: URL) -> StorageLocation {
    guard let type = filesystemType(of: folder) else { return .local }
    return StorageLocation(filesystemType: type, isNetwork: networkFilesystemTypes[type] != nil)
  }

  /// `statfs(2)`'s `f_type`, truncated to the 32 bits the magic numbers use (CIFS's has the top
  /// bit set, and `f_type` is a signed long). Glibc's Swift module does not include
  /// `<sys/statfs.h>`, hence the CFolioSystem shim.
  static func filesystemType(of folder: URL) -> UInt32? {
    let type = folder.withUnsafeFileSystemRepresentation { path -> Int in
      guard let path else { return -1 }
      return folio_fs_type(path)
    }
    return type == -1 ? nil : UInt32(truncatingIfNeeded: type)
  }

  public var description: String {
    guard let type = filesystemType else { return isNetwork ? "network filesystem" : "local filesystem" }
    if let name = Self.networkFilesystemTypes[type] { return "\(name) (network filesystem)" }
    return "local filesystem 0x" + String(type, radix: 16)
  }
}
