import Foundation
import ProviderAPI
import TestExecution
import TestSupport
import Testing
import WorkingSetIndex

#if canImport(Glibc)
  import Glibc
#endif

extension Sandbox {
  /// Runs the built `folio` with `stdin` as its standard input (`--password-stdin`).
  func folio(_ arguments: [String], stdin: String) throws -> RunResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: try FolioRunner.binary())
    p.arguments = arguments
    p.environment = environment
    p.currentDirectoryURL = URL(fileURLWithPath: work)
    let input = Pipe()
    let out = Pipe()
    let err = Pipe()
    p.standardInput = input
    p.standardOutput = out
    p.standardError = err
    try p.run()
    input.fileHandleForWriting.write(Data(stdin.utf8))
    try input.fileHandleForWriting.close()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return RunResult(
      arguments: arguments.map { Arg($0) }, status: p.terminationReason == .exit ? p.terminationStatus : nil,
      signal: p.terminationReason == .uncaughtSignal ? p.terminationStatus : nil, timedOut: false,
      stdout: Array(o), stderr: Array(e))
  }

  var configFile: String { configHome + "/folio/config.toml" }
  var credentialsFile: String { configHome + "/folio/credentials" }

  func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

  /// Adds the location `work` for ana on `server`.
  func addWork(_ server: ServerProcess, password: String = "ana-password") throws -> RunResult {
    try folio(
      ["domain", "add", "work", "--server", server.baseURL.absoluteString, "--user", "ana", "--password-stdin"],
      stdin: password + "\n")
  }
}

/// `folio domain add/list/login/remove` and every item command on `work:/…` against a real
/// `folio serve` on loopback.
@Suite("folio domain", .serialized, .offThePool)
struct DomainCommandTests {
  @Test func addListUseAndRemoveALocation() async throws {
    let server = try await ServerProcess()
    let s = try Sandbox()
    try FileManager.default.createDirectory(atPath: s.configHome + "/folio", withIntermediateDirectories: true)
    try "theme = \"light\" # mine\n".write(toFile: s.configFile, atomically: false, encoding: .utf8)
    let added = try s.addWork(server)
    #expect(added.status == 0, "\(added.err)")
    #expect(added.out.contains("added 'work'"))
    #expect(s.read(s.configFile).hasPrefix("theme = \"light\" # mine\n"))
    #expect(s.read(s.configFile).contains("[[domain]]\nname = \"work\"\ntype = \"folio\"\nserver = \"\(server.baseURL.absoluteString)\"\nuser = \"ana\"\n"))
    #expect(s.read(s.credentialsFile).contains("\nwork=ana-password\n"))
    var st = stat()
    stat(s.credentialsFile, &st)
    #expect(st.st_mode & 0o777 == 0o600)

    let list = try s.folio("domain", "list", "--json").json()
    let work = try #require(list.array?.first { $0["name"] == .string("work") })
    #expect(work["state"] == .string("online") && work["type"] == .string("folio") && work["user"] == .string("ana"))
    #expect(try s.folio("domain", "list").out.contains("online"))

    // Every item command on work:/…
    #expect(try s.folio("mkdir", "work:/Docs").status == 0)
    #expect(try s.folio("mkdir", "-p", "work:/Docs/Old/Deep").status == 0)
    #expect(try s.folio("mkdir", "work:/Archive").status == 0)
    let ls = try s.folio("ls", "work:/")
    #expect(ls.status == 0 && ls.outLines.count == 2 && ls.out.contains("Archive") && ls.out.contains("Docs"), "\(ls)")
    let json = try s.folio("ls", "--json", "work:/Docs").json()
    #expect(json.array?.first?["name"] == .string("Old") && json.array?.first?["location"] == .string("work"))
    #expect(try s.folio("rename", "work:/Docs/Old", "Older").status == 0)
    #expect(try s.folio("mv", "work:/Docs/Older", "work:/Archive").status == 0)
    #expect(try s.folio("ls", "work:/Archive").out.contains("Older"))
    let info = try s.folio("info", "--json", "work:/Archive/Older").json()
    #expect(info["path"] == .string("/Archive/Older") && info["kind"] == .string("folder"))
    #expect(try s.folio("tag", "work:/Archive/Older", "--add", "Blue").status == 0)
    #expect(try s.folio("tag", "work:/Archive/Older").outLines == ["Blue"])
    #expect(try s.folio("favorite", "work:/Archive").status == 0)
    #expect(try s.folio("search", "older").out.contains("work:/Archive/Older"))
    #expect(try s.folio("rm", "work:/Archive/Older").status == 0)
    let trash = try s.folio("trash", "--location", "work")
    #expect(trash.status == 0 && trash.out.contains("/Archive/Older"), "\(trash)")
    #expect(try s.folio("trash", "restore", "work:/Archive/Older").status == 0)
    #expect(try s.folio("ls", "work:/Archive").out.contains("Older"))
    let actions = try s.folio("actions", "work:/Archive")
    #expect(actions.status == 0, "\(actions)")

    let removed = try s.folio("domain", "remove", "work")
    #expect(removed.status == 0 && removed.out.contains("removed 'work'"), "\(removed)")
    #expect(s.read(s.configFile) == "theme = \"light\" # mine\n")
    #expect(!s.read(s.credentialsFile).contains("work="))
    let gone = try s.folio("ls", "work:/")
    #expect(gone.status == 1 && gone.err.contains("no location named 'work'"), "\(gone)")
  }

  /// A server on https with a self-signed certificate: refused with the way to trust it, then
  /// added with --ca-file (saved as tls_ca), and used: put, ls, get with the bytes checked.
  @Test func aServerWithItsOwnCertificateIsAddedWithCAFile() async throws {
    let server = try await ServerProcess(tls: true)
    let cert = try #require(server.certificate)
    let s = try Sandbox()
    let refused = try s.addWork(server)
    #expect(refused.status == 1 && refused.err.contains("TLS") && refused.err.contains("--ca-file"), "\(refused)")
    #expect(!FileManager.default.fileExists(atPath: s.configFile))
    let missing = try s.folio(
      ["domain", "add", "work", "--server", server.baseURL.absoluteString, "--user", "ana", "--password-stdin",
       "--ca-file", "/nonexistent/ca.pem"], stdin: "ana-password\n")
    #expect(missing.status == 3 && missing.err.contains("cannot be read"), "\(missing)")
    let added = try s.folio(
      ["domain", "add", "work", "--server", server.baseURL.absoluteString, "--user", "ana", "--password-stdin",
       "--ca-file", cert.path], stdin: "ana-password\n")
    #expect(added.status == 0, "\(added.err)")
    #expect(s.read(s.configFile).contains("tls_ca = \"\(cert.path)\""), "\(s.read(s.configFile))")
    let data = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    let source = s.home + "/report.bin"
    try data.write(to: URL(fileURLWithPath: source))
    let put = try s.folio("put", Arg(source), "work:/")
    #expect(put.status == 0 && put.out.contains("uploaded /report.bin"), "\(put)")
    #expect(try s.folio("ls", "work:/").out.contains("report.bin"))
    let back = s.home + "/back.bin"
    let get = try s.folio("get", "work:/report.bin", Arg(back))
    #expect(get.status == 0, "\(get)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: back)) == data)

    // The certificate file goes missing: that location says so; the others (here, this computer)
    // keep working.
    let moved = cert.path + ".moved"
    try FileManager.default.moveItem(atPath: cert.path, toPath: moved)
    defer { try? FileManager.default.moveItem(atPath: moved, toPath: cert.path) }
    let remote = try s.folio("ls", "work:/")
    #expect(remote.status == 3 && remote.err.contains("(tls_ca) cannot be read"), "\(remote)")
    #expect(try s.folio("ls", Arg(s.home)).status == 0)
    // --ca-file with a plain http server would protect nothing: refused.
    let plain = try await ServerProcess()
    let http = try s.folio(
      ["domain", "add", "plain", "--server", plain.baseURL.absoluteString, "--user", "ana", "--password-stdin",
       "--ca-file", moved], stdin: "ana-password\n")
    #expect(http.status == 1 && http.err.contains("--ca-file is for https servers"), "\(http)")
  }

  @Test func aWrongPasswordSavesNothing() async throws {
    let server = try await ServerProcess()
    let s = try Sandbox()
    let r = try s.addWork(server, password: "wrong")
    #expect(r.status == 1 && r.errLines.count == 1 && r.err.contains("wrong user name or password"), "\(r)")
    #expect(!FileManager.default.fileExists(atPath: s.configFile))
    #expect(!FileManager.default.fileExists(atPath: s.credentialsFile))
    // No terminal and no --password-stdin: it says how to give one.
    let noTTY = try s.folio("domain", "add", "work", "--server", Arg(server.baseURL.absoluteString), "--user", "ana")
    #expect(noTTY.status == 1 && noTTY.err.contains("--password-stdin"), "\(noTTY)")
  }

  @Test func aServerWithoutSchemeOnThisMachineIsHTTP() async throws {
    let server = try await ServerProcess()
    let s = try Sandbox()
    let r = try s.folio(
      ["domain", "add", "here", "--server", "127.0.0.1:\(server.port)", "--user", "ana", "--password-stdin"],
      stdin: "ana-password\n")
    #expect(r.status == 0, "\(r)")
    #expect(s.read(s.configFile).contains("server = \"http://127.0.0.1:\(server.port)\""))
    let bad = try s.folio(["domain", "add", "x", "--server", "ftp://h", "--user", "ana", "--password-stdin"], stdin: "p\n")
    #expect(bad.status == 3 && bad.err.contains("not a server address"), "\(bad)")
    let taken = try s.folio(
      ["domain", "add", "here", "--server", "127.0.0.1:\(server.port)", "--user", "ana", "--password-stdin"],
      stdin: "ana-password\n")
    #expect(taken.status == 1 && taken.err.contains("already exists"), "\(taken)")
  }

  @Test func aChangedPasswordAsksToSignInAndLoginFixesIt() async throws {
    let server = try await ServerProcess()
    let s = try Sandbox()
    #expect(try s.addWork(server).status == 0)
    try server.admin(["user", "passwd", "ana", "--password-stdin"], stdin: "new-password\n")
    let ls = try s.folio("ls", "work:/")
    #expect(ls.status == 1 && ls.errLines.count == 1, "\(ls)")
    #expect(ls.err.contains("folio domain login work"), "\(ls)")
    let list = try s.folio("domain", "list", "--json").json()
    #expect(list.array?.first { $0["name"] == .string("work") }?["state"] == .string("needs sign-in"))
    let login = try s.folio(["domain", "login", "work", "--password-stdin"], stdin: "new-password\n")
    #expect(login.status == 0, "\(login)")
    #expect(try s.folio("ls", "work:/").status == 0)
    #expect(s.read(s.credentialsFile).contains("work=new-password\n"))
  }

  @Test func anUnreachableServerIsOffline() async throws {
    let server = try await ServerProcess()
    let s = try Sandbox()
    #expect(try s.addWork(server).status == 0)
    server.stop()
    let list = try s.folio("domain", "list", "--json").json()
    #expect(list.array?.first { $0["name"] == .string("work") }?["state"] == .string("offline"))
    let ls = try s.folio("ls", "work:/")
    #expect(ls.status == 1 && ls.errLines.count == 1 && ls.err.contains("cannot reach"), "\(ls)")
  }

  @Test func credentialsOthersCanReadAreRefused() async throws {
    let server = try await ServerProcess()
    let s = try Sandbox()
    #expect(try s.addWork(server).status == 0)
    chmod(s.credentialsFile, 0o644)
    let ls = try s.folio("ls", "work:/")
    #expect(ls.status == 3 && ls.err.contains("chmod 600"), "\(ls)")
    // Local work goes on: the file is read only when a sign-in needs it.
    #expect(try s.folio("ls", ".").status == 0)
  }

  @Test func aPasswordCommandSignsIn() async throws {
    let server = try await ServerProcess()
    let s = try Sandbox()
    let secret = s.root + "/secret"
    try "ana-password\nsecond line\n".write(toFile: secret, atomically: false, encoding: .utf8)
    try FileManager.default.createDirectory(atPath: s.configHome + "/folio", withIntermediateDirectories: true)
    try """
      [[domain]]
      name = "work"
      type = "folio"
      server = "\(server.baseURL.absoluteString)"
      user = "ana"
      password_command = ["cat", "\(secret)"]
      """.write(toFile: s.configFile, atomically: false, encoding: .utf8)
    #expect(try s.folio("mkdir", "work:/FromCommand").status == 0)
    #expect(try s.folio("ls", "work:/").out.contains("FromCommand"))
    try """
      [[domain]]
      name = "work"
      type = "folio"
      server = "\(server.baseURL.absoluteString)"
      user = "ana"
      password_command = ["false"]
      """.write(toFile: s.configFile, atomically: false, encoding: .utf8)
    let failed = try s.folio("ls", "work:/")
    #expect(failed.status == 1 && failed.err.contains("password_command") && failed.err.contains("exit status 1"), "\(failed)")
  }

  @Test func removeRefusesWhileUploadsArePendingUnlessToldWhatToKeep() async throws {
    let server = try await ServerProcess()
    let s = try Sandbox()
    #expect(try s.addWork(server).status == 0)
    let staged = s.root + "/staged-report"
    try "my unsent edits".write(toFile: staged, atomically: false, encoding: .utf8)
    let index = try WorkingSetIndex.open(at: URL(fileURLWithPath: s.dataHome + "/folio/index.sqlite"))
    try index.enqueueTransfer(
      .upload, domain: DomainIdentifier("work"), identifier: ItemIdentifier("pending-1"), stagedPath: ItemPath(staged),
      parent: .root, name: ItemName("report.txt"))
    try index.close()

    let refused = try s.folio("domain", "remove", "work")
    #expect(refused.status == 1 && refused.err.contains("not uploaded yet") && refused.err.contains("--keep-unsynced"), "\(refused)")
    #expect(s.read(s.configFile).contains("name = \"work\""))
    #expect(try s.folio("domain", "list").out.contains("syncing 1"))

    let kept = try s.folio("domain", "remove", "work", "--keep-unsynced")
    #expect(kept.status == 0, "\(kept)")
    let line = try #require(kept.outLines.first { $0.hasPrefix("kept 1 unsynced file(s) in ") })
    let folder = String(line.dropFirst("kept 1 unsynced file(s) in ".count))
    #expect(folder.hasPrefix(s.dataHome + "/folio/preserved/work-"))
    #expect(s.read(folder + "/unsynced/report.txt") == "my unsent edits")
    #expect(!s.read(s.configFile).contains("name = \"work\""))
    #expect(!s.read(s.credentialsFile).contains("work="))
  }
}

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Puts a file on the server over plain HTTP (docs/PROTOCOL.md), as another client would: the
/// command line has no upload command of its own yet.
func uploadOverHTTP(_ server: ServerProcess, name: String, bytes: String, sha256: String) async throws {
  var login = URLRequest(url: server.baseURL.appendingPathComponent("v1/login"))
  login.httpMethod = "POST"
  login.setValue("application/json", forHTTPHeaderField: "Content-Type")
  login.httpBody = Data(#"{"user":"ana","password":"ana-password"}"#.utf8)
  let (data, _) = try await URLSession.shared.data(for: login)
  let token = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["token"] as? String)
  var components = URLComponents(url: server.baseURL.appendingPathComponent("v1/uploads"), resolvingAgainstBaseURL: false)!
  components.queryItems = [URLQueryItem(name: "parent", value: "root"), URLQueryItem(name: "name", value: name)]
  var upload = URLRequest(url: components.url!)
  upload.httpMethod = "POST"
  upload.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
  upload.setValue(sha256, forHTTPHeaderField: "X-Folio-SHA256")
  upload.httpBody = Data(bytes.utf8)
  let (_, response) = try await URLSession.shared.data(for: upload)
  #expect((response as? HTTPURLResponse)?.statusCode == 201)
}

@Suite("folio action on a server location", .serialized, .offThePool)
struct DomainActionTests {
  @Test func serverDeclaredActionsAreListedAndRun() async throws {
    let server = try await ServerProcess()
    let s = try Sandbox()
    #expect(try s.addWork(server).status == 0)
    try await uploadOverHTTP(
      server, name: "plan.txt", bytes: "the plan\n",
      sha256: "2d619c7869a25a069e8d9fe28202d200c8bef01cba077934e702217e8a678b59")
    let before = try s.folio("actions", "--json", "work:/plan.txt").json()
    #expect(before.array?.map { $0["name"] } == [.string("Lock")], "\(before)")
    #expect(before.array?.first?["source"] == .string("work"))
    let run = try s.folio("action", "Lock", "work:/plan.txt")
    #expect(run.status == 0, "\(run)")
    let info = try s.folio("info", "--json", "work:/plan.txt").json()
    #expect(info["userInfo"]?["locked"] == .string("true") && info["userInfo"]?["lockedBy"] == .string("ana"))
    #expect(info["decorations"]?.array?.contains(.string("locked")) == true)
    let after = try s.folio("actions", "work:/plan.txt")
    #expect(after.outLines == ["Unlock  (unlock)"], "\(after)")
    let folder = try s.folio("action", "Lock", "work:/")
    #expect(folder.status == 1, "\(folder)")
  }

  /// A server item's path is not a local file: programs from config never get it as one.
  @Test func localProgramsAreNotRunOnServerPaths() async throws {
    let server = try await ServerProcess()
    let s = try Sandbox()
    #expect(try s.addWork(server).status == 0)
    try await uploadOverHTTP(
      server, name: "plan.txt", bytes: "the plan\n",
      sha256: "2d619c7869a25a069e8d9fe28202d200c8bef01cba077934e702217e8a678b59")
    let config = s.read(s.configFile)
    try ("[[action]]\nname = \"Check\"\nrule = \"TRUEPREDICATE\"\ncommand = [\"true\", \"{path}\"]\n\n" + config)
      .write(toFile: s.configFile, atomically: false, encoding: .utf8)
    let action = try s.folio("action", "Check", "work:/plan.txt")
    #expect(action.status == 1 && action.err.contains("server location"), "\(action)")
    // `folio open` downloads first and gives the opener the local copy.
    let open = try s.folio("open", "work:/plan.txt", environment: ["EDITOR": "/bin/cat"])
    #expect(open.status == 0 && open.out == "the plan\n", "\(open)")
  }
}
