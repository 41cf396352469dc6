/// Every glyph the UI draws, with its ASCII fallback (used when the locale is not UTF-8, or with
/// `--ascii`). Icons are chosen to be one column wide everywhere (no emoji-presentation ambiguity).
public struct Glyphs: Sendable, Equatable {
  public var notDownloaded, downloading, uploading, queued, error, conflict, shared, pinned, favorite, tagDot, excluded: String
  public var marked, ellipsis, separator: String
  public var boxTopLeft, boxTopRight, boxBottomLeft, boxBottomRight, boxHorizontal, boxVertical: String
  public var spinner: [String]
  public var folderSuffix: String

  public static let unicode = Glyphs(
    notDownloaded: "☁", downloading: "↓", uploading: "↑", queued: "◷", error: "!", conflict: "⚠", shared: "⇄",
    pinned: "⤓", favorite: "★", tagDot: "●", excluded: "⊘", marked: "▌", ellipsis: "…", separator: "│",
    boxTopLeft: "┌", boxTopRight: "┐", boxBottomLeft: "└", boxBottomRight: "┘", boxHorizontal: "─", boxVertical: "│",
    spinner: ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"], folderSuffix: "/")

  public static let ascii = Glyphs(
    notDownloaded: "c", downloading: "v", uploading: "^", queued: ".", error: "!", conflict: "C", shared: "s",
    pinned: "p", favorite: "*", tagDot: "o", excluded: "x", marked: ">", ellipsis: "~", separator: "|",
    boxTopLeft: "+", boxTopRight: "+", boxBottomLeft: "+", boxBottomRight: "+", boxHorizontal: "-", boxVertical: "|",
    spinner: ["|", "/", "-", "\\"], folderSuffix: "/")
}
