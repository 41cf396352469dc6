import ProviderAPI

/// What the preview pane shows for one item: a header (the type read from the content, what was
/// read of it) and a body. Made off the main thread by a previewer; the UI only draws it.
public struct Preview: Sendable, Equatable {
  /// The type told by the content (libmagic's words: "PNG image data, 4000 x 3000"), when known.
  public var typeDescription: String?
  /// What the body shows of the whole: "first 64 KiB of 2.1 GiB", "first 200 of 3,410 entries".
  public var extent: String?
  public var body: Body

  public init(typeDescription: String? = nil, extent: String? = nil, body: Body) {
    self.typeDescription = typeDescription
    self.extent = extent
    self.body = body
  }

  public enum Body: Sendable, Equatable {
    /// Text, code, JSON, a hex dump, a helper's output: lines the pane scrolls through.
    case lines([StyledLine])
    /// A folder's first entries, in the provider's order (the same paging as Browse).
    case folder(entries: [Item], total: Int?)
    /// A picture as cells: each cell an upper half block with the top pixel as foreground and the
    /// bottom one as background.
    case picture(PictureCells)
    /// Nothing to show, and why: "empty file", "a FIFO is never read", "install poppler-utils for
    /// PDF text".
    case message(String)
  }
}

/// A picture rendered for a text terminal: `columns` × `rows` cells, each two pixels high (▀ with
/// the upper pixel as foreground, the lower as background).
public struct PictureCells: Sendable, Hashable {
  public let columns: Int
  public let rows: Int
  /// Row-major, `columns * rows` entries.
  public let upper: [InkColor]
  public let lower: [InkColor]

  public init(columns: Int, rows: Int, upper: [InkColor], lower: [InkColor]) {
    precondition(upper.count == columns * rows && lower.count == columns * rows)
    self.columns = columns
    self.rows = rows
    self.upper = upper
    self.lower = lower
  }
}
