import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// The path an opener is given for a remote item: the item's own name, in a folder of its own.
///
/// The content store names a file by the hash of its identifier (``ContentStore``), which is right
/// for the store and wrong for an editor: vim, and most programs, choose a file type from the
/// name's extension, and show the name in their title. So an opener gets
/// `content/.open/PID-RANDOM/<name>`, a hard link to the stored file (same filesystem, no copy).
///
/// An editor that writes in place writes the stored file through the link. One that saves by
/// renaming a new file over the old (vim with `backupcopy=no`, many GUI editors) replaces only the
/// link: ``settle()`` follows the path, not the inode, and moves what is at the path into the store
/// before the edits are noticed, so the save is uploaded as any other.
///
/// The folder stays after the opener returns (a program detached from its opener may still save
/// there, through the link); folders older than a day are removed when the next one is made.
public struct OpenedCopy: Sendable {
  /// The stored file (`content/<domain>/<key>`).
  public let stored: URL
  /// What the opener gets: `stored` when no link could be made (a store on a filesystem without
  /// hard links), else the named link.
  public let url: URL

  /// How long a folder of an opened copy is kept after it was made.
  static let keptFor: TimeInterval = 86_400

  /// Makes the named link for `stored`, under `root`/.open (the content root).
  ///
  /// Never fails: where no link can be made the opener gets the stored file itself, as before.
  public static func make(for stored: URL, name: ItemName, contentRoot root: URL) -> OpenedCopy {
    let parent = root.appendingPathComponent(".open", isDirectory: true)
    sweep(parent)
    let folder = parent.appendingPathComponent("\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))")
    let url = folder.appendingPathComponent(fileSystemName(name), isDirectory: false)
    guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil,
      link(stored.path, url.path) == 0
    else {
      try? FileManager.default.removeItem(at: folder)
      return OpenedCopy(stored: stored, url: stored)
    }
    return OpenedCopy(stored: stored, url: url)
  }

  /// After the opener returned: when the named path no longer is the stored file (an editor
  /// saved by renaming over it), what is there becomes the stored file (an atomic rename in the
  /// same filesystem), and the name is linked to it again for a program still holding the name.
  /// The stored file's stamp changed with its inode: noticing the edits finds them.
  ///
  /// - Returns: whether the stored file was replaced by what the editor saved.
  @discardableResult
  public func settle() -> Bool {
    guard url != stored else { return false }
    var atName = stat()
    var inStore = stat()
    guard lstat(url.path, &atName) == 0, (atName.st_mode & S_IFMT) == S_IFREG else { return false }
    if lstat(stored.path, &inStore) == 0, inStore.st_ino == atName.st_ino, inStore.st_dev == atName.st_dev { return false }
    guard (try? DurableFile.publish(url, as: stored)) != nil else { return false }
    _ = link(stored.path, url.path)
    return true
  }

  /// A name a file system takes: the item's bytes with `/` and NUL (which no file name can hold)
  /// and control characters (kept out of a terminal that shows the path) as `_`; `.` and `..` as
  /// `_`; at most 255 bytes, keeping the extension (what the editor reads).
  public static func fileSystemName(_ name: ItemName) -> String {
    var bytes = name.bytes.map { b -> UInt8 in b == 0x2F || b < 0x20 || b == 0x7F ? 0x5F : b }
    if bytes.isEmpty || bytes == [0x2E] || bytes == [0x2E, 0x2E] { bytes = [0x5F] }
    if bytes.count > 255 {
      let dot = bytes.lastIndex(of: 0x2E).map { bytes.count - $0 } ?? 0
      let keep = dot > 0 && dot < 32 ? Array(bytes.suffix(dot)) : []
      bytes = Array(bytes.prefix(255 - keep.count)) + keep
    }
    // Invalid UTF-8 (a name from a server) becomes U+FFFD: the path must be a String for argv.
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Removes the folders of opened copies older than ``keptFor``.
  static func sweep(_ parent: URL) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return }
    let now = Date().timeIntervalSince1970
    for n in names {
      let folder = parent.appendingPathComponent(n, isDirectory: true)
      var info = stat()
      guard lstat(folder.path, &info) == 0, now - Double(info.st_mtim.tv_sec) > keptFor else { continue }
      try? FileManager.default.removeItem(at: folder)
    }
  }
}

extension SyncEngine {
  /// The path to give an opener for `item`'s materialized copy at `stored` (``OpenedCopy``).
  public func openedCopy(of stored: URL, for item: Item) -> OpenedCopy {
    OpenedCopy.make(for: stored, name: item.filename, contentRoot: store.root)
  }
}
