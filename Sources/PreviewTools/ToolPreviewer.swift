import PreviewKit
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Previews of the formats Folio hands to installed tools: PDF text and first page, archive
/// listings, audio and video details and a video frame, and the user's own `[[previewer]]`s.
///
/// Each tool is optional: a missing one gives ``ToolPreview/missing(tool:package:purpose:)``
/// ("Install poppler-utils to preview PDF text"). Every run goes through ``HelperProcess`` (own
/// session, deadline, caps, killed on cancellation) and every byte of output through
/// ``lines(fromHelperOutput:)``. The caller decides whether tools run at all (`[preview] tools`).
public struct ToolPreviewer: Sendable {
  public let sandbox: HelperSandbox
  /// Whether pictures are wanted (`[preview] images` is not "off"): a PDF's first page and a
  /// video's frame. Without them a PDF shows its text and a video its details.
  public var pictures: Bool
  public var limits: HelperLimits

  public init(sandbox: HelperSandbox, pictures: Bool = true, limits: HelperLimits = HelperLimits()) {
    self.sandbox = sandbox
    self.pictures = pictures
    self.limits = limits
  }

  /// The preview of a local (or materialized) file of a kind the caller classified.
  ///
  /// - Parameters:
  ///   - path: the file; a relative path is passed as `./path`.
  ///   - kind: from ``ToolKind/init(name:)`` or ``ToolKind/init(mimeType:)``.
  ///   - columns: the pane's width in cells (mediainfo's key column is fitted to it).
  ///   - rows: the pane's height; an archive listing stops at `rows × 4` entries (at least 40).
  /// - Throws: `CancellationError` only (the helper is killed and reaped first). Everything else
  ///   is a ``ToolPreview`` value.
  public func preview(path: ItemPath, kind: ToolKind, columns: Int, rows: Int) async throws -> ToolPreview {
    switch kind {
    case .pdf:
      if pictures, sandbox.locate(PreviewTool.pdfPage.program) != nil { return try await pdfPage(path: path) }
      return try await pdfText(path: path)
    case .archive(let format):
      return try await archiveListing(path: path, format: format, maxEntries: Self.entryCap(rows: rows))
    case .audio:
      return try await mediaInfo(path: path, columns: columns)
    case .video:
      if pictures, sandbox.locate(PreviewTool.videoFrame.program) != nil { return try await videoFrame(path: path) }
      if sandbox.locate(PreviewTool.mediaInfo.program) == nil && pictures { return PreviewTool.videoFrame.missing }
      return try await mediaInfo(path: path, columns: columns)
    }
  }

  /// How many archive entries a pane of `rows` lines lists: enough to scroll a few screens.
  public static func entryCap(rows: Int) -> Int { max(rows, 10) * 4 }

  // MARK: - The tools

  /// The first two pages' text (`pdftotext -layout`).
  public func pdfText(path: ItemPath) async throws -> ToolPreview {
    let file = PreviewTool.fileArgument(path)
    return try await textPreview(of: .pdfText, PreviewTool.pdfTextArguments(file))
  }

  /// The first page as a PNG 600 pixels on its longer side (`pdftoppm`), in the cache folder.
  public func pdfPage(path: ItemPath) async throws -> ToolPreview {
    try await picture(of: .pdfPage) { output in
      // pdftoppm appends ".png" to the prefix it is given.
      PreviewTool.pdfPageArguments(PreviewTool.fileArgument(path), outputPrefix: String(output.dropLast(4)))
    }
  }

  /// An archive's entries, `maxEntries` at most (the lister is killed at the cap). 7z and RAR go
  /// to 7-Zip when it is installed, everything else (and those, without 7-Zip) to bsdtar.
  public func archiveListing(path: ItemPath, format: ToolKind.ArchiveFormat, maxEntries: Int) async throws
    -> ToolPreview
  {
    let file = PreviewTool.fileArgument(path)
    var limits = self.limits
    limits.lineCap = max(1, maxEntries)
    let sevenZip = [PreviewTool.sevenZip, .p7zip].first { sandbox.locate($0.program) != nil }
    let bsdtar = sandbox.locate(PreviewTool.bsdtar.program) != nil
    switch (format, sevenZip, bsdtar) {
    case (.sevenZip, let tool?, _), (.rar, let tool?, _), (_, let tool?, false):
      return try await textPreview(of: tool, PreviewTool.sevenZipArguments(file), limits: limits)
    case (_, _, true):
      return try await textPreview(of: .bsdtar, PreviewTool.bsdtarArguments(file), limits: limits)
    case (.sevenZip, nil, false), (.rar, nil, false):
      return PreviewTool.sevenZip.missing
    case (_, nil, false):
      return PreviewTool.bsdtar.missing
    }
  }

  /// Audio or video details (`mediainfo`), its `key : value` lines with the key column fitted to
  /// the pane.
  public func mediaInfo(path: ItemPath, columns: Int) async throws -> ToolPreview {
    let file = PreviewTool.fileArgument(path)
    return try await textPreview(of: .mediaInfo, PreviewTool.mediaInfoArguments(file)) { output in
      MediaInfoLayout.fitted(output, keyWidth: max(12, columns / 3))
    }
  }

  /// A frame a tenth of the way in, as a PNG 600 pixels on its longer side (`ffmpegthumbnailer`).
  public func videoFrame(path: ItemPath) async throws -> ToolPreview {
    try await picture(of: .videoFrame) { output in
      PreviewTool.videoFrameArguments(PreviewTool.fileArgument(path), output: output)
    }
  }

  /// A user's `[[previewer]]`: `arguments` is its argv with the placeholders already replaced
  /// (FolioConfig's `PreviewerRule.arguments`); the program is looked for on the search path.
  /// Its stdout is the preview, with the same sandbox and caps as the built-in tools.
  public func run(previewer arguments: [[UInt8]]) async throws -> ToolPreview {
    guard let first = arguments.first else { return .failed(tool: "previewer", reason: "the command is empty") }
    let name = String(decoding: first, as: UTF8.self)
    let shown = TerminalText.escape(bytes: first)
    let missing = ToolPreview.missing(
      tool: shown, package: nil, purpose: "run this file's [[previewer]] from config.toml")
    guard let program = sandbox.locate(name) else { return missing }
    return try await textPreview(
      shown, HelperCommand(executable: program, arguments: Array(arguments.dropFirst())), limits: limits,
      missing: missing)
  }

  // MARK: - Running

  private func textPreview(
    of tool: PreviewTool, _ arguments: [[UInt8]], limits: HelperLimits? = nil,
    reshape: ([UInt8]) -> [UInt8] = { $0 }
  ) async throws -> ToolPreview {
    guard let program = sandbox.locate(tool.program) else { return tool.missing }
    return try await textPreview(
      tool.program, HelperCommand(executable: program, arguments: arguments), limits: limits ?? self.limits,
      missing: tool.missing, reshape: reshape)
  }

  private func textPreview(
    _ tool: String, _ command: HelperCommand, limits: HelperLimits, missing: ToolPreview,
    reshape: ([UInt8]) -> [UInt8] = { $0 }
  ) async throws -> ToolPreview {
    let result: HelperResult
    do {
      result = try await HelperProcess.run(command, sandbox: sandbox, limits: limits)
    } catch let error as HelperError {
      // Removed between the lookup and the exec.
      return error.code == .notFound ? missing : .failed(tool: tool, reason: error.message)
    }
    // Output counts even from a tool that then failed (7z lists, then reports a bad block).
    let shown = lines(fromHelperOutput: reshape(result.output))
    if shown.contains(where: { !$0.runs.isEmpty }) { return .lines(shown, truncated: result.isTruncated) }
    if result.succeeded { return .lines([], truncated: false) }
    return .failed(tool: tool, reason: Self.reason(result, limits: limits))
  }

  private func picture(of tool: PreviewTool, arguments: (String) -> [[UInt8]]) async throws -> ToolPreview {
    guard let program = sandbox.locate(tool.program) else { return tool.missing }
    let output: String
    do {
      output = try sandbox.reserveFile(prefix: "picture-", suffix: ".png")
    } catch {
      return .failed(tool: tool.program, reason: error.message)
    }
    var keep = false
    defer { if !keep { unlink(output) } }
    let result: HelperResult
    do {
      result = try await HelperProcess.run(
        HelperCommand(executable: program, arguments: arguments(output)), sandbox: sandbox, limits: limits)
    } catch let error as HelperError {
      return error.code == .notFound ? tool.missing : .failed(tool: tool.program, reason: error.message)
    }
    guard result.succeeded else { return .failed(tool: tool.program, reason: Self.reason(result, limits: limits)) }
    var info = stat()
    guard lstat(output, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 else {
      return .failed(tool: tool.program, reason: "made no picture")
    }
    keep = true
    return .pictureFile(output)
  }

  /// Why a run gave nothing: its first line of stderr, else how it ended.
  static func reason(_ result: HelperResult, limits: HelperLimits) -> String {
    switch result.stop {
    case .deadline: return "took longer than \(limits.deadline.formatted)"
    case .outputCap, .lineCap, nil: break
    }
    let firstLine = lines(fromHelperOutput: result.errorOutput).map(\.plainText).first {
      !$0.allSatisfy { $0 == " " }
    }
    if let firstLine { return MagicType.clean(firstLine) }
    switch result.termination {
    case .exited(let code): return "exited with status \(code)"
    case .signaled(let signal): return "ended by signal \(signal)"
    case .abandoned: return "did not end when killed"
    }
  }
}

extension Duration {
  /// "2 s", "500 ms".
  fileprivate var formatted: String {
    let (seconds, attoseconds) = components
    if attoseconds == 0 { return "\(seconds) s" }
    return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms"
  }
}
