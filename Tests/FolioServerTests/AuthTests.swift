import FolioProtocol
import Foundation
import TestSupport
import Testing

/// Sign-in, tokens, revocation, expiry, and the admin command against a running server.
@Suite struct AuthTests {
  @Test func loginGivesATokenThatWorksAndEveryAnswerSaysFolioServer() async throws {
    let server = try await ServerProcess()
    let anonymous = TestClient(server)
    let login = try await anonymous.send("POST", "/v1/login", json: LoginRequest(user: "ana", password: "ana-password"))
    #expect(login.status == 200)
    #expect(login.header("X-Folio-Server") == "1")
    let body = try login.decode(LoginResponse.self)
    #expect(body.user == "ana")
    #expect(body.expires > Date().timeIntervalSince1970 + 29 * 24 * 3600)
    let ana = try await anonymous.signIn("ana", "ana-password")
    let account = try await ana.expect(AccountResponse.self, 200, "GET", "/v1/account")
    #expect(account.user == "ana")
    #expect(account.quotaBytes == nil)
    // The token is stored hashed: its text is nowhere in the database.
    let db = try Data(contentsOf: server.root.appendingPathComponent("server.sqlite"))
    let wal = (try? Data(contentsOf: server.root.appendingPathComponent("server.sqlite-wal"))) ?? Data()
    #expect(db.firstRange(of: Data(body.token.utf8)) == nil)
    #expect(wal.firstRange(of: Data(body.token.utf8)) == nil)
    // Nor in the log.
    #expect(!server.log.contains(body.token))
    #expect(!server.log.contains("ana-password"))
  }

  @Test func wrongPasswordAndUnknownUserGetTheSameAnswer() async throws {
    let server = try await ServerProcess()
    let anonymous = TestClient(server)
    let wrong = try await anonymous.send("POST", "/v1/login", json: LoginRequest(user: "ana", password: "nope"))
    let unknown = try await anonymous.send("POST", "/v1/login", json: LoginRequest(user: "zed", password: "nope"))
    #expect(wrong.status == 401)
    #expect(unknown.status == 401)
    #expect(wrong.errorCode == "notAuthenticated")
    #expect(wrong.body == unknown.body)
    #expect(wrong.header("X-Folio-Server") == "1")
  }

  @Test func requestsWithoutAValidTokenAreRefused() async throws {
    let server = try await ServerProcess()
    var client = TestClient(server)
    for token in [nil, "", "garbage", String(repeating: "A", count: 43), String(repeating: "x", count: 5000)] {
      client.token = token
      let a = try await client.send("GET", "/v1/items/root")
      #expect(a.status == 401, "token \(String(describing: token?.prefix(10)))")
      #expect(a.errorCode == "notAuthenticated")
    }
  }

  @Test func logoutAndAdminRevokeEndTokens() async throws {
    let server = try await ServerProcess(users: ["ana": "ana-password", "ben": "ben-password"])
    let ana1 = try await TestClient.signedIn(server, "ana")
    let ana2 = try await TestClient.signedIn(server, "ana")
    let ben = try await TestClient.signedIn(server, "ben")
    #expect(try await ana1.send("POST", "/v1/logout").status == 204)
    #expect(try await ana1.send("GET", "/v1/items/root").status == 401)
    #expect(try await ana2.send("GET", "/v1/items/root").status == 200)
    // The admin command works while the server runs, and the next request sees it.
    let out = try server.admin(["token", "revoke", "ana"])
    #expect(out.contains("revoked 1 token"))
    #expect(try await ana2.send("GET", "/v1/items/root").status == 401)
    #expect(try await ben.send("GET", "/v1/items/root").status == 200)
    // A password change revokes too, and the new password works.
    try server.admin(["user", "passwd", "ben", "--password-stdin"], stdin: "new-ben\n")
    #expect(try await ben.send("GET", "/v1/items/root").status == 401)
    _ = try await TestClient(server).signIn("ben", "new-ben")
  }

  @Test func tokensExpire() async throws {
    // Long enough that a loaded CI machine (every suite runs in parallel) still gets the first
    // request in before the token ends; the test sleeps only for what is left of it.
    // (12 s was once too short: the first request came after it, with the suite, two CPU burners
    // and a build on two cores.)
    let server = try await LaunchedServer(arguments: ["--token-lifetime", "40"], users: ["ana": "ana-password"])
    let before = Date().timeIntervalSince1970
    let login = try await TestClient(baseURL: server.baseURL).send(
      "POST", "/v1/login", json: LoginRequest(user: "ana", password: "ana-password")
    ).decode(LoginResponse.self)
    #expect(login.expires >= before + 40 - 0.01)
    #expect(login.expires <= Date().timeIntervalSince1970 + 40 + 0.01)
    var ana = TestClient(baseURL: server.baseURL)
    ana.token = login.token
    #expect(try await ana.send("GET", "/v1/items/root").status == 200)
    let left = login.expires - Date().timeIntervalSince1970
    try await Task.sleep(for: .milliseconds(Int((left + 0.3) * 1000)))
    let late = try await ana.send("GET", "/v1/items/root")
    #expect(late.status == 401)
    #expect(late.errorCode == "notAuthenticated")
  }

  @Test func usersFileAddsUsersWithQuotas() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-users-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("users")
    try "# team\ncleo:pa:ss:word:1234\n\ndan:dan-pw\n".write(to: file, atomically: true, encoding: .utf8)
    let server = try await LaunchedServer(arguments: ["--users", file.path], users: [:])
    let cleo = try await TestClient(baseURL: server.baseURL).signIn("cleo", "pa:ss:word")
    #expect(try await cleo.expect(AccountResponse.self, 200, "GET", "/v1/account").quotaBytes == 1234)
    let dan = try await TestClient(baseURL: server.baseURL).signIn("dan", "dan-pw")
    #expect(try await dan.expect(AccountResponse.self, 200, "GET", "/v1/account").quotaBytes == nil)
  }

  @Test func adminListsUsersAndRefusesBadInput() async throws {
    let server = try await ServerProcess(users: ["ana": "ana-password"], quotas: ["ana": 5000])
    let ana = try await TestClient.signedIn(server)
    _ = try await ana.upload("a.bin", testBytes(300))
    let lines = try server.admin(["user", "list"]).split(separator: "\n")
    #expect(lines == ["ana\t300\t5000\t1"])
    try server.admin(["user", "quota", "ana", "none"])
    #expect(try server.admin(["user", "list"]) == "ana\t300\tnone\t1\n")
    #expect(throws: ServerProcess.Failure.self) { try server.addUser("ana", password: "again") }
    #expect(throws: ServerProcess.Failure.self) { try server.addUser("../x", password: "p") }
    #expect(throws: ServerProcess.Failure.self) { try server.admin(["user", "quota", "nobody", "5"]) }
    #expect(throws: ServerProcess.Failure.self) { try server.admin(["token", "revoke", "nobody"]) }
  }
}
