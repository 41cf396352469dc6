import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// A real temporary folder for a test, removed at the end. Under /var/tmp rather than /tmp so that
/// user xattrs work on more machines.
final class TemporaryFolder {
  let path: ItemPath

  init() {
    var template = Array("/var/tmp/folio-test-XXXXXX".utf8CString)
    let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(p != nil, "mkdtemp failed")
    path = ItemPath(String(cString: p!))
  }

  deinit {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/rm")
    p.arguments = ["-rf", "--", String(decoding: path.bytes, as: UTF8.self)]
    try? p.run()
    p.waitUntilExit()
  }

  func child(_ name: [UInt8]) -> ItemPath { path.appending(ItemName(bytes: name)) }
  func child(_ name: String) -> ItemPath { child(Array(name.utf8)) }

  @discardableResult
  func makeFile(_ name: [UInt8], content: String = "") -> ItemPath {
    let p = child(name)
    let fd = p.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
    precondition(fd >= 0, "cannot create \(p.displayString): \(errno)")
    _ = content.withCString { write(fd, $0, strlen($0)) }
    close(fd)
    return p
  }

  @discardableResult
  func makeFile(_ name: String, content: String = "") -> ItemPath { makeFile(Array(name.utf8), content: content) }

  @discardableResult
  func makeFolder(_ name: String) -> ItemPath {
    let p = child(name)
    precondition(p.withCString { mkdir($0, 0o755) } == 0)
    return p
  }

  /// A file's bytes, opened by its exact path bytes.
  static func read(_ path: ItemPath) -> [UInt8] {
    let fd = path.withCString { open($0, O_RDONLY) }
    guard fd >= 0 else { return [] }
    defer { close(fd) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n <= 0 { break }
      out += buf[0..<n]
    }
    return out
  }

  /// The names on disk, as bytes, sorted bytewise.
  func listing(_ folder: ItemPath? = nil) -> [[UInt8]] {
    let dir = (folder ?? path).withCString { opendir($0) }!
    defer { closedir(dir) }
    var out: [[UInt8]] = []
    while let e = readdir(dir) {
      let n = withUnsafeBytes(of: &e.pointee.d_name) { raw in
        Array(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: strlen(raw.baseAddress!.assumingMemoryBound(to: CChar.self))))
      }
      if n != [0x2E] && n != [0x2E, 0x2E] { out.append(n) }
    }
    return out.sorted { $0.lexicographicallyPrecedes($1) }
  }
}

/// The hostile-name corpus of test-plan §4.1 that a Linux filesystem can hold.
enum NameCorpus {
  static let names: [[UInt8]] = {
    var n: [[UInt8]] = []
    // N02: C0 controls, DEL, leading/trailing whitespace and dots, only spaces.
    n.append(Array("tab\there".utf8))
    n.append(Array("new\nline".utf8))
    n.append(Array("cr\rret".utf8))
    n.append([0x01, 0x02, 0x7F] + Array("ctl".utf8))
    n.append(Array(" leading space".utf8))
    n.append(Array("trailing space ".utf8))
    n.append(Array("   ".utf8))
    n.append(Array("dots...".utf8))
    n.append(Array("~tilde".utf8))
    // N03: C1 and raw 8-bit CSI.
    n.append(Array("c1\u{0085}\u{009B}x".utf8))
    n.append(Array("raw".utf8) + [0x9B] + Array("31m".utf8))
    // N04: escape sequences.
    n.append(Array("\u{1B}[31mred".utf8))
    n.append(Array("\u{1B}]0;pwn\u{07}".utf8))
    n.append(Array("\u{1B}]52;c;cHduZWQ=\u{07}".utf8))
    n.append(Array("\u{1B}[2J".utf8))
    // N05: shell and option lookalikes.
    n.append(Array("-rf".utf8))
    n.append(Array("--help".utf8))
    n.append(Array("$(touch x)".utf8))
    n.append(Array("a'b\"c".utf8))
    n.append(Array("; rm -rf ~".utf8))
    n.append(Array("test%46.txt".utf8))
    // N06: invalid UTF-8.
    n.append([0xFE])
    n.append([0x80] + Array("lone".utf8))
    n.append([0xC0, 0xAF])
    n.append([0xE2, 0x82])
    n.append([0xED, 0xA0, 0x80])
    n.append(Array("caf".utf8) + [0xE9])
    // N07/N08: NFC/NFD twins and case twins.
    n.append(Array("\u{E9}t\u{E9}".utf8))
    n.append(Array("e\u{301}te\u{301}".utf8))
    n.append(Array("nice image.gif".utf8))
    n.append(Array("NICE IMAGE.GIF".utf8))
    // N09/N10: bidi and invisible.
    n.append(Array("invoice\u{202E}fdp.exe".utf8))
    n.append(Array("fi\u{200B}le".utf8))
    n.append(Array("\u{FEFF}bom".utf8))
    // N11: wide.
    n.append(Array("測試_Русский_ě_áñ".utf8))
    n.append(Array("👸🏼🧑‍🌾🇯🇵".utf8))
    // N12: 255 bytes, ASCII and 3-byte CJK.
    n.append([UInt8](repeating: 0x61, count: 255))
    n.append(Array(String(repeating: "漢", count: 85).utf8))
    return n
  }()
}
