/// Why a picture could not be shown.
///
/// A value with a `Code` (a struct, so new codes don't break callers, as `ProviderError`) and a
/// sentence for a person, which the pane shows instead of the picture. Decoding never traps and
/// never exits: a corrupt, truncated or oversized file ends here.
public struct PictureError: Error, Sendable, Hashable, CustomStringConvertible {
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public let name: String
    init(_ rawValue: Int, _ name: String) {
      self.rawValue = rawValue
      self.name = name
    }
    public static func == (a: Code, b: Code) -> Bool { a.rawValue == b.rawValue }
    public func hash(into h: inout Hasher) { h.combine(rawValue) }
    public var description: String { name }

    /// Not PNG, JPEG, GIF, WebP or BMP, or a variant of one the decoders don't handle (RLE BMP).
    public static let unsupported = Code(1, "unsupported")
    /// The decoder refused the data.
    public static let corrupt = Code(2, "corrupt")
    /// The data ends before the picture (or, for `dimensions(of:)`, before its size) does.
    public static let truncated = Code(3, "truncated")
    /// Over `PictureLimits` (sides, decoded bytes): refused from the header, before decoding.
    public static let tooLarge = Code(4, "tooLarge")
    public static let outOfMemory = Code(5, "outOfMemory")
    /// The file could not be opened or read (`underlying` is the errno).
    public static let unreadable = Code(6, "unreadable")
    /// A FIFO, a device, a folder: only regular files are read.
    public static let notARegularFile = Code(7, "notARegularFile")
    /// The file is larger than the read limit (`PictureLimits.maximumFileBytes`).
    public static let fileTooLarge = Code(8, "fileTooLarge")
    /// The task decoding was cancelled (the cursor moved on): checked between rows.
    public static let cancelled = Code(9, "cancelled")
    /// The library that decodes the format is not installed (the message names the package).
    public static let missingLibrary = Code(10, "missingLibrary")
  }

  public let code: Code
  public let message: String
  /// An errno, for `unreadable`.
  public let underlying: Int32?

  public init(_ code: Code, _ message: String, underlying: Int32? = nil) {
    self.code = code
    self.message = message
    self.underlying = underlying
  }

  public var description: String { message }
}
