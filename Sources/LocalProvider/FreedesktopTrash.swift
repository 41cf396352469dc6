import Foundation
import Glibc
import ProviderAPI

/// The trash of the freedesktop.org Trash specification 1.0, shared with trash-cli, GNOME (gio),
/// KDE and every other desktop tool.
///
/// Linux Foundation has no `FileManager.trashItem`, and a Folio-only trash would hide items from
/// the user's other tools, so Folio writes the same layout they read:
/// - the home trash `$XDG_DATA_HOME/Trash` (default `~/.local/share/Trash`) for items on the same
///   filesystem, with absolute `Path`s;
/// - for other mounts `$topdir/.Trash/$uid` when the administrator prepared a sticky, non-symlink
///   `$topdir/.Trash`, else `$topdir/.Trash-$uid` (created 0700), with `Path`s relative to `$topdir`,
///   so a removable disk keeps working when mounted elsewhere.
///
/// Every trash holds `files/<name>` and `info/<name>.trashinfo`. The info file is created first with
/// O_EXCL: it reserves the name atomically against other programs trashing at the same moment, and a
/// crash between the two steps leaves an info without a file (ignored by readers), never a file
/// without a way back. Names are bytes end to end (see ``ItemPath``).
///
/// Compatibility details taken from trash-cli 0.17 (the tool installed here and in CI):
/// - a second item with the same name becomes `name_1`, then `name_2` … `name_99`, then
///   `name_<random>` (gio uses `name.2`; readers rely only on the info/files pairing, not the suffix);
/// - `Path` escaping is byte-identical to trash-cli's (see ``TrashInfoFormat``);
/// - for a top-folder trash, `Path` is relative when the item's real parent is under the top folder.
///
/// `directorysizes` (an optional cache of folder sizes for trash viewers) is not maintained: the
/// specification lets readers fall back to computing sizes, and entries in it are ignored once the
/// folder is gone.
public struct FreedesktopTrash: Sendable {
  /// Where the home trash lives and whose top-folder trashes are ours, taken as a value so tests
  /// run against temporary folders instead of the user's real trash.
  public struct Environment: Sendable, Hashable {
    /// `$HOME`, used when `dataHome` is nil.
    public var home: ItemPath?
    /// `$XDG_DATA_HOME`; ignored unless absolute, as the XDG base directory specification says.
    public var dataHome: ItemPath?
    /// The user id in `.Trash/$uid` and `.Trash-$uid`.
    public var uid: UInt32
    /// The mount table listing the filesystems whose top-folder trashes `list()` reads.
    public var mountTable: ItemPath

    public init(
      home: ItemPath?, dataHome: ItemPath? = nil, uid: UInt32, mountTable: ItemPath = ItemPath("/proc/self/mounts")
    ) {
      self.home = home
      self.dataHome = dataHome
      self.uid = uid
      self.mountTable = mountTable
    }

    /// This process's `$HOME`, `$XDG_DATA_HOME` (as bytes) and real uid.
    ///
    /// `$FOLIO_TRASH_DATA_HOME`, when set, stands for `$XDG_DATA_HOME` here: `folio demo` points
    /// `$XDG_DATA_HOME` at a private folder it removes on quit (its index must not touch yours),
    /// and a local file deleted during the demo must land in your Trash, not in that folder.
    public static var current: Environment {
      func variable(_ name: String) -> ItemPath? {
        guard let value = getenv(name) else { return nil }
        let bytes = PosixPath.bytes(ofCString: value)
        return bytes.isEmpty ? nil : ItemPath(bytes: bytes)
      }
      return Environment(
        home: variable("HOME"), dataHome: variable("FOLIO_TRASH_DATA_HOME") ?? variable("XDG_DATA_HOME"), uid: getuid())
    }

    /// `$XDG_DATA_HOME/Trash`, or `$HOME/.local/share/Trash`; nil without either.
    public var homeTrash: ItemPath? {
      if let dataHome, dataHome.isAbsolute { return PosixPath.child(dataHome, "Trash") }
      guard let home, home.isAbsolute else { return nil }
      return PosixPath.child(PosixPath.child(PosixPath.child(home, ".local"), "share"), "Trash")
    }
  }

  public let environment: Environment

  public init(environment: Environment) {
    self.environment = environment
  }

  /// The trash of the user running Folio.
  public static var current: FreedesktopTrash { FreedesktopTrash(environment: .current) }

  /// The home trash folder (it may not exist yet).
  public var homeTrash: ItemPath? { environment.homeTrash }

  // MARK: - Trashing

  /// Moves an item to the trash of its filesystem and returns its entry.
  ///
  /// - Parameter path: an absolute path; a final symlink is trashed itself, not its target.
  /// - Returns: the entry as ``list()`` would report it.
  /// - Throws: `noSuchItem` when nothing is at `path`; `invalidArgument` for a relative path, `/`,
  ///   or an item that is (or contains) a trash folder; `noPermission`, `ioError` … when no trash on
  ///   the item's filesystem can take it (the item is then left where it was).
  public func trash(_ path: ItemPath) throws(ProviderError) -> TrashEntry {
    guard path.isAbsolute else {
      throw ProviderError(
        .invalidArgument, "cannot move '\(path.displayString)' to the trash: the path is not absolute")
    }
    guard let name = path.lastComponent, name.bytes != [0x2E], name.bytes != [0x2E, 0x2E] else {
      throw ProviderError(.invalidArgument, "cannot move '\(path.displayString)' to the trash")
    }
    guard try PosixPath.lstatIfExists(path) != nil else {
      throw ProviderError(
        .noSuchItem, "cannot move '\(path.displayString)' to the trash: it does not exist", underlying: ENOENT)
    }
    // Like trash-cli, record the parent's real path: a relative Path in a top-folder trash must be
    // relative to the real top folder, and restoring must not depend on a symlink still existing.
    let parent = try PosixPath.realpath(path.parent)
    let original = parent.appending(name)
    let device = try PosixPath.lstat(parent).device

    let volume = volumeLocations(forRealParent: parent, device: device)
    var candidates: [TrashLocation] = []
    if let home = homeLocation, home.device == device { candidates.append(home.location) }
    candidates += volume
    try refuseTrashingATrash(original, locations: candidates + (homeLocation.map { [$0.location] } ?? []))

    var failures: [ProviderError] = []
    for location in candidates {
      do throws(ProviderError) {
        try prepare(location)
      } catch {
        failures.append(error)
        continue
      }
      do throws(ProviderError) {
        return try move(original, name: name, into: location)
      } catch where error.underlying == EXDEV {
        // A bind mount: same device number, different mount. Try the next trash.
        failures.append(error)
      }
    }
    if let first = failures.first {
      throw ProviderError(
        first.code,
        "cannot move '\(original.displayString)' to the trash: no usable trash folder on its filesystem (\(first.message))",
        underlying: first.underlying)
    }
    throw ProviderError(
      .featureUnsupported, "cannot move '\(original.displayString)' to the trash: no trash folder for its filesystem")
  }

  /// Reserves a name with the info file, then renames the item into `files/`.
  private func move(_ original: ItemPath, name: ItemName, into location: TrashLocation) throws(ProviderError)
    -> TrashEntry
  {
    let filesDirectory = PosixPath.child(location.directory, "files")
    let infoDirectory = PosixPath.child(location.directory, "info")
    let now = Date()
    let info = TrashInfoFormat.serialize(path: location.recordedPath(for: original), date: now)

    for attempt in 0..<1100 {
      let trashName = Self.trashName(for: name.bytes, attempt: attempt)
      let infoPath = infoDirectory.appending(ItemName(bytes: trashName + Array(TrashInfoFormat.fileExtension.utf8)))
      let fd = infoPath.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
      if fd < 0 {
        let e = errno
        if e == EEXIST { continue }
        throw PosixPath.error(e, "cannot move '\(original.displayString)' to the trash: cannot create", infoPath)
      }
      var e = PosixPath.writeAll(fd, info)
      if e == 0 && fsync(fd) != 0 { e = errno }
      if close(fd) != 0 && e == 0 { e = errno }
      if e != 0 {
        _ = PosixPath.unlinkFile(infoPath)
        throw PosixPath.error(e, "cannot move '\(original.displayString)' to the trash: cannot write", infoPath)
      }
      PosixPath.syncDirectory(infoDirectory)

      let destination = filesDirectory.appending(ItemName(bytes: trashName))
      let renamed = PosixPath.renameNoReplace(original, destination)
      if renamed != 0 {
        // Only delete the info we just wrote: the item stays where it was.
        _ = PosixPath.unlinkFile(infoPath)
        // An orphan in files/ (no info) already holds the name: take the next one.
        if renamed == EEXIST || renamed == ENOTEMPTY { continue }
        throw PosixPath.error(renamed, "cannot move to the trash", original)
      }
      PosixPath.syncDirectory(filesDirectory)
      PosixPath.syncDirectory(original.parent)
      let st = try PosixPath.lstat(destination)
      return TrashEntry(
        trashDirectory: location.directory, name: ItemName(bytes: trashName), originalPath: original,
        deletionDate: TrashInfoFormat.parseDate(Array(TrashInfoFormat.formatDate(now).utf8)), hasInfoFile: true,
        isDirectory: st.isDirectory, isSymbolicLink: st.isSymbolicLink, size: st.size, device: st.device,
        inode: st.inode, modificationDate: Date(timeIntervalSince1970: Double(st.modifiedNanos) / 1e9))
    }
    throw ProviderError(
      .ioError,
      "cannot move '\(original.displayString)' to the trash: no free name in '\(location.directory.displayString)'")
  }

  /// The name inside the trash for the `attempt`-th try: `name`, `name_1` … `name_99`, then
  /// `name_<random>` (trash-cli's scheme), cut so that `<name>.trashinfo` fits in NAME_MAX (255
  /// bytes). The cut never splits a UTF-8 sequence; the full name stays in the info's `Path`.
  static func trashName(for name: [UInt8], attempt: Int) -> [UInt8] {
    let suffix: [UInt8]
    switch attempt {
    case 0: suffix = []
    case 1..<100: suffix = Array("_\(attempt)".utf8)
    default: suffix = Array("_\(Int.random(in: 0...65535))".utf8)
    }
    let room = 255 - TrashInfoFormat.fileExtension.utf8.count - suffix.count
    var base = name
    if base.count > room {
      var cut = room
      // Back up over continuation bytes (10xxxxxx) so a multi-byte character is not split.
      if ItemName(bytes: name).isValidUTF8 {
        while cut > 0 && name[cut] & 0xC0 == 0x80 { cut -= 1 }
      }
      base = Array(name[..<cut])
    }
    return base + suffix
  }

  /// Refuses to trash a trash folder, something inside one, or a folder containing one: the rename
  /// would fail in confusing ways or, worse, succeed and make the trash disappear into itself.
  private func refuseTrashingATrash(_ original: ItemPath, locations: [TrashLocation]) throws(ProviderError) {
    for location in locations {
      let trash = (try? PosixPath.realpath(location.directory)) ?? location.directory
      if PosixPath.isSameOrDescendant(original, of: trash) {
        throw ProviderError(
          .invalidArgument,
          "cannot move '\(original.displayString)' to the trash: it is in the trash folder '\(trash.displayString)'")
      }
      if PosixPath.isSameOrDescendant(trash, of: original) {
        throw ProviderError(
          .invalidArgument,
          "cannot move '\(original.displayString)' to the trash: it contains the trash folder '\(trash.displayString)'")
      }
    }
  }

  // MARK: - Restoring and deleting

  /// Moves a trashed item back to where it was (or to `destination`) and forgets its info file.
  ///
  /// Never replaces anything: the rename uses RENAME_NOREPLACE, so an item that appeared at the
  /// original path meanwhile is a `filenameCollision` and nothing changes. Missing parent folders
  /// are recreated. The `.trashinfo` is removed only after the item is back.
  ///
  /// - Returns: the path the item now has.
  /// - Throws: `filenameCollision` when the destination exists; `noSuchItem` when the entry is no
  ///   longer in the trash; `invalidArgument` for an orphan without `destination`; `ioError` for a
  ///   destination on another filesystem (EXDEV: restoring never copies).
  @discardableResult
  public func restore(_ entry: TrashEntry, to destination: ItemPath? = nil) throws(ProviderError) -> ItemPath {
    guard let target = destination ?? entry.originalPath else {
      throw ProviderError(
        .invalidArgument,
        "cannot restore '\(entry.name.displayString)': its original location is unknown; choose where to put it")
    }
    guard target.isAbsolute, target.lastComponent != nil else {
      throw ProviderError(.invalidArgument, "cannot restore to '\(target.displayString)': not an absolute path")
    }
    try checkStillTrashed(entry)
    if try PosixPath.lstatIfExists(target) != nil {
      throw Self.collision(target)
    }
    try PosixPath.makeDirectories(target.parent)
    let e = PosixPath.renameNoReplace(entry.filePath, target)
    if e == EEXIST || e == ENOTEMPTY { throw Self.collision(target) }
    if e == EXDEV {
      throw ProviderError(
        .ioError, "cannot restore to '\(target.displayString)': it is on another filesystem than the trash",
        underlying: e)
    }
    if e != 0 { throw PosixPath.error(e, "cannot restore", target) }
    PosixPath.syncDirectory(target.parent)
    if entry.hasInfoFile {
      _ = PosixPath.unlinkFile(entry.infoPath)
      PosixPath.syncDirectory(entry.infoPath.parent)
    }
    return target
  }

  private static func collision(_ target: ItemPath) -> ProviderError {
    ProviderError(
      .filenameCollision, "cannot restore: '\(target.displayString)' already exists", underlying: EEXIST)
  }

  /// Deletes a trashed item for good: the file, or the whole folder tree without following any
  /// symlink in it, then its `.trashinfo`.
  ///
  /// The info goes last so that a failure halfway (a file we may not delete) leaves an entry the
  /// user can still see and retry, rather than an orphan.
  public func deletePermanently(_ entry: TrashEntry) throws(ProviderError) {
    try checkStillTrashed(entry)
    try PosixPath.removeTree(entry.filePath)
    if entry.hasInfoFile {
      let e = PosixPath.unlinkFile(entry.infoPath)
      if e != 0 && e != ENOENT { throw PosixPath.error(e, "cannot delete", entry.infoPath) }
    }
  }

  /// Deletes every entry of every trash ``list()`` reads.
  ///
  /// Continues past an entry that cannot be deleted and throws the first error at the end. Info
  /// files whose item is gone and which are older than a minute (leftovers of a crash; a younger one
  /// may belong to a trash operation in progress elsewhere) are removed too, as trash-empty does.
  public func empty() throws(ProviderError) {
    var firstError: ProviderError?
    for entry in try list() {
      do throws(ProviderError) {
        try deletePermanently(entry)
      } catch {
        if firstError == nil { firstError = error }
      }
    }
    let cutoff = Int(Date().timeIntervalSince1970) - 60
    for location in readableLocations() {
      for info in danglingInfoFiles(in: location) {
        if let st = try? PosixPath.lstat(info), st.modified < cutoff { _ = PosixPath.unlinkFile(info) }
      }
    }
    if let firstError { throw firstError }
  }

  /// Checks that `files/<name>` is still the listed item (same device and inode).
  private func checkStillTrashed(_ entry: TrashEntry) throws(ProviderError) {
    guard let st = try PosixPath.lstatIfExists(entry.filePath) else {
      throw ProviderError(.noSuchItem, "'\(entry.originalName.displayString)' is no longer in the trash")
    }
    guard st.device == entry.device, st.inode == entry.inode else {
      throw ProviderError(
        .noSuchItem,
        "'\(entry.originalName.displayString)' is no longer in the trash (another item now has its trash name)")
    }
  }
}
