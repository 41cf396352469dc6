/// What each mark drawn beside a name means, for the help (`?`): drawn from the same glyphs and
/// roles the rows use (``Badge/glyph(_:)``, ``Glyphs``), so the legend can never show a glyph the
/// list does not draw.
///
/// Without colors (NO_COLOR) the glyphs are the same and carry the meaning alone; with `--ascii`
/// (or a terminal that is not UTF-8) each has the ASCII form listed beside it.
public enum BadgeLegend {
  public struct Row: Sendable, Equatable {
    /// The glyph as drawn in this mode.
    public var glyph: String
    /// Its ASCII form (what `--ascii` draws).
    public var asciiGlyph: String
    public var role: StyleRole
    public var meaning: String
  }

  /// The sync badges first (the column before the name), then the marks after it.
  public static func rows(_ g: Glyphs) -> [Row] {
    let a = Glyphs.ascii
    let badges: [Badge] = [.notDownloaded, .downloading, .uploading, .queued, .error, .conflict, .pinned, .excluded]
    return badges.map { Row(glyph: $0.glyph(g), asciiGlyph: $0.glyph(a), role: $0.role, meaning: $0.meaning) } + [
      Row(glyph: g.favorite, asciiGlyph: a.favorite, role: .badgeFavorite, meaning: "Favorite"),
      Row(glyph: g.tagDot, asciiGlyph: a.tagDot, role: .tagCustom, meaning: "A tag (in its color)"),
      Row(glyph: g.shared, asciiGlyph: a.shared, role: .badgeShared, meaning: "Shared"),
      Row(glyph: g.marked, asciiGlyph: a.marked, role: .listRow, meaning: "Marked (space)"),
    ]
  }
}

extension Badge {
  /// What the badge says, in the legend's words.
  public var meaning: String {
    switch self {
    case .none: return "On this computer"
    case .notDownloaded: return "In the cloud, not downloaded"
    case .downloading: return "Downloading"
    case .uploading: return "Uploading"
    case .queued: return "Waiting to upload (or to retry)"
    case .error: return "Error (Info says why)"
    case .conflict: return "Conflict: both versions kept"
    case .pinned: return "Kept downloaded"
    case .excluded: return "Not synced"
    }
  }
}
