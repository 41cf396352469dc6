/// A uniform type identifier ("public.folder", "public.plain-text", …) with its conformance chain.
///
/// Activation rules ask "does the selection conform to public.image?", openers are chosen by type,
/// and sorting by kind groups by type. The table below covers what a file browser meets daily; an
/// unknown extension is `public.data`, and a type from a provider that is not in the table conforms
/// to `public.data` only.
public struct ContentType: Hashable, Sendable, Codable, CustomStringConvertible {
  public let identifier: String
  public init(_ identifier: String) { self.identifier = identifier }

  public static let item = ContentType("public.item")
  public static let data = ContentType("public.data")
  public static let content = ContentType("public.content")
  public static let folder = ContentType("public.folder")
  public static let symlink = ContentType("public.symlink")
  public static let text = ContentType("public.text")
  public static let plainText = ContentType("public.plain-text")
  public static let sourceCode = ContentType("public.source-code")
  public static let image = ContentType("public.image")
  public static let audio = ContentType("public.audio")
  public static let movie = ContentType("public.movie")
  public static let archive = ContentType("public.archive")
  public static let pdf = ContentType("com.adobe.pdf")
  public static let executable = ContentType("public.executable")
  /// Devices, sockets and pipes: items a file browser lists but never opens.
  public static let special = ContentType("public.special")

  public var description: String { identifier }

  /// Direct parents in the conformance graph.
  public var parents: [ContentType] {
    if let p = Self.parentTable[identifier] { return p.map(ContentType.init) }
    return identifier == Self.item.identifier ? [] : [.data]
  }

  /// True when this type is `other` or descends from it.
  public func conforms(to other: ContentType) -> Bool {
    if self == other { return true }
    var seen: Set<String> = [identifier]
    var queue = parents
    while let t = queue.popLast() {
      if t == other { return true }
      if seen.insert(t.identifier).inserted { queue.append(contentsOf: t.parents) }
    }
    return false
  }

  public var isFolder: Bool { self == .folder }
  public var isText: Bool { conforms(to: .text) }

  /// A short human description ("Folder", "PNG image", …) for the kind column.
  public var kindDescription: String {
    Self.descriptions[identifier] ?? (conforms(to: .text) ? "Text" : "Document")
  }

  /// The type of a file from its extension (lowercased, no dot).
  public static func forExtension(_ ext: String) -> ContentType {
    if let id = extensionTable[ext] { return ContentType(id) }
    return .data
  }

  static let parentTable: [String: [String]] = [
    "public.data": ["public.item"],
    "public.content": ["public.item"],
    "public.folder": ["public.item"],
    "public.symlink": ["public.item"],
    "public.special": ["public.item"],
    "public.text": ["public.data", "public.content"],
    "public.plain-text": ["public.text"],
    "public.source-code": ["public.plain-text"],
    "public.script": ["public.source-code"],
    "public.shell-script": ["public.script"],
    "public.python-script": ["public.script"],
    "public.swift-source": ["public.source-code"],
    "public.c-source": ["public.source-code"],
    "public.c-header": ["public.source-code"],
    "public.json": ["public.text"],
    "public.xml": ["public.text"],
    "public.html": ["public.text"],
    "public.yaml": ["public.text"],
    "public.toml": ["public.text"],
    "net.daringfireball.markdown": ["public.plain-text"],
    "public.comma-separated-values-text": ["public.plain-text"],
    "public.log": ["public.plain-text"],
    "public.image": ["public.data", "public.content"],
    "public.png": ["public.image"],
    "public.jpeg": ["public.image"],
    "com.compuserve.gif": ["public.image"],
    "public.svg-image": ["public.image", "public.xml"],
    "org.webmproject.webp": ["public.image"],
    "public.audio": ["public.data", "public.content"],
    "public.mp3": ["public.audio"],
    "org.xiph.flac": ["public.audio"],
    "com.microsoft.waveform-audio": ["public.audio"],
    "public.movie": ["public.data", "public.content"],
    "public.mpeg-4": ["public.movie"],
    "org.matroska.mkv": ["public.movie"],
    "public.archive": ["public.data"],
    "public.zip-archive": ["public.archive"],
    "org.gnu.gnu-zip-archive": ["public.archive"],
    "public.tar-archive": ["public.archive"],
    "org.tukaani.xz-archive": ["public.archive"],
    "com.adobe.pdf": ["public.data", "public.content"],
    "public.executable": ["public.data"],
    "org.openxmlformats.wordprocessingml.document": ["public.data", "public.content"],
    "org.openxmlformats.spreadsheetml.sheet": ["public.data", "public.content"],
    "org.oasis-open.opendocument.text": ["public.data", "public.content"],
    "org.oasis-open.opendocument.spreadsheet": ["public.data", "public.content"],
    "org.oasis-open.opendocument.presentation": ["public.data", "public.content"],
    "org.openxmlformats.presentationml.presentation": ["public.data", "public.content"],
  ]

  static let extensionTable: [String: String] = [
    "txt": "public.plain-text", "text": "public.plain-text", "md": "net.daringfireball.markdown",
    "markdown": "net.daringfireball.markdown", "csv": "public.comma-separated-values-text",
    "log": "public.log", "json": "public.json", "xml": "public.xml", "html": "public.html",
    "htm": "public.html", "yaml": "public.yaml", "yml": "public.yaml", "toml": "public.toml",
    "ini": "public.plain-text", "conf": "public.plain-text", "cfg": "public.plain-text",
    "sh": "public.shell-script", "bash": "public.shell-script", "zsh": "public.shell-script",
    "py": "public.python-script", "rb": "public.script", "pl": "public.script", "js": "public.script",
    "ts": "public.source-code", "swift": "public.swift-source", "c": "public.c-source",
    "h": "public.c-header", "cc": "public.source-code", "cpp": "public.source-code",
    "hpp": "public.source-code", "rs": "public.source-code", "go": "public.source-code",
    "java": "public.source-code", "kt": "public.source-code", "css": "public.source-code",
    "sql": "public.source-code", "png": "public.png", "jpg": "public.jpeg", "jpeg": "public.jpeg",
    "gif": "com.compuserve.gif", "svg": "public.svg-image", "webp": "org.webmproject.webp",
    "bmp": "public.image", "tif": "public.image", "tiff": "public.image", "heic": "public.image",
    "mp3": "public.mp3", "flac": "org.xiph.flac", "wav": "com.microsoft.waveform-audio",
    "ogg": "public.audio", "m4a": "public.audio", "mp4": "public.mpeg-4", "m4v": "public.mpeg-4",
    "mkv": "org.matroska.mkv", "mov": "public.movie", "webm": "public.movie", "avi": "public.movie",
    "zip": "public.zip-archive", "gz": "org.gnu.gnu-zip-archive", "tgz": "org.gnu.gnu-zip-archive",
    "tar": "public.tar-archive", "xz": "org.tukaani.xz-archive", "bz2": "public.archive",
    "zst": "public.archive", "7z": "public.archive", "pdf": "com.adobe.pdf",
    "docx": "org.openxmlformats.wordprocessingml.document",
    "xlsx": "org.openxmlformats.spreadsheetml.sheet", "odt": "org.oasis-open.opendocument.text",
    "ods": "org.oasis-open.opendocument.spreadsheet", "odp": "org.oasis-open.opendocument.presentation",
    "pptx": "org.openxmlformats.presentationml.presentation",
  ]

  static let descriptions: [String: String] = [
    "public.folder": "Folder", "public.symlink": "Alias", "public.special": "Special file",
    "public.data": "Document", "public.plain-text": "Plain text", "net.daringfireball.markdown": "Markdown",
    "public.json": "JSON", "public.xml": "XML", "public.html": "HTML", "public.yaml": "YAML",
    "public.toml": "TOML", "public.comma-separated-values-text": "CSV", "public.log": "Log",
    "public.shell-script": "Shell script", "public.python-script": "Python script",
    "public.script": "Script", "public.swift-source": "Swift source", "public.c-source": "C source",
    "public.c-header": "C header", "public.source-code": "Source code", "public.png": "PNG image",
    "public.jpeg": "JPEG image", "com.compuserve.gif": "GIF image", "public.svg-image": "SVG image",
    "org.webmproject.webp": "WebP image", "public.image": "Image", "public.mp3": "MP3 audio",
    "org.xiph.flac": "FLAC audio", "com.microsoft.waveform-audio": "WAV audio", "public.audio": "Audio",
    "public.mpeg-4": "MPEG-4 movie", "org.matroska.mkv": "Matroska movie", "public.movie": "Movie",
    "public.zip-archive": "ZIP archive", "org.gnu.gnu-zip-archive": "Gzip archive",
    "public.tar-archive": "Tar archive", "org.tukaani.xz-archive": "XZ archive",
    "public.archive": "Archive", "com.adobe.pdf": "PDF document", "public.executable": "Executable",
    "org.openxmlformats.wordprocessingml.document": "Word document",
    "org.openxmlformats.spreadsheetml.sheet": "Spreadsheet",
    "org.oasis-open.opendocument.text": "OpenDocument text",
    "org.oasis-open.opendocument.spreadsheet": "OpenDocument spreadsheet",
    "org.oasis-open.opendocument.presentation": "OpenDocument presentation",
    "org.openxmlformats.presentationml.presentation": "Presentation",
  ]

  public init(from decoder: any Decoder) throws {
    identifier = try decoder.singleValueContainer().decode(String.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(identifier)
  }
}

extension ContentType {
  /// Every kind description the table knows, for kind sorting.
  public static var allKnownKindDescriptions: [String] { Array(Set(descriptions.values)) }
}
