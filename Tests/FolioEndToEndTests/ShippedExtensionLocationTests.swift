import Foundation
import TestExecution
import Testing

/// The extensions Folio ships (Extensions/) through the real `folio`, found on PATH as an installed
/// Folio finds them beside itself: folio-ext-sqlite (the reference) with every file verb, and
/// folio-rclone over rclone's local backend (a plain folder is a remote for rclone).
@Suite("folio and the shipped extensions", .serialized, .offThePool)
struct ShippedExtensionLocationTests {
  static let extensions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Extensions").path

  /// The sandbox's PATH with Extensions/ first.
  static func environment(_ s: Sandbox) -> [String: String] {
    ["PATH": extensions + ":" + s.environment["PATH"]!]
  }

  /// Bytes no text path would keep: a NUL, an invalid UTF-8 byte, a CR LF.
  static let payload = Data([0x68, 0x69, 0x00, 0xFF, 0xFE, 0x0D, 0x0A, 0x80] + Array("end".utf8))

  @Test func folioExtSqliteCarriesEveryFileVerbByteExact() throws {
    let s = try Sandbox()
    let env = Self.environment(s)
    let root = s.root + "/store"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)

    // root is required: refused, the message names the setting, nothing written.
    let refused = try s.folio("domain", "add", "store", "--extension", "folio-ext-sqlite", environment: env)
    #expect(refused.status != 0, "\(refused)")
    #expect(refused.err.contains("folio-ext-sqlite needs a setting: --set root="), "\(refused)")
    #expect(!FileManager.default.fileExists(atPath: s.configHome + "/folio/config.toml")
      || !((try? String(contentsOfFile: s.configHome + "/folio/config.toml", encoding: .utf8)) ?? "").contains("store"))

    let added = try s.folio(
      "domain", "add", "store", "--extension", "folio-ext-sqlite", "--set", Arg("root=" + root), environment: env)
    #expect(added.status == 0, "\(added)")

    try Self.payload.write(to: URL(fileURLWithPath: s.work + "/blob.bin"))
    let put = try s.folio("put", Arg(s.work + "/blob.bin"), "store:/", environment: env)
    #expect(put.status == 0, "\(put)")
    let ls = try s.folio("ls", "store:/", environment: env)
    #expect(ls.status == 0 && ls.out.contains("blob.bin"), "\(ls)")
    let got = try s.folio("get", "store:/blob.bin", Arg(s.work + "/got.bin"), environment: env)
    #expect(got.status == 0, "\(got)")
    #expect(FileManager.default.contents(atPath: s.work + "/got.bin") == Self.payload)

    // mv into a folder, then rename there: the bytes follow.
    #expect(try s.folio("mkdir", "store:/Sub", environment: env).status == 0)
    let mv = try s.folio("mv", "store:/blob.bin", "store:/Sub", environment: env)
    #expect(mv.status == 0, "\(mv)")
    let renamed = try s.folio("rename", "store:/Sub/blob.bin", "moved.bin", environment: env)
    #expect(renamed.status == 0, "\(renamed)")
    let inSub = try s.folio("ls", "store:/Sub", environment: env)
    #expect(inSub.out.contains("moved.bin") && !inSub.out.contains("blob.bin"), "\(inSub)")
    #expect(!(try s.folio("ls", "store:/", environment: env)).out.contains("blob.bin"))
    _ = try s.folio("get", "store:/Sub/moved.bin", Arg(s.work + "/moved.bin"), environment: env)
    #expect(FileManager.default.contents(atPath: s.work + "/moved.bin") == Self.payload)

    // rm moves it to the location's Recently Deleted, listed where it was; restore puts it back.
    let rm = try s.folio("rm", "store:/Sub/moved.bin", environment: env)
    #expect(rm.status == 0, "\(rm)")
    #expect(!(try s.folio("ls", "store:/Sub", environment: env)).out.contains("moved.bin"))
    let trash = try s.folio("trash", "--location", "store", environment: env)
    #expect(trash.status == 0 && trash.out.contains("/Sub/moved.bin"), "\(trash)")
    let restored = try s.folio("trash", "restore", "store:/Sub/moved.bin", environment: env)
    #expect(restored.status == 0, "\(restored)")
    _ = try s.folio("get", "store:/Sub/moved.bin", Arg(s.work + "/restored.bin"), environment: env)
    #expect(FileManager.default.contents(atPath: s.work + "/restored.bin") == Self.payload)

    // rm --permanently: gone, and not in Recently Deleted either.
    let gone = try s.folio("rm", "--permanently", "store:/Sub/moved.bin", environment: env)
    #expect(gone.status == 0, "\(gone)")
    #expect(!(try s.folio("ls", "store:/Sub", environment: env)).out.contains("moved.bin"))
    #expect(!(try s.folio("trash", "--location", "store", environment: env)).out.contains("moved.bin"))
  }

  @Test func folioRcloneOverALocalFolder() throws {
    let s = try Sandbox()
    let env = Self.environment(s)
    let remote = try s.folder("R")
    _ = try s.file("R/a.txt", "one\n")
    _ = try s.folder("R/Docs")
    _ = try s.file("R/Docs/b.txt", "bee\n")

    let added = try s.folio("domain", "add", "rc", "--rclone", Arg(remote), environment: env)
    #expect(added.status == 0, "\(added)")
    let config = try String(contentsOfFile: s.configHome + "/folio/config.toml", encoding: .utf8)
    #expect(config.contains("command = [\"folio-rclone\"]") && config.contains("remote = \"\(remote)\""), "\(config)")

    let ls = try s.folio("ls", "rc:/", environment: env)
    #expect(ls.status == 0 && ls.out.contains("a.txt") && ls.out.contains("Docs/"), "\(ls)")
    let docs = try s.folio("ls", "rc:/Docs", environment: env)
    #expect(docs.status == 0 && docs.out.contains("b.txt"), "\(docs)")

    let got = try s.folio("get", "rc:/a.txt", Arg(s.work + "/a.txt"), environment: env)
    #expect(got.status == 0, "\(got)")
    #expect(s.contents("a.txt") == "one\n")

    try Self.payload.write(to: URL(fileURLWithPath: s.work + "/blob.bin"))
    let put = try s.folio("put", Arg(s.work + "/blob.bin"), "rc:/Docs", environment: env)
    #expect(put.status == 0, "\(put)")
    #expect(FileManager.default.contents(atPath: remote + "/Docs/blob.bin") == Self.payload)
    let left = try FileManager.default.contentsOfDirectory(atPath: remote + "/Docs")
    #expect(!left.contains { $0.hasPrefix(".folio-rclone-") }, "\(left)")

    // The account's space, from `rclone about`.
    let list = try s.folio("domain", "list", environment: env)
    let row = list.outLines.first { $0.hasPrefix("rc ") } ?? ""
    #expect(row.contains("extension") && row.contains("online") && row.contains("folio-rclone (")
      && row.contains(" of "), "\(list)")
  }
}
