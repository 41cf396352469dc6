import Foundation
import ProviderAPI
import SFTPClient
import SSHTestSupport
import SFTPProvider

#if canImport(Glibc)
  import Glibc
#endif

/// A private sshd and a provider whose remote folder is the server's `files` folder (the tests see
/// the same filesystem, so they change the "server side" with plain file calls).
struct ProviderFixture {
  let server: PrivateSSHServer
  let provider: SFTPProvider

  init() throws {
    server = try PrivateSSHServer()
    provider = SFTPProvider(
      domain: DomainIdentifier(unchecked: "sftp-test"), configuration: try server.configuration(),
      remotePath: server.files)
  }

  /// Another provider on the same server (an empty snapshot cache, its own session).
  func secondProvider() throws -> SFTPProvider {
    SFTPProvider(
      domain: DomainIdentifier(unchecked: "sftp-test"), configuration: try server.configuration(name: "second"),
      remotePath: server.files)
  }

  /// Stops the server: every session ends with it (each provider's ssh exits).
  func stop() { server.stop() }

  /// The local path of a domain path (bytes).
  func local(_ path: ItemPath) -> [UInt8] { Array(server.files.utf8) + path.bytes }

  func localString(_ path: ItemPath) -> String { String(decoding: local(path), as: UTF8.self) }

  func exists(_ path: ItemPath) -> Bool {
    var st = stat()
    return (local(path) + [0]).withUnsafeBufferPointer {
      $0.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &st) == 0 }
    }
  }

  func contents(_ path: ItemPath) throws -> [UInt8] {
    let fd = (local(path) + [0]).withUnsafeBufferPointer {
      $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY) }
    }
    guard fd >= 0 else { throw FixtureError("cannot read \(path)") }
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n <= 0 { break }
      out += buffer[0..<n]
    }
    return out
  }

  /// Sets a file's or folder's mtime (whole seconds, what SFTP v3 states).
  func setTime(_ path: ItemPath, _ seconds: Int) {
    var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
    _ = (local(path) + [0]).withUnsafeBufferPointer {
      $0.withMemoryRebound(to: CChar.self) { utimensat(AT_FDCWD, $0.baseAddress!, &times, AT_SYMLINK_NOFOLLOW) }
    }
  }

  /// A local file outside the served folder with these bytes.
  func scratchFile(_ name: String, _ bytes: [UInt8]) throws -> URL {
    let url = URL(fileURLWithPath: server.folder + "/scratch-" + name)
    try Data(bytes).write(to: url)
    return url
  }
}

func path(_ s: String) -> ItemPath { ItemPath(s) }
