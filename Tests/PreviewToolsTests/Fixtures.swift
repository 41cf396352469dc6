import Foundation
import PreviewTools

#if canImport(Glibc)
  import Glibc
#endif

/// A fresh folder under /tmp for one test, with a private preview cache in it.
struct Scratch {
  let root: String
  let sandbox: HelperSandbox

  init(searchPath: [String]? = nil) throws {
    var template = Array("/tmp/folio-preview-tools-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
    root = String(cString: made)
    let prepared = try HelperSandbox.prepare(directory: root + "/cache/folio/preview")
    sandbox = HelperSandbox(
      directory: prepared.directory, searchPath: searchPath ?? prepared.searchPath, home: prepared.home)
  }

  /// Writes a shell script and returns the command that runs it: `/bin/sh SCRIPT`, not the
  /// script itself, because exec'ing a file that was just written fails with ETXTBSY while any
  /// other test's fork still holds a copy of the writer's descriptor (the classic fork/exec race).
  func script(_ name: String, _ body: String) throws -> HelperCommand {
    let path = root + "/" + name
    try (body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return HelperCommand(executable: "/bin/sh", arguments: [path])
  }

  func write(_ name: String, _ bytes: [UInt8]) throws -> String {
    let path = root + "/" + name
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  func remove() { try? FileManager.default.removeItem(atPath: root) }
}

/// A process as /proc shows it.
struct ProcessEntry {
  let pid: Int32
  let state: Character
  let parent: Int32
  let group: Int32
  let session: Int32

  /// Nil when there is no such process (not even a zombie).
  init?(pid: Int32) {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return nil }
    // "pid (comm) S ppid pgrp session …": comm may hold spaces and parentheses.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 4, let state = fields[0].first, let parent = Int32(fields[1]), let group = Int32(fields[2]),
      let session = Int32(fields[3])
    else { return nil }
    self.pid = pid
    self.state = state
    self.parent = parent
    self.group = group
    self.session = session
  }

  var isAlive: Bool { state != "Z" && state != "X" }

  /// The live (not zombie) processes of a process group.
  static func livingMembers(ofGroup group: Int32) -> [ProcessEntry] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return names.compactMap { Int32($0) }.compactMap { ProcessEntry(pid: $0) }.filter {
      $0.group == group && $0.isAlive
    }
  }
}

/// Polls `condition` every 10 ms until it holds; false if it still does not after `seconds`
/// (a bound for a hung test, not the thing tested).
func eventually(within seconds: Double = 20, _ condition: () -> Bool) async -> Bool {
  let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
  while ContinuousClock.now < end {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(10))
  }
  return condition()
}

/// The absolute path of a program on this process's PATH.
func installed(_ program: String) -> String? {
  (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { $0 + "/" + program }.first {
    access($0, X_OK) == 0
  }
}

enum Samples {
  /// A one-page PDF saying "Hello Folio", written by hand: objects, then an xref table with their
  /// byte offsets.
  static var pdf: [UInt8] {
    let stream = "BT /F1 24 Tf 20 100 Td (Hello Folio) Tj ET"
    let objects = [
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
      "<< /Length \(stream.utf8.count) >>\nstream\n\(stream)\nendstream",
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    var out = "%PDF-1.4\n"
    var offsets: [Int] = []
    for (i, object) in objects.enumerated() {
      offsets.append(out.utf8.count)
      out += "\(i + 1) 0 obj\n\(object)\nendobj\n"
    }
    let xref = out.utf8.count
    out += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
    for offset in offsets {
      let digits = String(offset)
      out += String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n"
    }
    out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
    return Array(out.utf8)
  }

  /// A 1×1 GIF (red): something ffmpegthumbnailer takes a frame from.
  static let gif: [UInt8] = Array(
    Data(base64Encoded: "R0lGODlhAQABAPAAAP8AAP///yH5BAAAAAAALAAAAAABAAEAAAICRAEAOw==")!)

  /// A WAV header and a quarter second of 8 kHz mono 8-bit silence.
  static var wav: [UInt8] {
    func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    let samples = [UInt8](repeating: 0x80, count: 2000)
    var out = Array("RIFF".utf8) + le32(UInt32(36 + samples.count)) + Array("WAVEfmt ".utf8)
    out += le32(16) + le16(1) + le16(1) + le32(8000) + le32(8000) + le16(1) + le16(8)
    out += Array("data".utf8) + le32(UInt32(samples.count)) + samples
    return out
  }

  /// The PNG signature and an IHDR chunk for a 4000×3000 RGB picture (CRC left zero: libmagic
  /// reads the header only).
  static var pngPrefix: [UInt8] {
    var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    out += [0, 0, 0, 13] + Array("IHDR".utf8)
    out += [0, 0, 0x0F, 0xA0] + [0, 0, 0x0B, 0xB8] + [8, 2, 0, 0, 0] + [0, 0, 0, 0]
    return out
  }
}
