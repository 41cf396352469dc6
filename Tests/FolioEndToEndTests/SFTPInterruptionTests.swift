import Foundation
import SFTPClient
import SSHTestSupport
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// An SSH location when things go wrong in the middle: `folio` killed during an upload, the link cut
/// during a download, a server that talks before SFTP starts — against a real private sshd, the
/// link slowed by a ProxyCommand so that the test acts while bytes are still moving.
@Suite(.offThePool) struct SFTPInterruptionTests {
  /// 256 KiB a second: a few MiB take long enough to be caught mid-flight.
  static let slowLink = 256 * 1024

  @Test func uploadsKilledMidwayLeaveNoTemporaryAndSyncDeliversExactlyTheBytes() throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let s = try Sandbox()
    let configFile = try addLocation(server, s, bytesPerSecond: Self.slowLink)
    let payload = try s.file("payload.bin", "")
    try Data(randomBytes(6 << 20, seed: 7)).write(to: URL(fileURLWithPath: payload))

    // `folio put` killed while the bytes go up: its temporary stays behind on the server.
    let put = try BackgroundFolio(s, ["put", "payload.bin", "box:/"])
    let first = try #require(
      waitForTemporary(in: server.files, atLeast: 1 << 20, other: nil, while: put), "the upload never got going")
    put.kill9()

    // `folio sync` resumes the journaled upload, and is killed as well. Its attempt makes a new file
    // (another inode) — under the same name, so there is still one temporary, not two.
    let sync = try BackgroundFolio(s, ["sync"])
    let second = try #require(
      waitForTemporary(in: server.files, atLeast: 512 << 10, other: first.inode, while: sync),
      "the resumed upload never got going")
    sync.kill9()
    #expect(second.name == first.name, "every attempt of one upload uses the same temporary name")
    #expect(temporaries(in: server.files).count == 1, "\(temporaries(in: server.files))")

    // The link is fast again: the next sync delivers exactly the bytes and leaves no temporary.
    _ = try server.configuration(name: "folio")
    #expect(FileManager.default.fileExists(atPath: configFile))
    let done = try s.folio("sync")
    #expect(done.status == 0, "\(done)")
    #expect(try sha256(server.files + "/payload.bin", s) == (try sha256(payload, s)))
    #expect(temporaries(in: server.files).isEmpty, "left on the server: \(temporaries(in: server.files))")
    #expect(try FileManager.default.contentsOfDirectory(atPath: server.files).sorted() == ["payload.bin"])
  }

  @Test func aLinkCutMidDownloadSaysSoCommitsNothingAndTheNextGetHasTheExactBytes() throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let s = try Sandbox()
    let size = 4 << 20
    try Data(randomBytes(size, seed: 8)).write(to: URL(fileURLWithPath: server.files + "/big.bin"))
    _ = try addLocation(server, s, bytesPerSecond: Self.slowLink)
    let into = try s.folder("into")

    let get = try BackgroundFolio(s, ["get", "box:/big.bin", Arg(into)])
    let midway = eventually {
      !get.isRunning || largestFile(under: s.cacheHome).map { $0 >= 512 << 10 && $0 < size } == true
    }
    try #require(midway && get.isRunning, "the download was not caught in the middle")
    server.killSessions()  // the sshd process serving the session dies: the link is cut
    let cut = get.waitForExit()
    #expect(cut.status != nil && cut.status != 0, "\(cut)")
    #expect(cut.stdout.isEmpty && cut.errLines.count == 1 && cut.err.hasPrefix("folio: "), "\(cut)")
    #expect(cut.err.contains("the connection was lost"), "\(cut)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: into).isEmpty, "nothing is committed at the destination")

    _ = try server.configuration(name: "folio")
    let again = try s.folio("get", "box:/big.bin", Arg(into))
    #expect(again.status == 0, "\(again)")
    #expect(try sha256(into + "/big.bin", s) == (try sha256(server.files + "/big.bin", s)))
    #expect(try FileManager.default.contentsOfDirectory(atPath: into) == ["big.bin"])
  }

  @Test func aServerThatPrintsBeforeSFTPStartsIsNamedWithItsBytesEscaped() throws {
    let server = try PrivateSSHServer(sftpBanner: Array("Welcome to box\n".utf8))
    defer { server.stop() }
    let s = try Sandbox()
    try writeLocation(server, s)
    let listed = try s.folio("ls", "box:/")
    #expect(listed.status != 0 && listed.stdout.isEmpty, "\(listed)")
    #expect(listed.errLines.count == 1 && listed.err.hasPrefix("folio: "), "\(listed)")
    #expect(listed.err.contains("printed text before SFTP started"), "\(listed)")
    #expect(listed.err.contains("\"Welcome to box\\x0A\""), "\(listed)")
  }

  @Test func aHostileBannerNeverReachesTheTerminalRaw() throws {
    let hostile = Array("\u{1B}]0;owned\u{07}\u{1B}[2J\u{1B}[31mred\r\n".utf8) + [0xFF, 0x9B] + Array("31m\n".utf8)
    let server = try PrivateSSHServer(sftpBanner: hostile)
    defer { server.stop() }
    let s = try Sandbox()
    try writeLocation(server, s)
    for arguments: [Arg] in [["ls", "box:/"], ["domain", "list"], ["get", "box:/x", "."]] {
      let run = try s.folio(arguments)
      for byte: UInt8 in [0x1B, 0x07, 0x0D, 0x9B, 0xFF] {
        #expect(!run.stdout.contains(byte) && !run.stderr.contains(byte), "\(byte) raw in \(run)")
      }
      #expect(run.errLines.count <= 1, "\(run)")
    }
    let listed = try s.folio("ls", "box:/")
    #expect(listed.status != 0 && listed.err.contains("printed text before SFTP started"), "\(listed)")
    #expect(listed.err.contains("\\e]0;owned\\x07\\e[2J\\e[31mred"), "\(listed)")

    // `domain add` says the same, and saves nothing.
    let t = try Sandbox()
    let configFile = try #require(try server.configuration(name: "add").configFile)
    let added = try t.folio("domain", "add", "box", "--sftp", "sftp-test", "--ssh-config", Arg(configFile))
    #expect(added.status != 0 && added.errLines.count == 1 && added.err.contains("printed text before SFTP started"), "\(added)")
    #expect(!added.stderr.contains(0x1B), "\(added)")
  }

  // MARK: - Helpers

  /// `folio domain add box --sftp` for the server's files; the ssh config file it uses.
  func addLocation(_ server: PrivateSSHServer, _ s: Sandbox, bytesPerSecond: Int? = nil) throws -> String {
    let configFile = try #require(try server.configuration(name: "folio", bytesPerSecond: bytesPerSecond).configFile)
    let added = try s.folio("domain", "add", "box", "--sftp", "sftp-test", "--ssh-config", Arg(configFile), "--path", Arg(server.files))
    try #require(added.status == 0, "\(added)")
    return configFile
  }

  /// The location written straight into config.toml (`domain add` would refuse a talking server).
  func writeLocation(_ server: PrivateSSHServer, _ s: Sandbox) throws {
    let configFile = try #require(try server.configuration(name: "folio").configFile)
    try s.config(
      """
      [[domain]]
      name = "box"
      type = "sftp"
      host = "sftp-test"
      path = "\(server.files)"
      ssh_config = "\(configFile)"

      """)
  }

  struct Temporary: CustomStringConvertible {
    var name: String
    var inode: UInt64
    var size: Int64
    var description: String { "\(name) (\(size) bytes)" }
  }

  /// Folio's temporary upload files in a server folder (`.NAME.folio-X.part`).
  func temporaries(in folder: String) -> [Temporary] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.filter { $0.hasPrefix(".") && $0.contains(".folio-") }.compactMap { name in
      var st = stat()
      guard lstat(folder + "/" + name, &st) == 0 else { return nil }
      return Temporary(name: name, inode: UInt64(st.st_ino), size: Int64(st.st_size))
    }
  }

  /// Waits until a temporary file (not the inode `other`) holds at least `bytes`, while `process`
  /// runs; nil when the process ended first or the time ran out.
  func waitForTemporary(in folder: String, atLeast bytes: Int64, other: UInt64?, while process: BackgroundFolio) -> Temporary? {
    var found: Temporary?
    _ = eventually {
      found = temporaries(in: folder).first { $0.size >= bytes && $0.inode != other }
      return found != nil || !process.isRunning
    }
    return process.isRunning ? found : nil
  }

  /// The largest regular file below `folder` (a download in progress lands in the content store).
  func largestFile(under folder: String) -> Int? {
    guard let walker = FileManager.default.enumerator(atPath: folder) else { return nil }
    var largest: Int?
    for case let relative as String in walker {
      var st = stat()
      guard lstat(folder + "/" + relative, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
      largest = max(largest ?? 0, Int(st.st_size))
    }
    return largest
  }
}

/// `sha256sum` of a file (`quiet`: "" when it cannot be read, for polling).
func sha256(_ path: String, _ s: Sandbox, quiet: Bool = false) throws -> String {
  let run = try s.tool("sha256sum", Arg(path), package: "coreutils")
  if quiet && run.status != 0 { return "" }
  try #require(run.status == 0, "\(run)")
  return String(run.out.prefix(64))
}

/// Reproducible pseudo-random bytes (SplitMix64): incompressible, so ssh cannot shrink them.
func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
  var state = seed
  var out = [UInt8]()
  out.reserveCapacity(count + 8)
  while out.count < count {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    z ^= z >> 31
    withUnsafeBytes(of: z) { out.append(contentsOf: $0) }
  }
  return Array(out.prefix(count))
}
