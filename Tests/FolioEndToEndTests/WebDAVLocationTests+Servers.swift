import Foundation
import TestExecution
import Testing
import WebDAVTestSupport

/// What the Apache test checks once, against the two servers that ignore conditional writes:
/// nginx (lists no ETags) and rclone (writes in place), and a server that dies mid-session.
extension WebDAVLocationTests {
  /// `folio domain add dav --webdav` for `server`, probed.
  func addLocation(_ server: any WebDAVTestServer, _ s: Sandbox) throws {
    let added = try s.folio(
      ["domain", "add", "dav", "--webdav", server.baseURL.absoluteString, "--user", server.user, "--password-stdin"],
      stdin: server.password + "\n")
    try #require(added.status == 0, "\(added)")
  }

  /// Another client writes in the server's folder on disk: a new file reaches `folio ls`, and an
  /// edit of a file the index keeps (tagged here) reaches the index at `folio sync` — its new
  /// size, with its tag — on servers without ETags (nginx: size and date) and writing in place.
  /// rclone serves listings from its VFS cache (5 min by default, `RcloneDAVServer`): it runs with
  /// a 1 s cache here, and what it lists is waited for.
  @Test(arguments: [DAVServerKind.nginx, .rclone])
  func anotherClientsChangesReachLsAndTheIndex(_ kind: DAVServerKind) throws {
    let server: any WebDAVTestServer = kind == .rclone ? try RcloneDAVServer(dirCacheSeconds: 1) : try kind.start()
    defer { server.stop() }
    let s = try Sandbox()
    try addLocation(server, s)
    try s.file("notes.txt", "mine\n")
    #expect(try s.folio("put", "notes.txt", "dav:/").status == 0)
    #expect(try s.folio("tag", "dav:/notes.txt", "--add", "Red").status == 0)

    try "theirs\n".write(toFile: server.files + "/theirs.txt", atomically: false, encoding: .utf8)
    try "edited by another client\n".write(toFile: server.files + "/notes.txt", atomically: false, encoding: .utf8)
    var listed = try s.folio("ls", "dav:/")
    _ = try eventually {
      listed = try s.folio("ls", "dav:/")
      return listed.out.contains("theirs.txt")
    }
    #expect(listed.status == 0 && listed.out.contains("theirs.txt") && listed.out.contains("notes.txt"), "\(listed)")

    var found = try s.folio("search", "Red", "--json")
    let newSize = { found.out.contains("\"size\":25") || found.out.contains("\"size\" : 25") }
    _ = try eventually {
      #expect(try s.folio("sync").status == 0)
      found = try s.folio("search", "Red", "--json")
      return newSize()
    }
    #expect(newSize(), "the index has the new size: \(found)")
    let copy = s.root + "/back.txt"
    #expect(try s.folio("get", "dav:/notes.txt", Arg(copy)).status == 0)
    #expect((try? String(contentsOfFile: copy, encoding: .utf8)) == "edited by another client\n")
  }

  /// A folder renamed here keeps the tag of a file inside it: the index re-keys what it keeps
  /// under the new path (WebDAV identifiers are paths).
  @Test(arguments: [DAVServerKind.nginx, .rclone])
  func aFolderRenameKeepsTheTagsInside(_ kind: DAVServerKind) throws {
    let server = try kind.start()
    defer { server.stop() }
    let s = try Sandbox()
    try addLocation(server, s)
    try s.file("notes é #1.txt", "plan\n")
    #expect(try s.folio("mkdir", "dav:/Plans").status == 0)
    #expect(try s.folio("cp", "notes é #1.txt", "dav:/Plans/").status == 0)
    #expect(try s.folio("tag", "dav:/Plans/notes é #1.txt", "--add", "Red").status == 0)
    let renamed = try s.folio("rename", "dav:/Plans", "Plans 2027")
    #expect(renamed.status == 0, "\(renamed)")
    #expect(FileManager.default.fileExists(atPath: server.files + "/Plans 2027/notes é #1.txt"))
    let found = try s.folio("search", "Red")
    #expect(found.out.contains("dav:/Plans 2027/notes é #1.txt") && !found.out.contains("dav:/Plans/"), "\(found)")
    let listed = try s.folio("ls", "dav:/Plans 2027")
    #expect(listed.status == 0 && listed.out.contains("notes é #1.txt") && listed.out.contains("Red"), "\(listed)")
  }

  /// rclone killed mid-session: the location is offline — never "no such item", nothing
  /// forgotten — a `put` meanwhile is queued, and once the server is back `folio sync` sends it
  /// and the listing is whole again.
  @Test func aDeadRcloneServerIsOfflineNotEmptyAndWorkResumesWhenItIsBack() throws {
    let server = try RcloneDAVServer()
    defer { server.stop() }
    let s = try Sandbox()
    try addLocation(server, s)
    try s.file("a.txt", "before\n")
    #expect(try s.folio("put", "a.txt", "dav:/").status == 0)
    #expect(try s.folio("tag", "dav:/a.txt", "--add", "Red").status == 0)

    server.kill()
    let listed = try s.folio("ls", "dav:/")
    #expect(listed.status != 0 && listed.err.contains("cannot reach"), "\(listed)")
    let info = try s.folio("info", "dav:/a.txt")
    for run in [listed, info] {
      #expect(!run.err.lowercased().contains("no such item") && !run.out.lowercased().contains("no such item"), "\(run)")
    }
    #expect(try s.folio("domain", "list").out.contains("offline"))
    try s.file("b.txt", "written while it was down\n")
    let queued = try s.folio("put", "b.txt", "dav:/")
    #expect(queued.status == 75 && queued.out.contains("queued"), "kept for later, not refused: \(queued)")
    let synced = try s.folio("sync")
    #expect(synced.status != 0, "\(synced)")
    #expect(try s.folio("search", "Red").out.contains("dav:/a.txt"), "a dead server forgets nothing")

    try server.restart()
    let resumed = try s.folio("sync")
    #expect(resumed.status == 0, "\(resumed)")
    #expect((try? String(contentsOfFile: server.files + "/b.txt", encoding: .utf8)) == "written while it was down\n")
    let back = try s.folio("ls", "dav:/")
    #expect(back.status == 0 && back.out.contains("a.txt") && back.out.contains("b.txt"), "\(back)")
    #expect(try s.folio("domain", "list").out.contains("online"))
    #expect(try s.folio("search", "Red").out.contains("dav:/a.txt"))
  }
}
