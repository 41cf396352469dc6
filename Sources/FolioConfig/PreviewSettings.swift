/// `[preview]` in config.toml: when the preview pane shows, whether it shows pictures, and whether
/// it may run installed tools.
public struct PreviewSettings: Sendable, Equatable {
  /// When the pane is shown (a key toggles it either way while Folio runs).
  public enum Pane: String, Sendable, CaseIterable {
    /// From ``PreviewSettings/autoPaneMinimumColumns`` columns up: a third column fits beside
    /// the list there; at 80×24 it would squeeze the names.
    case auto
    /// At any width.
    case on
    /// Never until asked for.
    case off
  }

  /// How pictures (images, a PDF's first page, a video's frame) are shown.
  public enum Images: String, Sendable, CaseIterable {
    /// Text-mode pictures (Unicode half blocks), upgraded to a graphics protocol only when the
    /// terminal's answer to a query confirms it supports one.
    case auto
    /// Always text-mode pictures, even where a graphics protocol works (tmux, recordings).
    case text
    /// No pictures at all: no image decoding, and PDFs and videos show text instead.
    case off
  }

  public var pane: Pane
  public var images: Images
  /// Whether previews may run installed tools (pdftotext, bsdtar, mediainfo, … and the user's
  /// `[[previewer]]`s). Off: only what Folio previews itself.
  public var tools: Bool

  /// The width from which `pane = "auto"` shows the pane.
  public static let autoPaneMinimumColumns = 120

  public init(pane: Pane = .auto, images: Images = .auto, tools: Bool = true) {
    self.pane = pane
    self.images = images
    self.tools = tools
  }

  /// Whether the pane starts shown in a terminal this wide.
  public func showsPane(columns: Int) -> Bool {
    switch pane {
    case .auto: return columns >= Self.autoPaneMinimumColumns
    case .on: return true
    case .off: return false
    }
  }

  /// Whether pictures are made at all (PreviewTools' `ToolPreviewer.pictures`).
  public var showsPictures: Bool { images != .off }
}
