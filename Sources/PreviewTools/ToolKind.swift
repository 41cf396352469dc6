/// The kinds of file Folio hands to an installed tool, as the caller classified them (by name,
/// else by the MIME type libmagic found).
public enum ToolKind: Sendable, Hashable {
  case pdf
  case archive(ArchiveFormat)
  case audio
  case video

  /// Which lister suits an archive best.
  public enum ArchiveFormat: Sendable, Hashable {
    /// zip and its relatives (jar, apk, whl, …).
    case zip
    /// tar, plain or compressed (.tar.gz, .tgz, .tar.xz, .tar.zst, …).
    case tar
    case sevenZip
    case rar
    /// What libarchive also lists: ISO 9660, cpio, ar (.deb), rpm, xar, cab, lha.
    case other
  }

  /// The kind a file name says, or nil. Compound endings (`.tar.gz`) count; case does not.
  public init?(name: String) {
    let lower = name.lowercased()
    for suffix in [".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst", ".tar.lz", ".tar.lzma", ".tar.z"]
    where lower.hasSuffix(suffix) && lower.count > suffix.count {
      self = .archive(.tar)
      return
    }
    guard let dot = lower.lastIndex(of: "."), dot != lower.startIndex else { return nil }
    let ext = String(lower[lower.index(after: dot)...])
    guard let kind = Self.byExtension[ext] else { return nil }
    self = kind
  }

  /// The kind a MIME type says (libmagic's `MAGIC_MIME_TYPE` answer), or nil. A bare compressed
  /// stream (`application/gzip`) is not an archive: only its name can say it holds a tar.
  public init?(mimeType: String) {
    let type = mimeType.lowercased()
    if let kind = Self.byMIMEType[type] {
      self = kind
    } else if type.hasPrefix("audio/") {
      self = .audio
    } else if type.hasPrefix("video/") {
      self = .video
    } else {
      return nil
    }
  }

  static let byExtension: [String: ToolKind] = {
    var table: [String: ToolKind] = ["pdf": .pdf]
    for ext in ["zip", "jar", "war", "apk", "whl", "xpi", "cbz"] { table[ext] = .archive(.zip) }
    for ext in ["tar", "tgz", "tbz", "tbz2", "txz", "tzst", "tlz"] { table[ext] = .archive(.tar) }
    for ext in ["7z", "cb7"] { table[ext] = .archive(.sevenZip) }
    for ext in ["rar", "cbr"] { table[ext] = .archive(.rar) }
    for ext in ["iso", "cpio", "deb", "rpm", "xar", "cab", "lha", "lzh", "ar"] { table[ext] = .archive(.other) }
    for ext in ["mp3", "flac", "wav", "ogg", "oga", "opus", "m4a", "aac", "wma", "aif", "aiff", "ape", "mka", "mid"] {
      table[ext] = .audio
    }
    for ext in ["mp4", "m4v", "mkv", "webm", "mov", "avi", "wmv", "flv", "mpg", "mpeg", "ts", "m2ts", "3gp", "ogv"] {
      table[ext] = .video
    }
    return table
  }()

  static let byMIMEType: [String: ToolKind] = [
    "application/pdf": .pdf,
    "application/zip": .archive(.zip), "application/java-archive": .archive(.zip),
    "application/x-tar": .archive(.tar), "application/x-gtar": .archive(.tar),
    "application/x-7z-compressed": .archive(.sevenZip),
    "application/vnd.rar": .archive(.rar), "application/x-rar": .archive(.rar),
    "application/x-rar-compressed": .archive(.rar),
    "application/x-iso9660-image": .archive(.other), "application/x-cpio": .archive(.other),
    "application/x-archive": .archive(.other), "application/vnd.debian.binary-package": .archive(.other),
    "application/x-rpm": .archive(.other), "application/x-xar": .archive(.other),
    "application/vnd.ms-cab-compressed": .archive(.other), "application/x-lha": .archive(.other),
    "application/ogg": .audio,
  ]
}
