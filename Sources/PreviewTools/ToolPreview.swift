import PreviewKit

/// What a tool previewer made of a file.
public enum ToolPreview: Sendable, Equatable {
  /// The tool's output as safe lines. `truncated`: Folio stopped the tool (entry cap, output cap,
  /// deadline) before it said everything, so the pane can say "first N entries".
  case lines([StyledLine], truncated: Bool)
  /// A PNG the tool wrote in the private cache folder (a PDF's first page, a video's frame), for
  /// the image module to decode. The caller owns the file: remove it once decoded.
  case pictureFile(String)
  /// The tool is not installed. `package` is the Debian package that has it (nil for a user's own
  /// `[[previewer]]`); `purpose` completes "Install <package> to …".
  case missing(tool: String, package: String?, purpose: String)
  /// The tool ran and failed: why, in one safe line (its first line of stderr, its exit status, or
  /// "took longer than 2 s").
  case failed(tool: String, reason: String)

  /// The sentence the pane shows for `missing` and `failed`: "Install poppler-utils to preview
  /// PDF text"; nil for lines and pictures.
  public var message: String? {
    switch self {
    case .lines, .pictureFile: return nil
    case .missing(_, let package?, let purpose): return "Install \(package) to \(purpose)"
    case .missing(let tool, nil, let purpose): return "\(tool) is not installed (needed to \(purpose))"
    case .failed(let tool, let reason): return "\(tool): \(reason)"
    }
  }

  /// The preview body for lines and messages; nil for a picture file (the image module decodes
  /// it into `.picture`).
  public var body: Preview.Body? {
    switch self {
    case .lines(let lines, _): return .lines(lines)
    case .pictureFile: return nil
    case .missing, .failed: return message.map { .message($0) }
    }
  }
}
