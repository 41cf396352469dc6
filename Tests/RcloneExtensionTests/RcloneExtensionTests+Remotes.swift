import Foundation
import TestExecution
import Testing
import WebDAVTestSupport

/// folio-rclone over remotes that are not a local folder: rclone's in-memory backend, an
/// `rclone serve webdav` on loopback reached through a remote in a private rclone.conf (and
/// killed), and an `rclone` whose OAuth token has expired.
@Suite(.offThePool) struct RcloneExtensionRemoteTests {
  /// `:memory:` lives inside one rclone process, and folio-rclone runs one per call: the remote is
  /// always empty. What it must still get right is to say so, not invent items.
  @Test func theMemoryBackendListsEmptyAndSaysWhatIsAbsent() throws {
    let s = try ExtensionSession(config: ["remote": ":memory:"])
    #expect(try s.result("item", ["id": "#root"])["kind"] as? String == "folder")
    #expect(try s.list("#root").isEmpty)
    #expect(try s.failure("item", ["id": "/missing.txt"]).code == -1005)
    #expect(try s.failure("fetchContents", ["id": "/missing.txt", "dest": s.destination()]).code == -1005)
    #expect(try s.call("deleteItem", ["id": "/missing.txt", "recursive": false])["result"] != nil)
    #expect(s.close() == 0)
  }

  @Test func aWebDAVRemoteBrowsesDownloadsUploadsAndIsUnreachableWhenTheServerDies() throws {
    let server = try RcloneDAVServer()
    defer { server.stop() }
    let config = try DAVRemote(server)
    let s = try ExtensionSession(config: ["remote": "davtest:", "rclone_config": config.file])
    let bytes = randomBytes((2 << 20) + 5, seed: 9)
    let made = try #require(
      try s.result(
        "createItem",
        [
          "key": "dav-1", "template": ["parent": "#root", "name": "blob one.bin", "kind": "file"], "fields": ["name", "parent", "contents"],
          "contents": try s.stage(bytes), "options": [:],
        ])["item"] as? [String: Any], "\(server.log)")
    #expect(made["size"] as? Int == bytes.count)
    #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: server.files + "/blob one.bin"))) == bytes)
    #expect(try FileManager.default.contentsOfDirectory(atPath: server.files) == ["blob one.bin"], "no temporary left")
    #expect(try s.list("#root").compactMap { $0["name"] as? String } == ["blob one.bin"])
    let dest = s.destination()
    let fetched = try s.result("fetchContents", ["id": "/blob one.bin", "dest": dest])
    #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: dest))) == bytes)
    #expect(fetched["sha256"] == nil || fetched["sha256"] as? String == sha256(bytes))
    let ranged = s.destination()
    _ = try s.result("fetchContents", ["id": "/blob one.bin", "dest": ranged, "range": [1 << 20, (1 << 20) + 100]])
    #expect(Array(try [UInt8](Data(contentsOf: URL(fileURLWithPath: ranged)))[(1 << 20)..<((1 << 20) + 100)]) == Array(bytes[(1 << 20)..<((1 << 20) + 100)]))
    let edit = try s.result(
      "modifyItem",
      ["template": ["id": "/blob one.bin"], "baseVersion": made["version"] as Any, "fields": ["contents"], "contents": try s.stage(Array("small".utf8))])
    #expect((edit["item"] as? [String: Any])?["size"] as? Int == 5)

    // The server dies: every call says unreachable, never "no such item", for an item that exists
    // and for one that does not.
    server.kill()
    for (method, params) in [
      ("item", ["id": "/blob one.bin"]), ("item", ["id": "/never.txt"]), ("item", ["id": "#root"]),
      ("enumerateItems", ["container": "#root", "pageSize": 100]),
      ("fetchContents", ["id": "/blob one.bin", "dest": s.destination()]),
      ("deleteItem", ["id": "/blob one.bin", "recursive": false]),
    ] as [(String, [String: Any])] {
      let failure = try s.failure(method, params)
      #expect(failure.code == -1004, "\(method) \(params): \(failure)")
    }
    try server.restart()
    #expect(try s.result("item", ["id": "/blob one.bin"])["size"] as? Int == 5)
  }

  @Test func anExpiredTokenAsksToReconnectWithRclone() throws {
    let folder = try Folder()
    // An `rclone` that fails as rclone does when Google refuses a refresh token.
    let fake = try fakeRclone(
      in: folder,
      says: [
        #"2026/11/28 10:00:00 Failed to create file system for "gdrive:Documents": couldn't fetch token: oauth2: cannot fetch token: 400 Bad Request"#,
        #"Response: {"error": "invalid_grant", "error_description": "Token has been expired or revoked."}"#,
      ], status: 1)
    let s = try ExtensionSession(config: ["remote": "gdrive:Documents", "rclone": fake])
    #expect(s.capabilities["auth"] == nil, "Folio cannot sign in for rclone: no fields to ask")
    for (method, params) in [("item", ["id": "#root"]), ("enumerateItems", ["container": "#root", "pageSize": 10]), ("authenticate", [:])]
      as [(String, [String: Any])]
    {
      let failure = try s.failure(method, params)
      #expect(failure.code == -1000, "\(failure)")
      #expect(failure.message.contains("rclone config reconnect gdrive:"), "\(failure.message)")
    }
  }

  /// The remote's folder is gone (an unmounted disk, a deleted share): every call is
  /// "unreachable", never "no such item" (which would make Folio tombstone what it knows).
  @Test func aMissingRemoteFolderIsUnreachableForEveryCall() throws {
    let s = try ExtensionSession(config: ["remote": "/tmp/folio-rclone-no-such-folder-\(UUID().uuidString)"])
    for (method, params) in [
      ("item", ["id": "#root"]), ("item", ["id": "/a.txt"]), ("item", ["id": "not-an-id-it-gave"]),
      ("deleteItem", ["id": "not-an-id-it-gave", "recursive": false]), ("enumerateItems", ["container": "#root", "pageSize": 10]),
      ("enumerateItems", ["container": "/Sub", "pageSize": 10]), ("deleteItem", ["id": "/a.txt", "recursive": false]),
      ("fetchContents", ["id": "/a.txt", "dest": s.destination()]),
    ] as [(String, [String: Any])] {
      #expect(try s.failure(method, params).code == -1004, "\(method) \(params)")
    }
  }

  /// A download on a slow link (rclone serving 64 KiB/s: a minute for the file): listings are
  /// answered meanwhile, and a cancel is answered -32800 with rclone stopped: the file does not
  /// grow after the answer.
  @Test func aSlowDownloadLetsOtherCallsThroughAndStopsWhenCancelled() throws {
    let server = try RcloneDAVServer(bytesPerSecond: 64 << 10)
    defer { server.stop() }
    try Data(randomBytes(4 << 20, seed: 4)).write(to: URL(fileURLWithPath: server.files + "/slow.bin"))
    try Data("small".utf8).write(to: URL(fileURLWithPath: server.files + "/small.txt"))
    let config = try DAVRemote(server)
    let s = try ExtensionSession(config: ["remote": "davtest:", "rclone_config": config.file])
    let dest = s.destination()
    let download = try s.send("fetchContents", ["id": "/slow.bin", "dest": dest])
    // Wait until bytes arrive (rclone's stats, or the file growing), then ask other things.
    let deadline = Date().addingTimeInterval(120)
    while fileSize(dest) == 0 && (s.progress(of: download).last?["completed"] as? Int ?? 0) == 0 && Date() < deadline { usleep(20_000) }
    for _ in 0..<4 {
      #expect(try s.result("item", ["id": "/small.txt"])["size"] as? Int == 5)
    }
    try s.write(["jsonrpc": "2.0", "method": "$/cancelRequest", "params": ["id": download]])
    let answer = try s.answer(download, within: 30)
    #expect((answer["error"] as? [String: Any])?["code"] as? Int == -32800, "\(answer)")
    let after = fileSize(dest)
    #expect(after < 4 << 20, "stopped before the end")
    // rclone is gone: nothing writes to the file any more (checked over a second of polls).
    for _ in 0..<20 {
      usleep(50_000)
      #expect(fileSize(dest) == after)
    }
  }

  /// rclone's failures as File Provider codes, from what rclone prints (real messages of its
  /// backends): quota before permission (Drive's quota error is a 403), network before "not found".
  @Test(arguments: [
    (#"Failed to copy: googleapi: Error 403: The user's Drive storage quota has been exceeded., storageQuotaExceeded"#, 7, -1003),
    (#"Failed to about: Propfind "https://dav.example.com/": dial tcp: lookup dav.example.com on 127.0.0.53:53: no such host"#, 1, -1004),
    (#"Failed to about: RequestError: send request failed caused by: Get "https://s3.example.com/": net/http: TLS handshake timeout"#, 1, -1004),
    (#"Failed to about: AccessDenied: Access Denied status code: 403, request id: X"#, 1, 257),
    (#"Failed to create file system for "nosuch:": didn't find section in config file"#, 1, -1000),
    (#"Failed to about: something rclone has never said before"#, 2, 2),
  ])
  func rcloneFailuresAreFileProviderCodes(said: String, status: Int, code: Int) throws {
    let folder = try Folder()
    let fake = try fakeRclone(in: folder, says: ["2026/11/28 10:00:00 ERROR : " + said], status: status)
    let s = try ExtensionSession(config: ["remote": "remote:folder", "rclone": fake])
    let failure = try s.failure("about")
    #expect(failure.code == code, "\(failure)")
  }

  @Test func aMissingSettingOrProgramFailsInitializeWithTheReason() throws {
    #expect(throws: SessionError.self) { try ExtensionSession(config: [:]) }
    #expect(throws: SessionError.self) { try ExtensionSession(config: ["remote": "/tmp", "rclone": "/nonexistent/rclone"]) }
  }
}

/// An `rclone` that prints `lines` on stderr and exits with `status`, whatever it is asked.
///
/// Written under another name and copied into place by `install`: a file this process still had
/// open for writing when a parallel test forked would be inherited, and exec'ing it would fail
/// with ETXTBSY for as long as that child lives.
func fakeRclone(in folder: Folder, says lines: [String], status: Int) throws -> String {
  let fake = folder.path + "/rclone"
  let quoted = lines.map { "'" + $0.replacingOccurrences(of: "'", with: "'\"'\"'") + "'" }
  let script = "#!/bin/sh\n" + quoted.map { "printf '%s\\n' \($0) >&2\n" }.joined() + "exit \(status)\n"
  try Data(script.utf8).write(to: URL(fileURLWithPath: fake + ".txt"))
  let install = Process()
  install.executableURL = URL(fileURLWithPath: "/usr/bin/install")
  install.arguments = ["-m", "755", fake + ".txt", fake]
  try install.run()
  install.waitUntilExit()
  guard install.terminationStatus == 0 else { throw SessionError("install could not place \(fake)") }
  return fake
}

/// A private rclone.conf with one remote, `davtest`, for a loopback WebDAV server (its password
/// obscured by `rclone obscure`, as rclone keeps them).
struct DAVRemote {
  let file: String
  private let folder: Folder

  init(_ server: RcloneDAVServer) throws {
    folder = try Folder()
    file = folder.path + "/rclone.conf"
    let obscure = Process()
    obscure.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    obscure.arguments = ["rclone", "obscure", server.password]
    let out = Pipe()
    obscure.standardOutput = out
    try obscure.run()
    let obscured = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    obscure.waitUntilExit()
    try Data(
      """
      [davtest]
      type = webdav
      url = \(server.baseURL.absoluteString)
      vendor = other
      user = \(server.user)
      pass = \(obscured)

      """.utf8
    ).write(to: URL(fileURLWithPath: file))
  }
}

func fileSize(_ path: String) -> Int {
  ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
}
