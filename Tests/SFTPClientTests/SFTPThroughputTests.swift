import Foundation
import SFTPClient
import SSHTestSupport
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Not a test but a measurement, run by hand: `SFTP_BENCH_MIB=256 swift test --filter SFTPThroughput`.
/// Times SFTPClient's download and upload of one file against OpenSSH's `sftp -b` get/put on the
/// same private sshd, same cipher.
@Suite(.offThePool, .enabled(if: ProcessInfo.processInfo.environment["SFTP_BENCH_MIB"] != nil))
struct SFTPThroughputTests {
  @Test func downloadAndUploadAgainstOpenSSHsSftp() async throws {
    let mib = Int(ProcessInfo.processInfo.environment["SFTP_BENCH_MIB"] ?? "") ?? 256
    let server = try PrivateSSHServer()
    defer { server.stop() }
    var configuration = try server.configuration()
    configuration.options = ["Ciphers=aes128-gcm@openssh.com"]
    let source = server.files + "/big"
    try ChildProcess.run("/usr/bin/dd", ["if=/dev/urandom", "of=\(source)", "bs=1M", "count=\(mib)"])

    func seconds(_ work: () async throws -> Void) async rethrows -> Double {
      let start = DispatchTime.now().uptimeNanoseconds
      try await work()
      return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
    let client = try await SFTPClient.connect(configuration)
    defer { client.close() }
    let down = try await seconds { try await client.download(Array(source.utf8), to: server.folder + "/down") }
    let up = try await seconds {
      try await client.upload(from: server.folder + "/down", to: Array((server.files + "/up").utf8))
    }
    let batch = server.folder + "/batch"
    let sftpDown = try await seconds {
      try "get \(source) \(server.folder)/sftp-down\n".write(toFile: batch, atomically: true, encoding: .utf8)
      try ChildProcess.run("/usr/bin/sftp", ["-q", "-F", configuration.configFile!, "-c", "aes128-gcm@openssh.com", "-b", batch, "sftp-test"])
    }
    let sftpUp = try await seconds {
      try "put \(server.folder)/sftp-down \(server.files)/sftp-up\n".write(toFile: batch, atomically: true, encoding: .utf8)
      try ChildProcess.run("/usr/bin/sftp", ["-q", "-F", configuration.configFile!, "-c", "aes128-gcm@openssh.com", "-b", batch, "sftp-test"])
    }
    func rate(_ s: Double) -> String { String(format: "%.2f s (%.0f MiB/s)", s, Double(mib) / s) }
    print("SFTP throughput, \(mib) MiB: folio down \(rate(down)), sftp get \(rate(sftpDown)); folio up \(rate(up)), sftp put \(rate(sftpUp))")
  }
}
