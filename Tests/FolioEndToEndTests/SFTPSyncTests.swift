import Foundation
import SFTPClient
import SSHTestSupport
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `folio sync` on a location with no change feed (an SSH host): each run is a new process that
/// lists each folder once, so what a listing lacked once is kept in the index. A file deleted on
/// the server goes after two runs, never after one; a file renamed there keeps its tag.
@Suite(.offThePool) struct SFTPSyncTests {
  @Test func aFileDeletedOnTheServerLeavesAfterTheSecondSyncAndARenamedOneKeepsItsTag() throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let configFile = try #require(try server.configuration(name: "folio").configFile)
    // Sizes differ: a vanished file is paired only with a new file of its size and mtime.
    try "this one goes away\n".write(toFile: server.files + "/gone.txt", atomically: true, encoding: .utf8)
    try "the report\n".write(toFile: server.files + "/report.txt", atomically: true, encoding: .utf8)
    try "stays\n".write(toFile: server.files + "/kept.txt", atomically: true, encoding: .utf8)
    let s = try Sandbox()
    let added = try s.folio("domain", "add", "box", "--sftp", "sftp-test", "--ssh-config", Arg(configFile), "--path", Arg(server.files))
    #expect(added.status == 0, "\(added)")
    #expect(try s.folio("tag", "box:/gone.txt", "--add", "Red").status == 0)
    #expect(try s.folio("tag", "box:/report.txt", "--add", "Blue").status == 0)
    #expect(try s.folio("tag", "box:/kept.txt", "--add", "Green").status == 0)
    #expect(try s.folio("search", "Red").out.contains("box:/gone.txt"))

    try FileManager.default.removeItem(atPath: server.files + "/gone.txt")
    // rename(2): the same size and modification time under another name.
    #expect(rename(server.files + "/report.txt", server.files + "/final.txt") == 0)

    let first = try s.folio("sync")
    #expect(first.status == 0, "\(first)")
    let afterOne = try s.folio("search", "Red")
    #expect(afterOne.out.contains("box:/gone.txt"), "one listing never deletes: \(afterOne)")
    #expect(try s.folio("search", "Blue").out.contains("box:/report.txt"))

    let second = try s.folio("sync")
    #expect(second.status == 0, "\(second)")
    let afterTwo = try s.folio("search", "Red")
    #expect(!afterTwo.out.contains("gone.txt"), "two listings that lack it delete it: \(afterTwo)")
    let renamed = try s.folio("search", "Blue")
    #expect(renamed.out.contains("box:/final.txt") && !renamed.out.contains("report.txt"), "the tag follows the rename: \(renamed)")
    #expect(try s.folio("search", "Green").out.contains("box:/kept.txt"))
  }
}
