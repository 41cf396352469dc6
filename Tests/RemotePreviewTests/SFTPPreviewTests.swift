import Foundation
import ProviderAPI
import ProviderCore
import SFTPProvider
import SSHTestSupport
import TestExecution
import Testing

/// A preview of a file on a private sshd that is not downloaded here: the server's sftp-server
/// logs what it read of each file it closed, its own count.
@Suite(.offThePool)
struct SFTPPreviewTests {
  static let domain = DomainIdentifier(unchecked: "sftp-test")

  /// Issue 12: one open of the file, 64 KiB read by the server (`bytes read 65536`), the head
  /// exact, the item still not downloaded.
  @Test func aFileNotDownloadedIsPreviewedFromOneRangedRead() async throws {
    let server = try PrivateSSHServer(logsTransfers: true)
    defer { server.stop() }
    let side = try PreviewSide()
    let data = randomBytes(1 << 20, seed: 47)
    let file = server.files + "/big.bin"
    try Data(data).write(to: URL(fileURLWithPath: file))
    let provider = SFTPProvider(domain: Self.domain, configuration: try server.configuration(), remotePath: server.files)
    let item = try await provider.item(at: ItemPath("/big.bin"))
    let domain = side.domain(provider, Self.domain)

    let head = try await side.head(of: item, in: domain)

    try side.expectRemoteHead(head, of: data, item: item, in: domain)
    let closed = "close \"\(file)\" bytes read"
    let log = try await eventually("sftp-server logged the file's close") {
      let log = server.sftpLog
      return log.contains(closed) ? log : nil
    }
    // OpenSSH ends a line it logs to stderr with "\r\n", one Character in Swift.
    let lines = log.split(whereSeparator: \.isNewline)
    #expect(lines.filter { $0.hasPrefix("open \"\(file)\"") }.count == 1, "\(log)")
    #expect(lines.filter { $0.hasPrefix(closed) } == ["\(closed) 65536 written 0"], "\(log)")
    await provider.close()
  }
}
