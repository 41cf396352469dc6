import Foundation
import S3Client
import S3TestSupport
import TestExecution
import Testing

/// Issue 11: a bucket becomes a Folio location in one command — probed for conditional writes —
/// and the command line works on it like on any location, against moto on loopback.
@Suite(.offThePool) struct S3LocationTests {
  @Test func aBucketIsAddedProbedListedReadWrittenAndDeletedOnlyWhenSaidForGood() async throws {
    let bucket = try await MotoBucket.plain()
    let moto = bucket.moto
    defer { moto.stop() }
    let s = try Sandbox()
    let add = bucket.domainAdd("store", prefix: "team")
    let added = try s.folio(add.arguments, stdin: add.stdin)
    #expect(added.status == 0 && added.out.contains("added 'store'"), "\(added)")
    #expect(!added.out.contains("cannot detect conflicting edits"), "moto refuses stale conditional writes: \(added)")
    let config = try String(contentsOfFile: s.configHome + "/folio/config.toml", encoding: .utf8)
    #expect(config.contains("type = \"s3\"") && config.contains("conditional_writes = \"honoured\""), "\(config)")
    #expect(!config.contains(moto.credentials.secretAccessKey), "the secret is in the credentials file, not config.toml")

    // `domain check` probes again and keeps the answer, touching nothing else of config.toml.
    let configPath = s.configHome + "/folio/config.toml"
    try (config.replacingOccurrences(of: "conditional_writes = \"honoured\"", with: "conditional_writes = \"ignored\"")
      + "# a comment of the person's\n").write(toFile: configPath, atomically: true, encoding: .utf8)
    let checked = try s.folio("domain", "check", "store")
    #expect(checked.status == 0 && checked.out.contains("refuses stale conditional writes"), "\(checked)")
    let rechecked = try String(contentsOfFile: configPath, encoding: .utf8)
    #expect(rechecked.contains("conditional_writes = \"honoured\"") && rechecked.contains("# a comment of the person's"), "\(rechecked)")

    try s.file("notes é.txt", "from folio\n")
    let put = try s.folio("put", "notes é.txt", "store:/")
    #expect(put.status == 0, "\(put)")
    let listed = try s.folio("ls", "store:/")
    #expect(listed.status == 0 && listed.out.contains("notes é.txt"), "\(listed)")
    let copy = s.root + "/back.txt"
    let got = try s.folio("get", "store:/notes é.txt", Arg(copy))
    #expect(got.status == 0, "\(got)")
    #expect((try? String(contentsOfFile: copy, encoding: .utf8)) == "from folio\n")
    // The location's folder: the key is under "team/".
    let raw = try moto.client(bucket: moto.plainBucket)
    #expect(try await raw.listObjects(prefix: Array("team/".utf8)).objects.map(\.key) == [Array("team/notes é.txt".utf8)])

    let domains = try s.folio("domain", "list")
    #expect(domains.out.contains("s3") && domains.out.contains("online") && domains.out.contains("no trash"), "\(domains)")

    // No trash in a bucket: rm says how to delete for good, and --permanently does.
    let refused = try s.folio("rm", "store:/notes é.txt")
    #expect(refused.status != 0 && refused.err.contains("--permanently"), "\(refused)")
    #expect(try s.folio("rm", "--permanently", "store:/notes é.txt").status == 0)
    #expect(try await raw.listObjects(prefix: Array("team/".utf8)).objects.isEmpty)
  }

  /// A bucket keeps no tags: this computer does, and they follow a folder's rename made here
  /// (every key copied and deleted), so a search by tag finds the moved file.
  @Test func aFolderRenameKeepsTheTagsOfWhatItHolds() async throws {
    let bucket = try await MotoBucket.plain()
    let moto = bucket.moto
    defer { moto.stop() }
    let s = try Sandbox()
    let add = bucket.domainAdd("store")
    let added = try s.folio(add.arguments, stdin: add.stdin)
    #expect(added.status == 0, "\(added)")
    try s.file("notes é #1.txt", "tagged\n")
    #expect(try s.folio("mkdir", "store:/Plans").status == 0)
    #expect(try s.folio("cp", "notes é #1.txt", "store:/Plans/").status == 0)
    let tagged = try s.folio("tag", "store:/Plans/notes é #1.txt", "--add", "Red")
    #expect(tagged.status == 0, "\(tagged)")
    let renamed = try s.folio("rename", "store:/Plans", "Plans 2027")
    #expect(renamed.status == 0, "\(renamed)")
    let raw = try moto.client(bucket: moto.plainBucket)
    let keys = try await raw.listObjects(prefix: [], delimiter: nil).objects.map { String(decoding: $0.key, as: UTF8.self) }
    #expect(Set(keys) == ["Plans 2027/", "Plans 2027/notes é #1.txt"], "\(keys)")
    let found = try s.folio("search", "Red")
    #expect(found.out.contains("store:/Plans 2027/notes é #1.txt"), "\(found)")
    #expect(!found.out.contains("store:/Plans/"), "\(found)")
  }

  /// A folder rename a killed `folio` left in its journal (the plan written, no copy made yet) is
  /// finished by the next `folio sync`: every key under the new name, none under the old, and the
  /// tag of the file inside follows it.
  @Test func aRenameLeftInTheJournalIsFinishedBySync() async throws {
    let bucket = try await MotoBucket.plain()
    let moto = bucket.moto
    defer { moto.stop() }
    let s = try Sandbox()
    let add = bucket.domainAdd("store")
    #expect(try s.folio(add.arguments, stdin: add.stdin).status == 0)
    try s.file("notes é.txt", "tagged\n")
    #expect(try s.folio("mkdir", "store:/Plans").status == 0)
    #expect(try s.folio("cp", "notes é.txt", "store:/Plans/").status == 0)
    #expect(try s.folio("tag", "store:/Plans/notes é.txt", "--add", "Red").status == 0)

    func b64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
    let job: [String: Any] = [
      "id": "1-killed", "from": b64("/Plans"), "to": b64("/Archive"), "fromKey": b64("Plans"), "toKey": b64("Archive"),
      "objects": [["key": b64("Plans/"), "size": 0], ["key": b64("Plans/notes é.txt"), "size": 7]],
      "phase": "copying", "done": 0, "resumed": false,
    ]
    let journal = s.home + "/.local/state/folio/s3-jobs/store"
    try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: true)
    try JSONSerialization.data(withJSONObject: job).write(to: URL(fileURLWithPath: journal + "/1-killed.json"))

    let synced = try s.folio("sync")
    #expect(synced.out.contains("finished 1 rename(s) left unfinished"), "\(synced)")
    let keys = try await bucket.client().listObjects(prefix: [], delimiter: nil).objects.map {
      String(decoding: $0.key, as: UTF8.self)
    }
    #expect(Set(keys) == ["Archive/", "Archive/notes é.txt"], "\(keys)")
    #expect(!FileManager.default.fileExists(atPath: journal + "/1-killed.json"), "the job is done")
    let found = try s.folio("search", "Red")
    #expect(found.out.contains("store:/Archive/notes é.txt"), "\(found)")
  }

  /// `folio ls` of a folder holding keys Folio cannot show lists what it can, then says which keys
  /// are not shown and ends in error (as for a local folder whose entries cannot be read).
  @Test func lsSaysWhichKeysItCannotShow() async throws {
    let bucket = try await MotoBucket.plain()
    let moto = bucket.moto
    defer { moto.stop() }
    let raw = try moto.client(bucket: moto.plainBucket)
    let empty = try S3LocationFile.empty()
    defer { try? FileManager.default.removeItem(atPath: empty) }
    for key in ["a/ok.txt", "a//hidden.txt"] {
      _ = try await raw.putObject(
        Array(key.utf8), fromFile: empty, size: 0, sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
    let s = try Sandbox()
    let add = bucket.domainAdd("store")
    let added = try s.folio(add.arguments, stdin: add.stdin)
    #expect(added.status == 0, "\(added)")
    let listed = try s.folio("ls", "store:/a")
    #expect(listed.out.contains("ok.txt") && listed.out.contains("(1 key Folio cannot show)"), "\(listed)")
    #expect(listed.status != 0, "\(listed)")
    #expect(listed.err.contains("1 key under /a cannot be shown: 'a//'"), "\(listed)")
    #expect(try await raw.listObjects(prefix: Array("a/".utf8), delimiter: nil).objects.count == 2, "left as they are")
  }

  /// `folio put` of a multipart upload (96 MiB: six 16 MiB parts) killed with SIGKILL once the store
  /// holds a part: moto is frozen the moment a part is seen, so the kill lands mid-upload whatever
  /// the machine's speed. Nothing is under the real key; `folio sync` then delivers exactly the
  /// bytes, completing the pending upload, and leaves none pending.
  @Test func aMultipartUploadKilledMidwayIsResumedBySyncWithExactlyTheBytes() async throws {
    let bucket = try await MotoBucket.plain()
    let moto = bucket.moto
    defer {
      moto.resume()
      moto.stop()
    }
    let s = try Sandbox()
    let add = bucket.domainAdd("store")
    let added = try s.folio(add.arguments, stdin: add.stdin)
    #expect(added.status == 0, "\(added)")
    let payload = try s.file("payload.bin", "")
    try Data(randomBytes(96 << 20, seed: 23)).write(to: URL(fileURLWithPath: payload))
    let raw = try moto.client(bucket: moto.plainBucket)
    let key = Array("payload.bin".utf8)
    let put = try BackgroundFolio(s, ["put", "payload.bin", "store:/"])
    var caught = false
    let deadline = Date().addingTimeInterval(300)  // a hang guard, not the oracle
    while put.isRunning && !caught && Date() < deadline {
      if let pending = try await raw.listMultipartUploads().first(where: { $0.key == key }),
        try await !raw.listParts(key, uploadID: pending.uploadID).isEmpty
      {
        moto.freeze()
        caught = true
      } else {
        try await Task.sleep(for: .milliseconds(10))
      }
    }
    try #require(caught && put.isRunning, "the upload was not caught in the middle")
    put.kill9()
    moto.resume()
    let absent = await #expect(throws: S3Error.self) { _ = try await raw.headObject(key) }
    #expect(absent?.code == .noSuchKey, "the real key holds no part")

    let done = try s.folio("sync")
    #expect(done.status == 0, "\(done)")
    let back = s.root + "/back.bin"
    let got = try s.folio("get", "store:/payload.bin", Arg(back))
    #expect(got.status == 0, "\(got)")
    #expect(try sha256(back, s) == (try sha256(payload, s)))
    #expect(try await raw.listMultipartUploads().isEmpty, "nothing left pending")
  }

  @Test func aWrongSecretAddsNothing() async throws {
    let bucket = try await MotoBucket.plain()
    let moto = bucket.moto
    defer { moto.stop() }
    let s = try Sandbox()
    let add = bucket.domainAdd("store", secret: "not the secret")
    let added = try s.folio(add.arguments, stdin: add.stdin)
    #expect(added.status != 0 && added.err.contains("store"), "\(added)")
    let config = (try? String(contentsOfFile: s.configHome + "/folio/config.toml", encoding: .utf8)) ?? ""
    #expect(!config.contains("type = \"s3\""), "nothing saved: \(config)")
    let credentials = (try? String(contentsOfFile: s.configHome + "/folio/credentials", encoding: .utf8)) ?? ""
    #expect(!credentials.contains("store="), "no secret kept")
  }
}

enum S3LocationFile {
  /// An empty file's path, to upload.
  static func empty() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("s3loc-\(UUID().uuidString)").path
    try Data().write(to: URL(fileURLWithPath: path))
    return path
  }
}
