import Foundation
import SFTPClient
import SSHTestSupport
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A second SFTP server: `rclone serve sftp` (Go's SFTP, none of OpenSSH's extensions: no
/// posix-rename, no limits, no fsync). The same commands work on it as on OpenSSH, byte for byte.
@Suite(.offThePool) struct RcloneSFTPTests {
  @Test func anRcloneServerListsGetsAndPutsExactBytesAndHostileNames() throws {
    try #require(RcloneSFTPServer.program != nil, "rclone is not installed: `apt-get install rclone` (.ci/run installs it)")
    let server = try RcloneSFTPServer()
    defer { server.stop() }
    // Hostile names made on the server (before rclone lists the folder: it caches listings) are
    // listed escaped and fetched under their exact bytes. rclone serves control characters as
    // their Unicode pictures (its local backend's encoding: ESC is "␛"), so those are the names.
    let hostile: [(onDisk: [UInt8], served: [UInt8], shown: String)] = [
      (Array("e\u{1B}[2J.txt".utf8), Array("e\u{241B}[2J.txt".utf8), "e\u{241B}[2J.txt"),
      (Array("new\nline".utf8), Array("new\u{240A}line".utf8), "new\u{240A}line"),
      (Array("\u{202E}gpj.exe".utf8), Array("\u{202E}gpj.exe".utf8), "\\u{202E}gpj.exe"),
      (Array("-rf".utf8), Array("-rf".utf8), "-rf"), (Array("caf\u{E9}".utf8), Array("caf\u{E9}".utf8), "caf\u{E9}"),
      (Array("$(reboot) 'q' \"d\".txt".utf8), Array("$(reboot) 'q' \"d\".txt".utf8), "$(reboot) 'q' \"d\".txt"),
    ]
    for (i, h) in hostile.enumerated() {
      try LocalBytes.create(LocalBytes.path(server.files, h.onDisk), contents: Array("hostile \(i)".utf8))
    }
    let configFile = try #require(try server.configuration(name: "folio").configFile)
    let s = try Sandbox()
    let added = try s.folio("domain", "add", "rc", "--sftp", "rclone-test", "--ssh-config", Arg(configFile), "--path", "/")
    #expect(added.status == 0, "\(added)\n\(server.log)")

    // put, then get back: the same SHA-256 on the server and on this computer.
    let blob = try s.file("blob.bin", "")
    try Data(randomBytes(3 << 20, seed: 12)).write(to: URL(fileURLWithPath: blob))
    let put = try s.folio("put", "blob.bin", "rc:/")
    #expect(put.status == 0, "\(put)")
    let digest = try sha256(blob, s)
    // rclone's write cache copies the file into place after the close: wait for it.
    #expect(try eventually { try sha256(server.files + "/blob.bin", s, quiet: true) == digest })
    let into = try s.folder("into")
    let got = try s.folio("get", "rc:/blob.bin", Arg(into))
    #expect(got.status == 0, "\(got)")
    #expect(try sha256(into + "/blob.bin", s) == digest)

    let listed = try s.folio("ls", "rc:/")
    #expect(listed.status == 0, "\(listed)")
    #expect(!listed.stdout.contains(0x1B), "no escape byte reaches the terminal: \(listed)")
    for h in hostile { #expect(listed.out.contains(h.shown), "\(h.shown) in \(listed)") }
    let fetched = try s.folder("fetched")
    for (i, h) in hostile.enumerated() {
      let get = try s.folio("get", Arg(bytes: Array("rc:/".utf8) + h.served), Arg(fetched))
      #expect(get.status == 0, "\(get)")
      #expect(
        FileManager.default.contents(atPath: String(decoding: LocalBytes.path(fetched, h.served), as: UTF8.self))
          == Data("hostile \(i)".utf8), "\(h.shown)")
    }
    #expect(s.names(in: fetched) == Set(hostile.map(\.served)))

    // A hostile name put from here arrives under its exact bytes.
    let upName = Array("up\u{1B}[31m red.txt".utf8)
    try s.file(bytes: upName, "from folio\n")
    let upped = try s.folio("put", Arg(bytes: upName), "rc:/")
    #expect(upped.status == 0, "\(upped)")
    #expect(!upped.stdout.contains(0x1B) && !upped.stderr.contains(0x1B), "\(upped)")
    #expect(
      eventually {
        FileManager.default.contents(atPath: String(decoding: LocalBytes.path(server.files, upName), as: UTF8.self))
          == Data("from folio\n".utf8)
      })
    let left = (try? FileManager.default.contentsOfDirectory(atPath: server.files)) ?? []
    #expect(!left.contains { $0.contains(".folio-") }, "no temporary left: \(left)")
  }
}
