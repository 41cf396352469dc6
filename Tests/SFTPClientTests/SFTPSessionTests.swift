import Crypto
import Foundation
import SFTPClient
import SSHTestSupport
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// SFTPClient against a real OpenSSH server on loopback: listing, metadata requests, transfers.
@Suite(.offThePool)
struct SFTPSessionTests {
  @Test func listsAFolderOfThousandsWithHostileNamesAsBytes() async throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let folder = server.files + "/many"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let hostile: [[UInt8]] = [
      Array("with space".utf8), Array("new\nline".utf8), Array("tab\there".utf8), [0x65, 0x1B, 0x5B, 0x32, 0x4A],
      [0x62, 0x61, 0x64, 0xFF, 0xFE], Array("caf\u{E9}".utf8), Array("cafe\u{301}".utf8), Array("-rf".utf8),
      Array(" leading".utf8), Array("\u{202E}gpj.exe".utf8),
    ]
    var expected = Set(hostile)
    for name in hostile { try LocalBytes.create(LocalBytes.path(folder, name)) }
    for n in 0..<3000 {
      let name = Array("file \(n)".utf8)
      try LocalBytes.create(LocalBytes.path(folder, name))
      expected.insert(name)
    }

    let client = try await SFTPClient.connect(try server.configuration())
    defer { client.close() }
    var batches = 0
    let entries = try await client.listDirectory(Array(folder.utf8)) { _ in batches += 1 }
    #expect(Set(entries.map(\.name)) == expected)
    #expect(entries.count == expected.count)
    #expect(batches > 1)
    let bad = try #require(entries.first { $0.name == [0x62, 0x61, 0x64, 0xFF, 0xFE] })
    #expect(bad.attributes.fileType == .regular)
    #expect(bad.attributes.size == 0)
    let attributes = try await client.stat(LocalBytes.path(folder, Array("new\nline".utf8)))
    #expect(attributes.fileType == .regular)
  }

  @Test func makesRenamesLinksAndRemoves() async throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let client = try await SFTPClient.connect(try server.configuration())
    defer { client.close() }
    let base = Array(server.files.utf8)
    func path(_ name: String) -> [UInt8] { base + Array("/\(name)".utf8) }

    for name in ["posix-rename@openssh.com", "fsync@openssh.com", "statvfs@openssh.com", "hardlink@openssh.com",
      "limits@openssh.com"]
    {
      #expect(client.offers(name), "\(name)")
    }
    #expect(client.readLength > 32768)

    try await client.makeDirectory(path("folder"))
    #expect(try await client.stat(path("folder")).fileType == .directory)
    let again = await #expect(throws: SFTPError.self) { try await client.makeDirectory(path("folder")) }
    #expect(again?.code == .failure)

    try await client.upload(from: try localFile(server, "a", Array("alpha".utf8)), to: path("folder/a"))
    try await client.upload(from: try localFile(server, "b", Array("beta".utf8)), to: path("folder/b"))
    let clobber = await #expect(throws: SFTPError.self) { try await client.rename(path("folder/a"), to: path("folder/b")) }
    #expect(clobber?.code == .failure)
    try await client.rename(path("folder/a"), to: path("folder/c"))
    let missing = await #expect(throws: SFTPError.self) { try await client.stat(path("folder/a")) }
    #expect(missing?.code == .noSuchFile)
    #expect(missing?.message.contains("folder/a") == true)

    try await client.symlink(path("folder/link"), pointingTo: Array("c".utf8))
    #expect(try await client.readLink(path("folder/link")) == Array("c".utf8))
    #expect(try await client.lstat(path("folder/link")).fileType == .symbolicLink)
    #expect(try await client.stat(path("folder/link")).size == 5)
    try await client.hardLink(path("folder/c"), as: path("folder/hard"))
    try await client.posixRename(path("folder/b"), to: path("folder/c"))
    #expect(try await client.stat(path("folder/c")).size == 4)

    let notEmpty = await #expect(throws: SFTPError.self) { try await client.removeDirectory(path("folder")) }
    #expect(notEmpty?.code == .failure)
    for name in ["link", "c", "hard"] { try await client.remove(path("folder/\(name)")) }
    try await client.removeDirectory(path("folder"))
    #expect(try await client.listDirectory(base).isEmpty)

    #expect(try await client.realPath(base + Array("/../files/.".utf8)) == base)
    let home = try await client.homeDirectory()
    #expect(home.first == UInt8(ascii: "/"))
    let space = try await client.fileSystemStats(base)
    #expect(space.availableBytes > 0)
  }

  @Test func pipelinedRoundTripKeepsEveryByte() async throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let client = try await SFTPClient.connect(try server.configuration())
    defer { client.close() }
    var generator = SystemRandomNumberGenerator()
    let size = 9 * 1024 * 1024 + 12345  // not a multiple of the request size
    let bytes = (0..<size / 8 + 1).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
    let original = Array(bytes.prefix(size))
    let source = try localFile(server, "source", original)
    let remote = Array((server.files + "/copy").utf8)

    let uploaded = ProgressLog()
    #expect(try await client.upload(from: source, to: remote, progress: uploaded.record) == UInt64(size))
    #expect(uploaded.last == UInt64(size))
    let target = server.folder + "/downloaded"
    let downloaded = ProgressLog()
    let attributes = try await client.download(remote, to: target, progress: downloaded.record)
    #expect(attributes.size == UInt64(size))
    #expect(downloaded.last == UInt64(size))
    let back = try [UInt8](Data(contentsOf: URL(fileURLWithPath: target)))
    #expect(back.count == size)
    #expect(SHA256.hash(data: back) == SHA256.hash(data: original))

    // An empty file and a file of exactly one request.
    for length in [0, client.readLength] {
      let name = server.folder + "/exact\(length)"
      try await client.upload(from: try localFile(server, "e\(length)", Array(original.prefix(length))), to: remote)
      try await client.download(remote, to: name)
      #expect(try Data(contentsOf: URL(fileURLWithPath: name)) == Data(original.prefix(length)))
    }
  }

  @Test func safeReplaceSwapsAtomicallyAndRefusesAChangedTarget() async throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let client = try await SFTPClient.connect(try server.configuration())
    defer { client.close() }
    let target = Array((server.files + "/notes.txt").utf8)

    // Created where nothing was.
    let first = try await client.replace(target, from: try localFile(server, "v1", Array("one".utf8)), expecting: nil)
    #expect(first.size == 3)
    try await client.setAttributes(target, SFTPAttributes(permissions: 0o751))
    let base = try #require(try await client.stat(target).version)

    // Replaced when the target is still the base; permission bits kept.
    let second = try await client.replace(target, from: try localFile(server, "v2", Array("two!".utf8)), expecting: base)
    #expect(second.size == 4)
    #expect(second.permissions.map { $0 & 0o7777 } == 0o751)
    #expect(try String(contentsOfFile: server.files + "/notes.txt", encoding: .utf8) == "two!")

    // Someone else writes: a replace against the old base is a conflict and changes nothing.
    try "someone else's edit".write(toFile: server.files + "/notes.txt", atomically: false, encoding: .utf8)
    let conflict = await #expect(throws: SFTPError.self) {
      try await client.replace(target, from: try localFile(server, "v3", Array("three".utf8)), expecting: second.version)
    }
    #expect(conflict?.code == .conflict)
    #expect(try String(contentsOfFile: server.files + "/notes.txt", encoding: .utf8) == "someone else's edit")
    // A create where a file appeared meanwhile is a conflict too.
    let appeared = await #expect(throws: SFTPError.self) {
      try await client.replace(target, from: try localFile(server, "v4", Array("four".utf8)), expecting: nil)
    }
    #expect(appeared?.code == .conflict)
    // No temporary file is left behind.
    #expect(try FileManager.default.contentsOfDirectory(atPath: server.files) == ["notes.txt"])
  }

  private func localFile(_ server: PrivateSSHServer, _ name: String, _ bytes: [UInt8]) throws -> String {
    let path = server.folder + "/local-" + name
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }
}

/// The last progress value seen (progress is reported from several tasks).
final class ProgressLog: @unchecked Sendable {
  private let lock = NSLock()
  private var value: UInt64 = 0
  var last: UInt64 {
    lock.lock()
    defer { lock.unlock() }
    return value
  }
  var record: SFTPProgress {
    { done, _ in
      self.lock.lock()
      self.value = max(self.value, done)
      self.lock.unlock()
    }
  }
}
