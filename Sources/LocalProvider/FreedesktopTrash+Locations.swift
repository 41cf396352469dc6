import Foundation
import Glibc
import ProviderAPI

/// Which trash folders exist, which one takes a given item, and reading their entries.
extension FreedesktopTrash {
  /// One trash folder and how `Path` values in it are written and resolved.
  struct TrashLocation: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
      /// `$XDG_DATA_HOME/Trash`: absolute paths.
      case home
      /// `$topdir/.Trash/$uid`, in an administrator-made sticky `.Trash`.
      case sharedTopFolder
      /// `$topdir/.Trash-$uid`.
      case userTopFolder
    }

    var directory: ItemPath
    var kind: Kind
    /// What a relative `Path` is relative to: the top folder of the mount for top-folder trashes,
    /// the folder holding the trash (`$XDG_DATA_HOME`) for the home trash, as the spec says.
    var base: ItemPath

    /// The `Path` bytes to record for an item whose real path is `original`.
    func recordedPath(for original: ItemPath) -> [UInt8] {
      guard kind != .home, PosixPath.isSameOrDescendant(original, of: base), original != base else {
        return original.bytes
      }
      let prefix = PosixPath.stripTrailingSlashes(base.bytes)
      return Array(original.bytes.dropFirst(prefix == [0x2F] ? 1 : prefix.count + 1))
    }

    /// The original path for a recorded `Path`: absolute as is, relative joined to `base`.
    func resolve(_ recorded: [UInt8]) -> ItemPath {
      if recorded.first == 0x2F { return ItemPath(bytes: recorded) }
      var bytes = PosixPath.stripTrailingSlashes(base.bytes)
      if bytes.last != 0x2F { bytes.append(0x2F) }
      return ItemPath(bytes: bytes + recorded)
    }
  }

  /// A line of the mount table.
  struct MountPoint: Hashable, Sendable {
    var path: ItemPath
    var type: String
  }

  /// Kernel pseudo-filesystems that never hold a trash; skipping them spares a few hundred lstat
  /// calls on machines with many cgroup or overlay mounts.
  static let pseudoFilesystems: Set<String> = [
    "proc", "sysfs", "cgroup", "cgroup2", "devpts", "devtmpfs", "securityfs", "debugfs", "tracefs", "pstore",
    "bpf", "mqueue", "hugetlbfs", "configfs", "fusectl", "autofs", "binfmt_misc", "efivarfs", "nsfs", "rpc_pipefs",
  ]

  // MARK: - Choosing a trash for an item

  /// The home trash and the device it lives on (of its nearest existing ancestor, since the trash
  /// itself is only created on first use).
  var homeLocation: (location: TrashLocation, device: UInt64)? {
    guard let directory = homeTrash else { return nil }
    var probe = directory
    while true {
      if let st = PosixPath.statOrNil(probe) {
        return (TrashLocation(directory: directory, kind: .home, base: directory.parent), st.device)
      }
      if probe == .root { return nil }
      probe = probe.parent
    }
  }

  /// The top-folder trashes, in order of preference, for an item whose real parent folder is
  /// `parent` on `device`: `.Trash/$uid` when `.Trash` is a sticky folder (not a symlink), then
  /// `.Trash-$uid`.
  func volumeLocations(forRealParent parent: ItemPath, device: UInt64) -> [TrashLocation] {
    let top = topDirectory(of: parent, device: device)
    let uid = String(environment.uid)
    var out: [TrashLocation] = []
    let shared = PosixPath.child(top, ".Trash")
    if let st = try? PosixPath.lstatIfExists(shared), st.isDirectory, !st.isSymbolicLink, st.isSticky {
      out.append(TrashLocation(directory: PosixPath.child(shared, uid), kind: .sharedTopFolder, base: top))
    }
    out.append(TrashLocation(directory: PosixPath.child(top, ".Trash-\(uid)"), kind: .userTopFolder, base: top))
    return out
  }

  /// The mount's top folder for a real (symlink-free) path: walk up while the device stays the same,
  /// stopping early at a mount point from the mount table (a bind mount keeps the device number).
  func topDirectory(of realPath: ItemPath, device: UInt64) -> ItemPath {
    let mounts = Set(mountPoints().map(\.path))
    var current = ItemPath(bytes: PosixPath.stripTrailingSlashes(realPath.bytes))
    while current != .root {
      if mounts.contains(current) { return current }
      let up = current.parent
      guard let st = PosixPath.statOrNil(up), st.device == device else { return current }
      current = up
    }
    return .root
  }

  /// Creates the trash folder and its `files/` and `info/` if needed, refusing a top-folder trash
  /// that is a symlink or belongs to someone else (it could redirect our files to them).
  func prepare(_ location: TrashLocation) throws(ProviderError) {
    let directory = location.directory
    switch location.kind {
    case .home:
      try PosixPath.makeDirectories(directory, mode: 0o700)
    case .sharedTopFolder, .userTopFolder:
      let e = PosixPath.makeDirectory(directory, mode: 0o700)
      if e != 0 && e != EEXIST { throw PosixPath.error(e, "cannot create the trash folder", directory) }
      let st = try PosixPath.lstat(directory)
      guard st.isDirectory, st.owner == environment.uid else {
        throw ProviderError(
          .noPermission,
          "not using the trash folder '\(directory.displayString)': not a folder owned by user \(environment.uid)")
      }
    }
    for sub in ["files", "info"] {
      let path = PosixPath.child(directory, sub)
      let e = PosixPath.makeDirectory(path, mode: 0o700)
      if e != 0 && e != EEXIST { throw PosixPath.error(e, "cannot create the trash folder", path) }
      guard let st = PosixPath.statOrNil(path), st.isDirectory else {
        throw ProviderError(.ioError, "the trash folder '\(path.displayString)' is not a folder")
      }
    }
  }

  // MARK: - Listing

  /// Every trashed item of this user: the home trash, then each mounted filesystem's top-folder
  /// trashes, each sorted by trash name.
  ///
  /// Tolerant by design, since other programs write these folders: an entry without a usable
  /// `.trashinfo` (missing, unreadable, malformed) is reported with a nil ``TrashEntry/originalPath``;
  /// an info whose file is gone is skipped; a top-folder trash that cannot be read is skipped.
  ///
  /// - Throws: only when the home trash exists but its `files/` cannot be read.
  public func list() throws(ProviderError) -> [TrashEntry] {
    var all: [TrashEntry] = []
    for location in readableLocations() {
      do throws(ProviderError) {
        all += try entries(in: location)
      } catch {
        if location.kind == .home { throw error }
      }
    }
    return all
  }

  /// The trash folders that exist, without duplicates (a filesystem mounted twice is listed once).
  func readableLocations() -> [TrashLocation] {
    var out: [TrashLocation] = []
    var seen: Set<[UInt64]> = []
    func add(_ location: TrashLocation, _ st: PosixPath.Status) {
      if seen.insert([st.device, st.inode]).inserted { out.append(location) }
    }
    if let home = homeLocation?.location, let st = PosixPath.statOrNil(home.directory), st.isDirectory {
      add(home, st)
    }
    let uid = String(environment.uid)
    for mount in mountPoints() where !Self.pseudoFilesystems.contains(mount.type) {
      let shared = PosixPath.child(mount.path, ".Trash")
      if let st = try? PosixPath.lstatIfExists(shared), st.isDirectory, st.isSticky {
        let directory = PosixPath.child(shared, uid)
        if let st = try? PosixPath.lstatIfExists(directory), st.isDirectory {
          add(TrashLocation(directory: directory, kind: .sharedTopFolder, base: mount.path), st)
        }
      }
      let directory = PosixPath.child(mount.path, ".Trash-\(uid)")
      if let st = try? PosixPath.lstatIfExists(directory), st.isDirectory {
        add(TrashLocation(directory: directory, kind: .userTopFolder, base: mount.path), st)
      }
    }
    return out
  }

  /// The entries of one trash folder.
  func entries(in location: TrashLocation) throws(ProviderError) -> [TrashEntry] {
    let files = PosixPath.child(location.directory, "files")
    let infoDirectory = PosixPath.child(location.directory, "info")
    let names: [ItemName]
    do throws(ProviderError) {
      names = try PosixPath.contentsOfDirectory(files)
    } catch {
      if error.underlying == ENOENT { return [] }
      throw error
    }
    let infoNames = Set(((try? PosixPath.contentsOfDirectory(infoDirectory)) ?? []).compactMap(Self.trashName(ofInfo:)))
    var out: [TrashEntry] = []
    for name in names.sorted() {
      guard let st = try? PosixPath.lstat(files.appending(name)) else { continue }
      let hasInfo = infoNames.contains(name.bytes)
      var original: ItemPath?
      var date: Date?
      if hasInfo {
        let infoPath = infoDirectory.appending(ItemName(bytes: name.bytes + Array(TrashInfoFormat.fileExtension.utf8)))
        if let data = try? PosixPath.readSmallFile(infoPath, limit: 65536),
          let contents = TrashInfoFormat.parse(data)
        {
          original = location.resolve(contents.path)
          date = contents.deletionDate
        }
      }
      out.append(
        TrashEntry(
          trashDirectory: location.directory, name: name, originalPath: original, deletionDate: date,
          hasInfoFile: hasInfo, isDirectory: st.isDirectory, isSymbolicLink: st.isSymbolicLink, size: st.size,
          device: st.device, inode: st.inode, modificationDate: Date(timeIntervalSince1970: Double(st.modifiedNanos) / 1e9)))
    }
    return out
  }

  /// Info files whose `files/` item does not exist.
  func danglingInfoFiles(in location: TrashLocation) -> [ItemPath] {
    let files = PosixPath.child(location.directory, "files")
    let infoDirectory = PosixPath.child(location.directory, "info")
    let infos = (try? PosixPath.contentsOfDirectory(infoDirectory)) ?? []
    return infos.compactMap { info in
      guard let name = Self.trashName(ofInfo: info) else { return nil }
      do throws(ProviderError) {
        // Only a definite "no such file" counts; an lstat error says nothing about the item.
        return try PosixPath.lstatIfExists(files.appending(ItemName(bytes: name))) == nil
          ? infoDirectory.appending(info) : nil
      } catch {
        return nil
      }
    }
  }

  /// `name` for `name.trashinfo`; nil for other files in `info/`.
  static func trashName(ofInfo info: ItemName) -> [UInt8]? {
    let suffix = Array(TrashInfoFormat.fileExtension.utf8)
    guard info.bytes.count > suffix.count, info.bytes.suffix(suffix.count).elementsEqual(suffix) else { return nil }
    return Array(info.bytes.dropLast(suffix.count))
  }

  // MARK: - Mount table

  /// The mount points of the mount table (`/proc/self/mounts` format), or none if unreadable.
  ///
  /// Fields are separated by spaces; the kernel writes a space, tab, newline or backslash inside a
  /// path as a three-digit octal escape (`\040`), which is decoded back to the byte.
  func mountPoints() -> [MountPoint] {
    guard let data = try? PosixPath.readSmallFile(environment.mountTable, limit: 16 << 20) else { return [] }
    var out: [MountPoint] = []
    for line in data.split(separator: 0x0A) {
      let fields = line.split(separator: 0x20)
      guard fields.count >= 3 else { continue }
      let path = Self.unescapeMountField(Array(fields[1]))
      guard path.first == 0x2F else { continue }
      out.append(MountPoint(path: ItemPath(bytes: path), type: String(decoding: fields[2], as: UTF8.self)))
    }
    return out
  }

  static func unescapeMountField(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var i = 0
    while i < bytes.count {
      if bytes[i] == 0x5C, i + 3 < bytes.count,
        bytes[(i + 1)..<(i + 4)].allSatisfy({ (0x30...0x37).contains($0) })
      {
        let value = bytes[(i + 1)..<(i + 4)].reduce(0) { $0 * 8 + Int($1 - 0x30) }
        if value < 256 {
          out.append(UInt8(value))
          i += 4
          continue
        }
      }
      out.append(bytes[i])
      i += 1
    }
    return out
  }
}
