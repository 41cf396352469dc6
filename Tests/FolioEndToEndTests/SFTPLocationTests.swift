import Foundation
import SFTPClient
import SSHTestSupport
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 10: an SSH host the user can reach becomes a Folio location in one command, and the
/// command line works on it like on any location — against a real private sshd on loopback.
@Suite(.offThePool) struct SFTPLocationTests {
  @Test func anSSHHostIsAddedListedReadWrittenTaggedAndSaidOfflineWhenItDies() throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let configFile = try #require(try server.configuration(name: "folio").configFile)
    try "hello\n".write(toFile: server.files + "/readme.txt", atomically: true, encoding: .utf8)
    try LocalBytes.create(LocalBytes.path(server.files, Array("evil\u{1B}[31m".utf8) + [0xFF] + Array(".txt".utf8)), contents: [0x78])
    let s = try Sandbox()

    let added = try s.folio("domain", "add", "box", "--sftp", "sftp-test", "--ssh-config", Arg(configFile), "--path", Arg(server.files))
    #expect(added.status == 0, "\(added)")
    #expect(added.out.contains("added 'box'"), "\(added)")
    let config = try String(contentsOfFile: s.configHome + "/folio/config.toml", encoding: .utf8)
    #expect(config.contains("type = \"sftp\"") && config.contains("host = \"sftp-test\""), "\(config)")

    let listed = try s.folio("ls", "box:/")
    #expect(listed.status == 0, "\(listed)")
    #expect(listed.out.contains("readme.txt") && listed.out.contains("evil\\e[31m\\xFF.txt"), "\(listed)")
    #expect(!listed.stdout.contains(0x1B), "no escape byte reaches the terminal")

    // A name that is not UTF-8 arrives byte for byte (it became U+FFFD through a URL).
    let hostile = Array("evil\u{1B}[31m".utf8) + [0xFF] + Array(".txt".utf8)
    let into = s.root + "/into"
    try FileManager.default.createDirectory(atPath: into, withIntermediateDirectories: true)
    let fetched = try s.folio("get", Arg(bytes: Array("box:/".utf8) + hostile), Arg(into))
    #expect(fetched.status == 0, "\(fetched)")
    var st = stat()
    let exact = (Array(into.utf8) + [0x2F] + hostile + [0]).withUnsafeBufferPointer {
      lstat(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), &st)
    }
    #expect(exact == 0, "the file has the exact bytes of its name")
    #expect(try FileManager.default.contentsOfDirectory(atPath: into).count == 1)

    let copy = s.root + "/got.txt"
    #expect(try s.folio("get", "box:/readme.txt", Arg(copy)).status == 0)
    #expect((try? String(contentsOfFile: copy, encoding: .utf8)) == "hello\n")

    try s.file("up.txt", "from folio\n")
    let put = try s.folio("put", "up.txt", "box:/")
    #expect(put.status == 0, "\(put)")
    #expect((try? String(contentsOfFile: server.files + "/up.txt", encoding: .utf8)) == "from folio\n")

    // The server keeps no tags: this computer does, and search finds them.
    #expect(try s.folio("tag", "box:/readme.txt", "--add", "Red").status == 0)
    #expect(try s.folio("search", "Red").out.contains("box:/readme.txt"))

    // A folder into itself: said plainly (the server only answers "Bad message").
    try FileManager.default.createDirectory(atPath: server.files + "/sub/inner", withIntermediateDirectories: true)
    let intoItself = try s.folio("mv", "box:/sub", "box:/sub/inner")
    #expect(intoItself.status != 0 && intoItself.err.contains("into itself"), "\(intoItself)")

    // No trash on an SSH host: rm says how to delete for good, and --permanently does.
    let refused = try s.folio("rm", "box:/up.txt")
    #expect(refused.status != 0 && refused.err.contains("--permanently"), "\(refused)")
    #expect(FileManager.default.fileExists(atPath: server.files + "/up.txt"))
    #expect(try s.folio("rm", "--permanently", "box:/up.txt").status == 0)
    #expect(!FileManager.default.fileExists(atPath: server.files + "/up.txt"))

    let domains = try s.folio("domain", "list")
    #expect(domains.out.contains("sftp") && domains.out.contains("online"), "\(domains)")

    server.stopListening()
    let offline = try s.folio("ls", "box:/")
    #expect(offline.status != 0 && offline.err.contains("cannot reach"), "\(offline)")
    #expect(try s.folio("domain", "list").out.contains("offline"))
  }

  /// The person typed `box:/locked`: the message names that, not the server's absolute path
  /// (which they never typed, and which can tell a stranger the account's home folder).
  @Test func aRefusalNamesThePathAsTheLocationShowsIt() throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let configFile = try #require(try server.configuration(identity: server.boundKey, name: "bound").configFile)
    try FileManager.default.createDirectory(atPath: server.files + "/locked", withIntermediateDirectories: true)
    try "s\n".write(toFile: server.files + "/locked/secret.txt", atomically: true, encoding: .utf8)
    #expect(chmod(server.files + "/locked", 0o000) == 0)
    defer { _ = chmod(server.files + "/locked", 0o755) }
    let s = try Sandbox()
    let added = try s.folio("domain", "add", "box", "--sftp", "sftp-test", "--ssh-config", Arg(configFile), "--path", Arg(server.files))
    #expect(added.status == 0, "\(added)")

    let attempts: [[Arg]] = [["ls", "box:/locked"], ["info", "box:/locked/secret.txt"]]
    for arguments in attempts {
      let refused = try s.folio(arguments)
      #expect(refused.status != 0, "\(refused)")
      #expect(refused.err.lowercased().contains("permission denied"), "\(refused)")
      #expect(refused.err.contains("box:/locked"), "the location's path: \(refused)")
      #expect(!refused.err.contains(server.files), "not the server's: \(refused)")
    }
  }

  @Test func anUnknownHostKeyIsNeverAcceptedWithoutAPerson() throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let empty = server.folder + "/empty_known_hosts"
    try "".write(toFile: empty, atomically: true, encoding: .utf8)
    let configFile = try #require(try server.configuration(knownHosts: empty, hostKeyChecking: "ask", name: "stranger").configFile)
    let s = try Sandbox()
    // No terminal to ask on (as in a script): refused, nothing saved, known_hosts untouched.
    let added = try s.folio("domain", "add", "box", "--sftp", "sftp-test", "--ssh-config", Arg(configFile))
    #expect(added.status != 0, "\(added)")
    #expect(added.err.lowercased().contains("host key"), "\(added)")
    let config = (try? String(contentsOfFile: s.configHome + "/folio/config.toml", encoding: .utf8)) ?? ""
    #expect(!config.contains("sftp"), "nothing saved: \(config)")
    #expect(try String(contentsOfFile: empty, encoding: .utf8).isEmpty)
  }

  /// `folio cp` and `folio mv` between this computer and an SSH host: files and folders go
  /// across (uploads sent and confirmed, as `folio put` sends them); a move removes a source only
  /// once its copy is safe, and keeps it while the server cannot be reached.
  @Test func cpAndMvCrossBetweenThisComputerAndAnSSHHost() throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let configFile = try #require(try server.configuration(name: "folio").configFile)
    let s = try Sandbox()
    #expect(try s.folio("domain", "add", "box", "--sftp", "sftp-test", "--ssh-config", Arg(configFile), "--path", Arg(server.files)).status == 0)
    try s.file("notes.txt", "local notes\n")
    try FileManager.default.createDirectory(atPath: s.work + "/Album/inner", withIntermediateDirectories: true)
    try "a".write(toFile: s.work + "/Album/a.jpg", atomically: true, encoding: .utf8)
    try "b".write(toFile: s.work + "/Album/inner/b.jpg", atomically: true, encoding: .utf8)

    let copied = try s.folio("cp", "notes.txt", "Album", "box:/")
    #expect(copied.status == 0, "\(copied)")
    #expect((try? String(contentsOfFile: server.files + "/notes.txt", encoding: .utf8)) == "local notes\n")
    #expect((try? String(contentsOfFile: server.files + "/Album/inner/b.jpg", encoding: .utf8)) == "b")
    #expect(FileManager.default.fileExists(atPath: s.work + "/notes.txt"), "a copy keeps its source")
    // Again: the taken name becomes "notes 2.txt", never a replacement.
    #expect(try s.folio("cp", "notes.txt", "box:/").status == 0)
    #expect((try? String(contentsOfFile: server.files + "/notes 2.txt", encoding: .utf8)) == "local notes\n")

    // A name that is not UTF-8 goes up byte for byte, as `folio put` takes it.
    let odd = Array("odd".utf8) + [0xFF] + Array(".txt".utf8)
    try s.file(bytes: odd, "odd bytes\n")
    let oddCopy = try s.folio("cp", Arg(bytes: odd), "box:/")
    #expect(oddCopy.status == 0, "\(oddCopy)")
    var st = stat()
    let there = (LocalBytes.path(server.files, odd) + [0]).withUnsafeBufferPointer {
      lstat(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), &st)
    }
    #expect(there == 0, "the server has the exact name")

    // Down: a remote file into a local folder.
    try FileManager.default.createDirectory(atPath: s.work + "/down", withIntermediateDirectories: true)
    try "remote\n".write(toFile: server.files + "/remote.txt", atomically: true, encoding: .utf8)
    let down = try s.folio("mv", "box:/remote.txt", "down")
    #expect(down.status == 0, "\(down)")
    // Said as a move into the named folder, never as a paste "here".
    #expect(down.out.contains("moved remote.txt to \(s.work)/down") && !down.out.contains("here"), "\(down)")
    #expect((try? String(contentsOfFile: s.work + "/down/remote.txt", encoding: .utf8)) == "remote\n")
    #expect(!FileManager.default.fileExists(atPath: server.files + "/remote.txt"), "moved: the server's copy is gone")

    // Up with mv: the local file goes once the server has it.
    try s.file("move me.txt", "moving\n")
    let up = try s.folio("mv", "move me.txt", "box:/")
    #expect(up.status == 0, "\(up)")
    #expect(up.out.contains("uploaded box:/move me.txt") && up.out.contains("moved move me.txt to box:/"), "\(up)")
    #expect((try? String(contentsOfFile: server.files + "/move me.txt", encoding: .utf8)) == "moving\n")
    #expect(!FileManager.default.fileExists(atPath: s.work + "/move me.txt"))

    // The server gone: a move keeps its source, and says the copy waits for `folio sync`.
    try s.file("keep.txt", "kept\n")
    server.stopListening()
    let held = try s.folio("mv", "keep.txt", "box:/")
    // Nothing lost and nothing to decide: 75, as put; and the move that became a copy says so.
    #expect(held.status == 75 && held.err.contains("folio sync"), "\(held)")
    #expect(held.err.contains("not moved yet: keep.txt stays where it was"), "\(held)")
    #expect(FileManager.default.fileExists(atPath: s.work + "/keep.txt"), "nothing is removed before its copy is safe")
  }

  @Test func domainLoginSavesThePassphraseSSHTookAndNothingItRefused() throws {
    let server = try PrivateSSHServer()
    defer { server.stop() }
    let configFile = try #require(try server.configuration(identity: server.passphraseKey, name: "folio").configFile)
    let s = try Sandbox()
    try FileManager.default.createDirectory(atPath: s.configHome + "/folio", withIntermediateDirectories: true)
    try """
    [[domain]]
    name = "box"
    type = "sftp"
    host = "sftp-test"
    ssh_config = "\(configFile)"

    """.write(toFile: s.configHome + "/folio/config.toml", atomically: true, encoding: .utf8)
    let credentials = s.configHome + "/folio/credentials"

    let wrong = try s.folio(["domain", "login", "box", "--password-stdin"], stdin: "not the passphrase\n")
    #expect(wrong.status != 0 && wrong.err.contains("sign-in refused"), "\(wrong)")
    #expect(!((try? String(contentsOfFile: credentials, encoding: .utf8)) ?? "").contains("box="), "nothing saved")

    let right = try s.folio(["domain", "login", "box", "--password-stdin"], stdin: PrivateSSHServer.keyPassphrase + "\n")
    #expect(right.status == 0 && right.out.contains("the key's passphrase is saved"), "\(right)")
    #expect(try String(contentsOfFile: credentials, encoding: .utf8).contains("box=\(PrivateSSHServer.keyPassphrase)"))

    // A command with no terminal to ask on (a script, cron) signs in with what was saved.
    let listed = try s.folio("ls", "box:/")
    #expect(listed.status == 0, "\(listed)")
  }
}
