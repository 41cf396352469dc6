import Foundation
import ProviderAPI

/// One item in a freedesktop trash: `files/<name>` plus, normally, `info/<name>.trashinfo`.
///
/// The lstat device and inode are kept so callers can build stable identifiers, and so
/// ``FreedesktopTrash/restore(_:to:)`` and ``FreedesktopTrash/deletePermanently(_:)`` can check
/// that `files/<name>` is still the item that was listed (another program may have emptied the
/// trash and reused the name in between).
public struct TrashEntry: Sendable, Hashable {
  /// The trash folder: `$XDG_DATA_HOME/Trash`, `$topdir/.Trash/$uid` or `$topdir/.Trash-$uid`.
  public let trashDirectory: ItemPath
  /// The name inside `files/` (and, with `.trashinfo` appended, inside `info/`).
  public let name: ItemName
  /// Where the item was, as exact bytes; nil when the `.trashinfo` is missing (an orphan in
  /// `files/`) or unusable. Restoring such an entry needs an explicit destination.
  public let originalPath: ItemPath?
  /// When it was trashed (local time in the file); nil when missing or malformed.
  public let deletionDate: Date?
  /// True when `info/<name>.trashinfo` exists, even if it could not be parsed.
  public let hasInfoFile: Bool
  public let isDirectory: Bool
  public let isSymbolicLink: Bool
  /// lstat size in bytes (for a folder, the size of the folder entry itself, not of its contents).
  public let size: Int64
  /// The item's own modification time (lstat), not when it was trashed.
  public let modificationDate: Date?
  public let device: UInt64
  public let inode: UInt64

  public init(
    trashDirectory: ItemPath, name: ItemName, originalPath: ItemPath?, deletionDate: Date?,
    hasInfoFile: Bool, isDirectory: Bool, isSymbolicLink: Bool, size: Int64, device: UInt64, inode: UInt64,
    modificationDate: Date? = nil
  ) {
    self.trashDirectory = trashDirectory
    self.name = name
    self.originalPath = originalPath
    self.deletionDate = deletionDate
    self.hasInfoFile = hasInfoFile
    self.isDirectory = isDirectory
    self.isSymbolicLink = isSymbolicLink
    self.size = size
    self.modificationDate = modificationDate
    self.device = device
    self.inode = inode
  }

  /// `<trash>/files/<name>`: where the trashed item lives now.
  public var filePath: ItemPath {
    PosixPath.child(trashDirectory, "files").appending(name)
  }

  /// `<trash>/info/<name>.trashinfo`.
  public var infoPath: ItemPath {
    PosixPath.child(trashDirectory, "info").appending(
      ItemName(bytes: name.bytes + Array(TrashInfoFormat.fileExtension.utf8)))
  }

  /// The original name (last component of the original path), or the trash name for orphans.
  public var originalName: ItemName { originalPath?.lastComponent ?? name }
}
