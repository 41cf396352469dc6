import Foundation
import TestExecution
import Testing
import WebDAVTestSupport

/// Issue 11: a WebDAV folder becomes a Folio location in one command — signed in to and probed —
/// and the command line works on it like on any location, against real Apache and rclone servers
/// on loopback.
@Suite(.offThePool) struct WebDAVLocationTests {
  @Test func anApacheFolderIsAddedProbedListedReadWrittenAndDeletedOnlyWhenSaidForGood() async throws {
    let server = try ApacheDAVServer()
    defer { server.stop() }
    let s = try Sandbox()
    let added = try s.folio(
      ["domain", "add", "dav", "--webdav", server.baseURL.absoluteString, "--user", server.user, "--password-stdin"],
      stdin: server.password + "\n")
    #expect(added.status == 0 && added.out.contains("added 'dav'"), "\(added)")
    #expect(!added.out.contains("cannot detect conflicting edits"), "Apache refuses stale conditional writes: \(added)")
    #expect(!added.out.contains("temporary name"), "Apache replaces a file only when its upload is complete: \(added)")
    let configPath = s.configHome + "/folio/config.toml"
    let config = try String(contentsOfFile: configPath, encoding: .utf8)
    #expect(config.contains("type = \"webdav\"") && config.contains("conditional_writes = \"honoured\""), "\(config)")
    #expect(config.contains("replaces_in_place = \"no\""), "\(config)")
    #expect(!config.contains(server.password), "the password is in the credentials file, not config.toml")

    // `domain check` probes again and keeps the answer, touching nothing else of config.toml.
    try (config.replacingOccurrences(of: "conditional_writes = \"honoured\"", with: "conditional_writes = \"ignored\"")
      + "# a comment of the person's\n").write(toFile: configPath, atomically: true, encoding: .utf8)
    let checked = try s.folio("domain", "check", "dav")
    #expect(checked.status == 0 && checked.out.contains("refuses stale conditional writes"), "\(checked)")
    let rechecked = try String(contentsOfFile: configPath, encoding: .utf8)
    #expect(rechecked.contains("conditional_writes = \"honoured\"") && rechecked.contains("# a comment of the person's"), "\(rechecked)")

    try s.file("notes é #1.txt", "from folio\n")
    let put = try s.folio("put", "notes é #1.txt", "dav:/")
    #expect(put.status == 0, "\(put)")
    #expect((try? String(contentsOfFile: server.files + "/notes é #1.txt", encoding: .utf8)) == "from folio\n")
    // Another client's file reaches the listing.
    try "theirs\n".write(toFile: server.files + "/theirs.txt", atomically: false, encoding: .utf8)
    let listed = try s.folio("ls", "dav:/")
    #expect(listed.status == 0 && listed.out.contains("notes é #1.txt") && listed.out.contains("theirs.txt"), "\(listed)")
    let copy = s.root + "/back.txt"
    let got = try s.folio("get", "dav:/theirs.txt", Arg(copy))
    #expect(got.status == 0, "\(got)")
    #expect((try? String(contentsOfFile: copy, encoding: .utf8)) == "theirs\n")
    let info = try s.folio("info", "dav:/theirs.txt")
    #expect(info.status == 0 && !info.out.contains("cannot detect conflicting edits"), "\(info)")

    let domains = try s.folio("domain", "list")
    #expect(domains.out.contains("webdav") && domains.out.contains("online") && domains.out.contains("no trash"), "\(domains)")

    // The server keeps no tags: this computer does, and they follow a folder's rename made here.
    #expect(try s.folio("mkdir", "dav:/Plans").status == 0)
    #expect(try s.folio("cp", "notes é #1.txt", "dav:/Plans/").status == 0)
    #expect(try s.folio("tag", "dav:/Plans/notes é #1.txt", "--add", "Red").status == 0)
    let renamed = try s.folio("rename", "dav:/Plans", "Plans 2027")
    #expect(renamed.status == 0, "\(renamed)")
    #expect(FileManager.default.fileExists(atPath: server.files + "/Plans 2027/notes é #1.txt"))
    let found = try s.folio("search", "Red")
    #expect(found.out.contains("dav:/Plans 2027/notes é #1.txt"), "\(found)")

    // No trash Folio can reach: rm says how to delete for good, and --permanently does.
    let refused = try s.folio("rm", "dav:/notes é #1.txt")
    #expect(refused.status != 0 && refused.err.contains("--permanently"), "\(refused)")
    #expect(try s.folio("rm", "--permanently", "dav:/notes é #1.txt").status == 0)
    #expect(!FileManager.default.fileExists(atPath: server.files + "/notes é #1.txt"))
  }

  @Test func aServerThatWritesInPlaceIsSaidSoAndUploadsGoThroughATemporaryName() async throws {
    let server = try RcloneDAVServer()
    defer { server.stop() }
    let s = try Sandbox()
    let added = try s.folio(
      ["domain", "add", "dav", "--webdav", server.baseURL.absoluteString, "--user", server.user, "--password-stdin"],
      stdin: server.password + "\n")
    #expect(added.status == 0, "\(added)")
    #expect(added.out.contains("cannot detect conflicting edits") && added.out.contains("temporary name"), "\(added)")
    let domains = try s.folio("domain", "list")
    #expect(domains.out.contains("cannot detect conflicting edits"), "\(domains)")
    try s.file("a.txt", "one\n")
    #expect(try s.folio("put", "a.txt", "dav:/").status == 0)
    #expect((try? String(contentsOfFile: server.files + "/a.txt", encoding: .utf8)) == "one\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: server.files) == ["a.txt"], "no temporary left")
    // An item's Info says it too, not only `domain list`.
    let info = try s.folio("info", "dav:/a.txt")
    #expect(info.status == 0 && info.out.contains("cannot detect conflicting edits"), "\(info)")
  }

  @Test func aWrongPasswordOrPlainHTTPToAnotherMachineAddsNothing() async throws {
    let server = try NginxDAVServer()
    defer { server.stop() }
    let s = try Sandbox()
    let wrong = try s.folio(
      ["domain", "add", "dav", "--webdav", server.baseURL.absoluteString, "--user", server.user, "--password-stdin"],
      stdin: "not the password\n")
    #expect(wrong.status != 0 && wrong.err.contains("refused the user name or password"), "\(wrong)")
    // Refused before a password is read: nothing crosses a network.
    let far = try s.folio(["domain", "add", "far", "--webdav", "http://files.example.com/dav/", "--user", "bob", "--password-stdin"], stdin: "x\n")
    #expect(far.status != 0 && far.err.contains("use https"), "\(far)")
    let config = (try? String(contentsOfFile: s.configHome + "/folio/config.toml", encoding: .utf8)) ?? ""
    #expect(!config.contains("type = \"webdav\""), "nothing saved: \(config)")
    let credentials = (try? String(contentsOfFile: s.configHome + "/folio/credentials", encoding: .utf8)) ?? ""
    #expect(!credentials.contains("dav"), "no password kept")
  }

  /// `folio put` killed with SIGKILL while its bytes go up (rclone limited to 512 KiB/s, so the
  /// test acts mid-flight): the real name never holds a part, and `folio sync` delivers exactly
  /// the bytes through the same temporary name, leaving none behind.
  @Test func anUploadKilledMidwayIsResumedBySyncWithExactlyTheBytes() throws {
    let server = try RcloneDAVServer(bytesPerSecond: 512 << 10)
    defer { server.stop() }
    let s = try Sandbox()
    try s.config(
      """
      [[domain]]
      name = "dav"
      type = "webdav"
      url = "\(server.baseURL.absoluteString)"
      user = "\(server.user)"
      conditional_writes = "ignored"
      replaces_in_place = "yes"

      """)
    let wrong = try s.folio(["domain", "login", "dav", "--password-stdin"], stdin: "not the password\n")
    #expect(wrong.status != 0 && wrong.err.contains("refused the user name or password"), "\(wrong)")
    let login = try s.folio(["domain", "login", "dav", "--password-stdin"], stdin: server.password + "\n")
    #expect(login.status == 0 && login.out.contains("signed in to 'dav'"), "\(login)")
    let payload = try s.file("payload.bin", "")
    try Data(randomBytes(4 << 20, seed: 11)).write(to: URL(fileURLWithPath: payload))
    let put = try BackgroundFolio(s, ["put", "payload.bin", "dav:/"])
    func temporaries() -> [String] {
      ((try? FileManager.default.contentsOfDirectory(atPath: server.files)) ?? []).filter { $0.hasPrefix(".folio-upload-") }
    }
    func size(_ name: String) -> Int64 {
      (try? FileManager.default.attributesOfItem(atPath: server.files + "/" + name)[.size] as? Int64) ?? 0
    }
    let midway = eventually { !put.isRunning || temporaries().contains { size($0) >= 512 << 10 } }
    try #require(midway && put.isRunning, "the upload was not caught in the middle: \(temporaries())")
    put.kill9()
    #expect(!FileManager.default.fileExists(atPath: server.files + "/payload.bin"), "the real name holds no part")

    let done = try s.folio("sync")
    #expect(done.status == 0, "\(done)")
    #expect(try sha256(server.files + "/payload.bin", s) == (try sha256(payload, s)))
    #expect(temporaries().isEmpty, "left on the server: \(temporaries())")
  }

  /// Nextcloud (its documented endpoints, as a double: it cannot run here): found at `domain add`,
  /// and then `rm` is a move to its trash bin, `trash` lists it and `trash restore` puts it back.
  @Test func aNextcloudAccountIsFoundAndItsTrashBinIsRecentlyDeleted() throws {
    let nc = try NextcloudDouble()
    defer { nc.stop() }
    nc.put("Docs", folder: true)
    nc.put("Docs/plan.txt", "the plan\n")
    let s = try Sandbox()
    let added = try s.folio(
      ["domain", "add", "cloud", "--webdav", nc.filesURL.absoluteString, "--user", nc.user, "--password-stdin"],
      stdin: nc.password + "\n")
    #expect(added.status == 0 && added.out.contains("Nextcloud: deleted items go to its trash bin"), "\(added)")
    #expect(!added.out.contains("cannot detect conflicting edits"), "\(added)")
    let config = try String(contentsOfFile: s.configHome + "/folio/config.toml", encoding: .utf8)
    #expect(config.contains("dialect = \"nextcloud\""), "\(config)")
    let domains = try s.folio("domain", "list")
    #expect(domains.out.contains("Nextcloud: Recently Deleted"), "\(domains)")

    let removed = try s.folio("rm", "cloud:/Docs/plan.txt")
    #expect(removed.status == 0, "\(removed)")
    #expect(nc.contents("Docs/plan.txt") == nil && nc.binNames.count == 1)
    let listed = try s.folio("trash", "--location", "cloud")
    #expect(listed.status == 0 && listed.out.contains("plan.txt"), "\(listed)")
    let restored = try s.folio("trash", "restore", "cloud:/Docs/plan.txt")
    #expect(restored.status == 0, "\(restored)")
    #expect(nc.contents("Docs/plan.txt") == "the plan\n" && nc.binNames.isEmpty)

    // Favorites are the account's: `folio favorite` marks the file on the server, --off unmarks.
    let marked = try s.folio("favorite", "cloud:/Docs/plan.txt")
    #expect(marked.status == 0 && nc.isFavorite("Docs/plan.txt") == true, "\(marked)")
    let unmarked = try s.folio("favorite", "--off", "cloud:/Docs/plan.txt")
    #expect(unmarked.status == 0 && nc.isFavorite("Docs/plan.txt") == false, "\(unmarked)")
    // Marked and unmarked on another device: the listing brings it into the index, both ways.
    nc.put("elsewhere.txt", "e")
    nc.setFavorite("elsewhere.txt", true)
    #expect(try s.folio("sync").status == 0)
    let favorite = try s.folio("search", "elsewhere", "--json")
    #expect(favorite.out.contains("\"favorite\" : true"), "\(favorite)")
    nc.setFavorite("elsewhere.txt", false)
    #expect(try s.folio("sync").status == 0)
    let plain = try s.folio("search", "elsewhere", "--json")
    #expect(!plain.out.contains("\"favorite\" : true"), "\(plain)")

    // Tags are the account's system tags: `folio tag` sets them on the server (an existing tag
    // whatever its case), and one set in the web interface reaches the index at `folio sync`.
    nc.tag("elsewhere.txt", "Blue")
    let tagged = try s.folio("tag", "cloud:/Docs/plan.txt", "--add", "blue", "--add", "Plan")
    #expect(tagged.status == 0, "\(tagged)")
    #expect(nc.systemTags(of: "Docs/plan.txt") == ["Blue", "Plan"] && nc.systemTagList == ["Blue", "Plan"])
    let untagged = try s.folio("tag", "cloud:/Docs/plan.txt", "--remove", "PLAN")
    #expect(untagged.status == 0 && nc.systemTags(of: "Docs/plan.txt") == ["Blue"], "\(untagged)")
    #expect(try s.folio("sync").status == 0)
    // (Spelled as the index first knew it, "blue": a tag is one whatever its case.)
    let blue = try s.folio("search", "elsewhere", "--json")
    #expect(blue.out.contains("\"blue\""), "\(blue)")
  }

  /// A big file to Nextcloud goes up in chunks (chunked upload v2, 5 MiB here): `folio put`
  /// killed with SIGKILL while the server holds chunk 2 leaves the upload folder, and `folio sync`
  /// finishes the journaled upload sending only chunk 3, the exact bytes assembled.
  @Test func aNextcloudUploadKilledMidwayIsResumedBySyncWithoutSendingItsChunksAgain() throws {
    let nc = try NextcloudDouble()
    defer { nc.stop() }
    let s = try Sandbox()
    try s.config(
      """
      [[domain]]
      name = "cloud"
      type = "webdav"
      url = "\(nc.filesURL.absoluteString)"
      user = "\(nc.user)"
      dialect = "nextcloud"
      conditional_writes = "honoured"
      replaces_in_place = "no"
      chunk_size_mib = "5"

      """)
    let login = try s.folio(["domain", "login", "cloud", "--password-stdin"], stdin: nc.password + "\n")
    #expect(login.status == 0, "\(login)")
    let payload = try s.file("payload.bin", "")
    try Data(randomBytes(12 << 20, seed: 23)).write(to: URL(fileURLWithPath: payload))
    nc.holdPut(ofChunk: 2)
    let put = try BackgroundFolio(s, ["put", "payload.bin", "cloud:/"])
    let midway = eventually { !put.isRunning || nc.heldChunkArrived }
    try #require(midway && put.isRunning, "the upload was not caught in the middle: \(nc.chunkPuts)")
    put.kill9()
    nc.releaseHeldChunk()
    #expect(nc.bytes("payload.bin") == nil, "nothing under the real name")
    #expect(nc.uploadFolderNames.count == 1)

    let done = try s.folio("sync")
    #expect(done.status == 0, "\(done)")
    let stored = try #require(nc.bytes("payload.bin"))
    let copy = try s.file("stored.bin", "")
    try Data(stored).write(to: URL(fileURLWithPath: copy))
    #expect(try sha256(copy, s) == (try sha256(payload, s)))
    #expect(nc.chunkPuts == [1, 2, 3], "chunks 1 and 2 were not sent again: \(nc.chunkPuts)")
    #expect(nc.uploadFolderNames.isEmpty)
  }

  /// https to a server with its own certificate: refused until `--ca-file` names it.
  @Test func anHTTPSServerWithItsOwnCertificateNeedsCAFile() throws {
    let server = try ApacheDAVServer(https: true)
    defer { server.stop() }
    let certificate = try #require(server.certificate)
    let s = try Sandbox()
    let add = ["domain", "add", "dav", "--webdav", server.baseURL.absoluteString, "--user", server.user, "--password-stdin"]
    let untrusted = try s.folio(add, stdin: server.password + "\n")
    #expect(untrusted.status != 0 && untrusted.err.contains("--ca-file"), "\(untrusted)")
    let trusted = try s.folio(add + ["--ca-file", certificate], stdin: server.password + "\n")
    #expect(trusted.status == 0, "\(trusted)")
    #expect(try s.folio("ls", "dav:/").status == 0)
  }
}
