import ProviderAPI

/// An installed tool a previewer may run: its program name, the Debian package that has it, what
/// it is for (completing "Install <package> to …"), and its argv for a file.
///
/// Every argv puts the file where the tool cannot take it for an option: after `--` where the
/// tool accepts one, and always as an absolute path or `./name` (``fileArgument(_:)``), so a file
/// named `-rf` or `-` is a file. Pure values: the tests check these argv without running anything.
struct PreviewTool: Sendable, Equatable {
  let program: String
  let package: String
  let purpose: String

  static let pdfText = PreviewTool(program: "pdftotext", package: "poppler-utils", purpose: "preview PDF text")
  static let pdfPage = PreviewTool(program: "pdftoppm", package: "poppler-utils", purpose: "preview PDF pages")
  static let bsdtar = PreviewTool(program: "bsdtar", package: "libarchive-tools", purpose: "list archives")
  /// 7-Zip's own build (Debian `7zip`); `7z` (p7zip-full) takes the same arguments.
  static let sevenZip = PreviewTool(program: "7zz", package: "7zip", purpose: "list 7z and RAR archives")
  static let p7zip = PreviewTool(program: "7z", package: "p7zip-full", purpose: "list 7z and RAR archives")
  static let mediaInfo = PreviewTool(
    program: "mediainfo", package: "mediainfo", purpose: "show audio and video details")
  static let videoFrame = PreviewTool(
    program: "ffmpegthumbnailer", package: "ffmpegthumbnailer", purpose: "preview video frames")

  var missing: ToolPreview { .missing(tool: program, package: package, purpose: purpose) }

  // MARK: argv (after the program)

  /// `pdftotext -l 2 -layout -enc UTF-8 -- FILE -`: the first two pages as text on stdout.
  static func pdfTextArguments(_ file: [UInt8]) -> [[UInt8]] {
    words("-l", "2", "-layout", "-enc", "UTF-8", "--") + [file, bytes("-")]
  }

  /// `pdftoppm -f 1 -l 1 -singlefile -scale-to 600 -png -- FILE OUTPREFIX`: writes OUTPREFIX.png.
  static func pdfPageArguments(_ file: [UInt8], outputPrefix: String) -> [[UInt8]] {
    words("-f", "1", "-l", "1", "-singlefile", "-scale-to", "600", "-png", "--") + [file, bytes(outputPrefix)]
  }

  /// `bsdtar -tv -f FILE`: bsdtar escapes control characters in member names itself (its
  /// `safe_fprintf`), and in its own session it cannot ask /dev/tty for a passphrase.
  static func bsdtarArguments(_ file: [UInt8]) -> [[UInt8]] { words("-tv", "-f") + [file] }

  /// `7z l -ba -p -- FILE`: `-p` gives an empty password, so an encrypted archive fails at once
  /// instead of prompting (yazi and ranger do the same); `-ba` drops the banner and headers.
  static func sevenZipArguments(_ file: [UInt8]) -> [[UInt8]] { words("l", "-ba", "-p", "--") + [file] }

  /// `mediainfo -- FILE`.
  static func mediaInfoArguments(_ file: [UInt8]) -> [[UInt8]] { words("--") + [file] }

  /// `ffmpegthumbnailer -i FILE -o OUT.png -s 600 -t 10% -c png`: a frame a tenth of the way in.
  static func videoFrameArguments(_ file: [UInt8], output: String) -> [[UInt8]] {
    [bytes("-i"), file] + words("-o") + [bytes(output)] + words("-s", "600", "-t", "10%", "-c", "png")
  }

  /// A path as an argument no tool reads as an option: absolute paths as they are, others behind
  /// `./` (`-` would otherwise mean stdin to most tools).
  static func fileArgument(_ path: ItemPath) -> [UInt8] {
    path.bytes.first == 0x2F ? path.bytes : Array("./".utf8) + path.bytes
  }

  private static func words(_ list: String...) -> [[UInt8]] { list.map(bytes) }
  private static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
}
