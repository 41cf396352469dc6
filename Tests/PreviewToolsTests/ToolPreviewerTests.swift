import Foundation
import PreviewKit
import PreviewTools
import ProviderAPI
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The tool previewers against the real tools (poppler-utils, libarchive-tools, mediainfo,
/// ffmpegthumbnailer; 7-Zip when installed), on files made by the test.
@Suite(.offThePool) struct ToolPreviewerTests {
  @Test func aMissingToolSaysWhatToInstall() async throws {
    let scratch = try Scratch(searchPath: ["/nonexistent"])
    defer { scratch.remove() }
    let previewer = ToolPreviewer(sandbox: scratch.sandbox, limits: .patient)
    let path = ItemPath(bytes: Array(try scratch.write("a.pdf", Samples.pdf).utf8))

    let pdf = try await previewer.preview(path: path, kind: .pdf, columns: 80, rows: 40)
    #expect(pdf == .missing(tool: "pdftotext", package: "poppler-utils", purpose: "preview PDF text"))
    #expect(pdf.message == "Install poppler-utils to preview PDF text")
    #expect(
      pdf.body.map { if case .message(let m) = $0 { m } else { "" } } == "Install poppler-utils to preview PDF text")

    let zip = try await previewer.preview(path: path, kind: .archive(.zip), columns: 80, rows: 40)
    #expect(zip.message == "Install libarchive-tools to list archives")
    let sevenZip = try await previewer.preview(path: path, kind: .archive(.sevenZip), columns: 80, rows: 40)
    #expect(sevenZip.message == "Install 7zip to list 7z and RAR archives")
    let audio = try await previewer.preview(path: path, kind: .audio, columns: 80, rows: 40)
    #expect(audio.message == "Install mediainfo to show audio and video details")
    let video = try await previewer.preview(path: path, kind: .video, columns: 80, rows: 40)
    #expect(video.message == "Install ffmpegthumbnailer to preview video frames")
    let own = try await previewer.run(previewer: [Array("glow".utf8), path.bytes])
    #expect(own.message == "glow is not installed (needed to run this file's [[previewer]] from config.toml)")
  }

  @Test func pdfText() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = ItemPath(bytes: Array(try scratch.write("-hello.pdf", Samples.pdf).utf8))
    let previewer = ToolPreviewer(sandbox: scratch.sandbox, pictures: false, limits: .patient)

    let preview = try await previewer.preview(path: path, kind: .pdf, columns: 80, rows: 40)

    guard case .lines(let lines, let truncated) = preview else {
      Issue.record("\(preview)")
      return
    }
    #expect(lines.contains { $0.plainText.contains("Hello Folio") })
    #expect(!truncated)
  }

  @Test func pdfFirstPageAsAPictureFileInThePrivateFolder() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = ItemPath(bytes: Array(try scratch.write("hello.pdf", Samples.pdf).utf8))

    let preview = try await ToolPreviewer(sandbox: scratch.sandbox, limits: .patient).preview(
      path: path, kind: .pdf, columns: 80, rows: 40)

    guard case .pictureFile(let file) = preview else {
      Issue.record("\(preview)")
      return
    }
    #expect(file.hasPrefix(scratch.sandbox.directory + "/"))
    let header = Array(try Data(contentsOf: URL(fileURLWithPath: file)).prefix(8))
    #expect(header == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    var info = stat()
    #expect(lstat(file, &info) == 0 && info.st_mode & 0o077 == 0, "no one else may read it")
    // Nothing else is left in the folder (pdftoppm wrote to the name reserved for it).
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: scratch.sandbox.directory) == [
        file.split(separator: "/").last.map(String.init)!
      ])
  }

  @Test func aBrokenPDFIsAFailureWithTheToolsReason() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = ItemPath(bytes: Array(try scratch.write("broken.pdf", Array("%PDF-1.4\nnot really".utf8)).utf8))
    for pictures in [true, false] {
      let preview = try await ToolPreviewer(sandbox: scratch.sandbox, pictures: pictures, limits: .patient).preview(
        path: path, kind: .pdf, columns: 80, rows: 40)
      guard case .failed(let tool, let reason) = preview else {
        Issue.record("\(preview)")
        continue
      }
      #expect(tool == (pictures ? "pdftoppm" : "pdftotext"))
      #expect(!reason.isEmpty)
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.sandbox.directory).isEmpty, "no picture left")
  }

  /// Archives made at test time with bsdtar itself; one member's name holds an OSC 52 sequence.
  @Test(arguments: [("zip", ToolKind.ArchiveFormat.zip), ("ustar", .tar)])
  func anArchiveIsListedSafely(format: String, kind: ToolKind.ArchiveFormat) async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let content = scratch.root + "/content"
    try FileManager.default.createDirectory(atPath: content, withIntermediateDirectories: true)
    for name in ["readme.txt", "evil\u{1B}]52;c;aGk=\u{07}.txt"] {
      try Data("x".utf8).write(to: URL(fileURLWithPath: content + "/" + name))
    }
    let archive = scratch.root + "/a." + format
    try await makeArchive(archive, format: format, from: content, scratch: scratch)

    let preview = try await ToolPreviewer(sandbox: scratch.sandbox, limits: .patient).archiveListing(
      path: ItemPath(bytes: Array(archive.utf8)), format: kind, maxEntries: 100)

    guard case .lines(let lines, let truncated) = preview else {
      Issue.record("\(preview)")
      return
    }
    #expect(!truncated)
    #expect(lines.contains { $0.plainText.hasSuffix("readme.txt") })
    #expect(lines.contains { $0.plainText.contains("evil") })
    let shown = lines.map(\.plainText).joined()
    #expect(!shown.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
  }

  @Test func aLongListingStopsAtTheEntryCap() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let content = scratch.root + "/many"
    try FileManager.default.createDirectory(atPath: content, withIntermediateDirectories: true)
    for i in 0..<300 { try Data().write(to: URL(fileURLWithPath: content + "/file-\(i)")) }
    let archive = scratch.root + "/many.tar"
    try await makeArchive(archive, format: "ustar", from: content, scratch: scratch)

    let preview = try await ToolPreviewer(sandbox: scratch.sandbox, limits: .patient).preview(
      path: ItemPath(bytes: Array(archive.utf8)), kind: .archive(.tar), columns: 80, rows: 10)

    guard case .lines(let lines, let truncated) = preview else {
      Issue.record("\(preview)")
      return
    }
    #expect(lines.count == ToolPreviewer.entryCap(rows: 10))
    #expect(truncated)
  }

  /// An encrypted 7z with encrypted headers: 7-Zip would ask for a password; with `-p` and no
  /// terminal it fails at once instead. Skipped when neither `7zz` (7zip) nor `7z` is installed.
  @Test(.enabled(if: installed("7zz") != nil || installed("7z") != nil, "7-Zip (7zip or p7zip-full) is not installed"))
  func anEncrypted7zNeverHangs() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let sevenZip = try #require(installed("7zz") ?? installed("7z"))
    let secret = try scratch.write("secret.txt", Array("secret".utf8))
    let archive = scratch.root + "/locked.7z"
    let made = try await HelperProcess.run(
      HelperCommand(executable: sevenZip, arguments: ["a", "-psecret", "-mhe=on", archive, secret]),
      sandbox: scratch.sandbox)
    try #require(made.succeeded)
    var limits = HelperLimits()
    limits.deadline = .seconds(600)  // only a prompt could make it wait: it must end by itself

    let preview = try await ToolPreviewer(sandbox: scratch.sandbox, limits: limits).preview(
      path: ItemPath(bytes: Array(archive.utf8)), kind: .archive(.sevenZip), columns: 80, rows: 40)

    guard case .failed(let tool, let reason) = preview else {
      Issue.record("\(preview)")
      return
    }
    #expect(tool == "7zz" || tool == "7z")
    #expect(!reason.contains("took longer"))
  }

  @Test func audioDetailsFitThePane() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = ItemPath(bytes: Array(try scratch.write("tone.wav", Samples.wav).utf8))

    let preview = try await ToolPreviewer(sandbox: scratch.sandbox, limits: .patient).preview(
      path: path, kind: .audio, columns: 60, rows: 40)

    guard case .lines(let lines, _) = preview else {
      Issue.record("\(preview)")
      return
    }
    let text = lines.map(\.plainText)
    #expect(text.contains("General"))
    let format = try #require(text.first { $0.hasPrefix("Format ") })
    #expect(format.hasSuffix(": Wave"))
    // mediainfo pads keys to 41 columns; fitted to the longest key of the report, ≤ 60 / 3.
    #expect(try #require(format.firstIndex(of: ":")).utf16Offset(in: format) <= 21)
  }

  @Test func aVideoFrameAsAPictureFile() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = ItemPath(bytes: Array(try scratch.write("clip.gif", Samples.gif).utf8))

    let preview = try await ToolPreviewer(sandbox: scratch.sandbox, limits: .patient).preview(
      path: path, kind: .video, columns: 80, rows: 40)

    guard case .pictureFile(let file) = preview else {
      Issue.record("\(preview)")
      return
    }
    #expect(file.hasPrefix(scratch.sandbox.directory + "/"))
    #expect(Array(try Data(contentsOf: URL(fileURLWithPath: file)).prefix(4)) == [0x89, 0x50, 0x4E, 0x47])

    let text = try await ToolPreviewer(sandbox: scratch.sandbox, pictures: false, limits: .patient).preview(
      path: path, kind: .video, columns: 80, rows: 40)
    guard case .lines(let lines, _) = text else {
      Issue.record("\(text)")
      return
    }
    #expect(lines.contains { $0.plainText.contains("GIF") })
  }

  @Test func aUsersPreviewerRunsSandboxedAndItsOutputIsSanitised() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let script = try scratch.script(
      "my-previewer", "printf 'size %s x %s of %s\\n' \"$2\" \"$3\" \"$1\"\nprintf 'a\\033]52;c;eA==\\007b\\033[2Jc\\n'"
    )

    let preview = try await ToolPreviewer(sandbox: scratch.sandbox, limits: .patient).run(
      previewer: [Array("sh".utf8), script.arguments[0], Array("/x/-y".utf8), Array("80".utf8), Array("40".utf8)])

    guard case .lines(let lines, let truncated) = preview else {
      Issue.record("\(preview)")
      return
    }
    #expect(lines.map(\.plainText) == ["size 80 x 40 of /x/-y", "abc"])
    #expect(!truncated)
  }

  @Test func kindsFromNamesAndMIMETypes() {
    #expect(ToolKind(name: "Report.PDF") == .pdf)
    #expect(ToolKind(name: "src.tar.gz") == .archive(.tar))
    #expect(ToolKind(name: "x.tgz") == .archive(.tar))
    #expect(ToolKind(name: "a.7z") == .archive(.sevenZip))
    #expect(ToolKind(name: "song.flac") == .audio)
    #expect(ToolKind(name: "film.mkv") == .video)
    #expect(ToolKind(name: "notes.txt") == nil)
    #expect(ToolKind(name: ".pdf") == nil, "a hidden file named pdf has no extension")
    #expect(ToolKind(name: "x.gz") == nil, "a bare gzip stream is not an archive")
    #expect(ToolKind(mimeType: "application/pdf") == .pdf)
    #expect(ToolKind(mimeType: "application/x-7z-compressed") == .archive(.sevenZip))
    #expect(ToolKind(mimeType: "video/mp4") == .video)
    #expect(ToolKind(mimeType: "audio/x-wav") == .audio)
    #expect(ToolKind(mimeType: "text/plain") == nil)
  }

  private func makeArchive(_ archive: String, format: String, from folder: String, scratch: Scratch) async throws {
    let bsdtar = try #require(installed("bsdtar"))
    let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    let made = try await HelperProcess.run(
      HelperCommand(executable: bsdtar, arguments: ["--format", format, "-cf", archive, "-C", folder] + names),
      sandbox: scratch.sandbox)
    try #require(made.succeeded, "\(String(decoding: made.errorOutput, as: UTF8.self))")
  }
}

extension HelperLimits {
  /// The real tools (pdftoppm, ffmpeg, mediainfo) on a loaded two-core machine can take longer
  /// than the browser's 2 s: what these tests check is what a tool's answer becomes, not its speed.
  static var patient: HelperLimits {
    var limits = HelperLimits()
    limits.deadline = .seconds(120)
    return limits
  }
}
