import CFolioSystem
import Glibc
import ProviderAPI

/// File tags stored in the `user.xdg.tags` extended attribute, where KDE (Dolphin, Baloo), other
/// file managers and scripts (`setfattr -n user.xdg.tags -v "Red,work" FILE`) keep them, so tags
/// set in Folio show up there and the other way round.
///
/// Format, from the freedesktop "Common Extended Attributes" page and KDE's KFileMetaData
/// (`UserMetaData::setTags` joins with `,`; `tags()` splits on `,` dropping empty parts): UTF-8 text,
/// tags separated by commas, **with no escaping**. Older KDE versions wrote `", "`, so reading trims
/// white space around each tag. Because nobody escapes, a tag containing a comma cannot be stored
/// so that another tool reads it back as one tag: ``write(_:at:)`` refuses it rather than silently
/// splitting it in two. Reading drops empty and duplicate tags and keeps the order.
///
/// The attribute is read and written on the entry itself (`lgetxattr`/`lsetxattr`): Linux does not
/// allow user attributes on symlinks, and following them would tag some other file. Filesystems
/// without user attributes (vfat, some NFS and FUSE mounts, procfs, tmpfs before Linux 6.6) answer
/// ENOTSUP, reported as `featureUnsupported` so callers can keep the tags in Folio's index instead.
public struct XattrTags: Sendable {
  public static let attributeName = "user.xdg.tags"

  public init() {}

  /// The tags of the item at `path`; `[]` when the attribute is absent.
  ///
  /// - Throws: `featureUnsupported` when the filesystem has no user extended attributes;
  ///   `noSuchItem`, `noPermission` … from the system call.
  public func read(at path: ItemPath) throws(ProviderError) -> [String] {
    var attempts = 0
    while true {
      attempts += 1
      let size = path.withCString { folio_getxattr($0, Self.attributeName, nil, 0) }
      if size < 0 { return try emptyOrThrow(errno, path) }
      if size == 0 { return [] }
      var buffer = [UInt8](repeating: 0, count: size)
      let n = path.withCString { p in
        buffer.withUnsafeMutableBytes { folio_getxattr(p, Self.attributeName, $0.baseAddress, $0.count) }
      }
      if n >= 0 { return Self.parse(Array(buffer[..<n])) }
      let e = errno
      // ERANGE: the value grew between the two calls; ask for the size again.
      if e == ERANGE && attempts < 5 { continue }
      return try emptyOrThrow(e, path)
    }
  }

  private func emptyOrThrow(_ e: Int32, _ path: ItemPath) throws(ProviderError) -> [String] {
    if e == ENODATA { return [] }
    throw error(e, "cannot read the tags of", path)
  }

  /// Replaces the tags of the item at `path`; an empty list (after dropping blank tags) removes the
  /// attribute, so an untagged file carries no empty attribute around.
  ///
  /// - Throws: `invalidArgument` for a tag containing `,` or NUL; `featureUnsupported` when the
  ///   filesystem (or a symlink) cannot carry user attributes; others from the system call.
  public func write(_ tags: [String], at path: ItemPath) throws(ProviderError) {
    let value = try Self.serialize(tags)
    if value.isEmpty {
      let rc = path.withCString { folio_removexattr($0, Self.attributeName) }
      if rc != 0 && errno != ENODATA { throw error(errno, "cannot remove the tags of", path) }
      return
    }
    let rc = path.withCString { p in
      value.withUnsafeBytes { folio_setxattr(p, Self.attributeName, $0.baseAddress, $0.count) }
    }
    if rc != 0 { throw error(errno, "cannot set the tags of", path) }
  }

  /// Splits an attribute value into tags: on `,`, trimmed, without empty or repeated tags.
  /// Invalid UTF-8 is decoded with replacement characters (tags are text, not names).
  public static func parse(_ value: [UInt8]) -> [String] {
    var seen: Set<String> = []
    var out: [String] = []
    for part in value.split(separator: 0x2C, omittingEmptySubsequences: true) {
      let tag = trimmed(String(decoding: part, as: UTF8.self))
      if !tag.isEmpty && seen.insert(tag).inserted { out.append(tag) }
    }
    return out
  }

  /// Joins tags into an attribute value (`Red,work`), trimming each and dropping blank and repeated
  /// ones; `[]` means "no attribute".
  public static func serialize(_ tags: [String]) throws(ProviderError) -> [UInt8] {
    var seen: Set<String> = []
    var kept: [String] = []
    for raw in tags {
      let tag = trimmed(raw)
      if tag.isEmpty { continue }
      if tag.contains(",") {
        throw ProviderError(
          .invalidArgument,
          "a tag cannot contain ',' ('\(TerminalText.escape(tag))'): user.xdg.tags is comma-separated without escaping")
      }
      if tag.unicodeScalars.contains("\0") {
        throw ProviderError(.invalidArgument, "a tag cannot contain a NUL character")
      }
      if seen.insert(tag).inserted { kept.append(tag) }
    }
    return Array(kept.joined(separator: ",").utf8)
  }

  private static func trimmed(_ s: String) -> String {
    var scalars = Substring(s).unicodeScalars[...]
    while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
    while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
    return String(Substring(scalars))
  }

  /// Maps errno, turning "no user attributes here" into `featureUnsupported` with a message that
  /// says why, so the caller can fall back to the index.
  private func error(_ e: Int32, _ operation: String, _ path: ItemPath) -> ProviderError {
    if e == ENOTSUP {
      return ProviderError(
        .featureUnsupported,
        "\(operation) '\(path.displayString)': its filesystem does not support user extended attributes",
        underlying: e)
    }
    if e == EPERM, let st = try? PosixPath.lstat(path), st.isSymbolicLink {
      return ProviderError(
        .featureUnsupported, "\(operation) '\(path.displayString)': a symbolic link cannot carry tags", underlying: e)
    }
    if e == E2BIG || e == ERANGE {
      return ProviderError(
        .invalidArgument,
        "\(operation) '\(path.displayString)': too many tags for the filesystem's attribute size limit",
        underlying: e)
    }
    if e == ENOSPC {
      // ext4 also says ENOSPC when the value does not fit in the inode's attribute block.
      return ProviderError(
        .insufficientQuota,
        "\(operation) '\(path.displayString)': no room for the tags (attribute size limit or full disk)",
        underlying: e)
    }
    return PosixPath.error(e, operation, path)
  }
}
