import FolioServerProvider
import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import TestSupport
import TestExecution

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 4's acceptance scenario: two computers of one person (two private XDG worlds: two
/// configs, indexes, content caches and journals) share a real `folio serve` on loopback, and are
/// driven only through the `folio` command line. They edit, rename, delete, go offline and come
/// back, and no byte a person saved is lost (test plan I2, I3; §4.5 convergence).
@Suite("TwoMachines", .serialized, .offThePool)
struct TwoMachinesTests {
  @Test func twoMachinesEditRenameDeleteGoOfflineAndComeBackWithoutLosingAByte() async throws {
    let server = try await within(300) { try await RemoteServer() }
    let a = try Machine("A", server: server)
    let b = try Machine("B", server: server)
    #expect(a.home.root != b.home.root)

    let original = [
      "a.txt": randomData(200_000, seed: 401), "b.txt": randomData(1_500_000, seed: 402),
      "c.txt": randomData(50_000, seed: 403),
    ]
    let aEditedOffline = randomData(250_001, seed: 404)
    let cEditedByB = randomData(60_000, seed: 405)
    let dNewOffline = randomData(123_457, seed: 406)

    // 1. A puts a, b, c; B syncs and downloads them.
    let paths = try ["a.txt", "b.txt", "c.txt"].map { try a.home.file($0, original[$0]!) }
    let put = try await a.run(["put"] + paths + ["work:/"])
    #expect(put.status == 0, "\(put)")
    for name in ["a.txt", "b.txt", "c.txt"] { #expect(put.out.contains("uploaded /\(name)"), "\(put)") }
    try await a.expectSync()
    try await b.expectSync()
    let firstCopies = try await b.download(["a.txt", "b.txt", "c.txt"], into: "step1")
    for (name, data) in original { #expect(try firstCopies[name].map(sha256) == (try sha256(data)), "B's \(name)") }

    // 2. The server dies. A, offline, edits a and adds d: both are journaled and say so.
    server.server.stop(signal: SIGKILL)
    try a.setEdit(aEditedOffline)
    let open = try await a.run(["open", "work:/a.txt"])
    #expect(open.status == 75, "\(open)")
    #expect(open.err.contains("a.txt: your changes are saved here and queued"), "\(open)")
    #expect(open.err.contains("`folio sync` uploads them"), "\(open)")
    let putD = try await a.run(["put", try a.home.file("d.txt", dNewOffline), "work:/"])
    #expect(putD.status == 75, "\(putD)")
    #expect(putD.out == "queued d.txt\n", "\(putD)")
    #expect(putD.err.contains("it stays queued for `folio sync`"), "\(putD)")
    let offline = try await a.run(["sync"])
    #expect(offline.status == 75, "\(offline)")
    #expect(offline.out.isEmpty, "\(offline)")
    #expect(offline.err.contains("work: cannot reach"), "\(offline)")
    #expect(offline.err.contains("Check the network; Folio retries when the server is back."), "\(offline)")
    #expect(offline.err.contains("upload of work:d.txt waiting"), "\(offline)")
    #expect(offline.err.contains("upload of work:/a.txt waiting"), "\(offline)")
    // Nothing is lost meanwhile: A's own copy of a is its edit, and d waits in the journal.
    let offlineCopies = try await a.download(["a.txt"], into: "offline")
    #expect(try offlineCopies["a.txt"].map(sha256) == (try sha256(aEditedOffline)), "A's offline a")
    let journal = try await a.run(["sync", "--json"])
    #expect(journal.status == 75)
    let waiting = try JSONDecoder().decode(SyncJSON.self, from: Data(journal.out.utf8)).unfinished
    #expect(Set(waiting.map { "\($0.direction) \($0.name ?? "?") \($0.state)" }) == [
      "upload d.txt throttled", "upload /a.txt throttled",
    ], "\(journal)")

    // 3. The server comes back on the same root. B renames b, edits c, and deletes a for good.
    try await within(300) { try await server.server.start() }
    let rename = try await b.run(["rename", "work:/b.txt", "b-renamed.txt"])
    #expect(rename.status == 0, "\(rename)")
    try b.setEdit(cEditedByB)
    let editC = try await b.run(["open", "work:/c.txt"])
    #expect(editC.status == 0, "\(editC)")
    let rm = try await b.run(["rm", "work:/a.txt"])
    #expect(rm.status == 0, "\(rm)")
    let empty = try await b.run(["trash", "empty", "--yes", "--location", "work"])
    #expect(empty.status == 0, "\(empty)")

    // 4. A syncs: d arrives, its edit of the deleted a comes back as a new item (edit beats
    // delete), and A sees B's rename and B's content of c.
    let back = try await a.run(["sync"])
    #expect(back.status == 0, "\(back)")
    #expect(back.err.isEmpty, "\(back)")
    #expect(back.out.contains("uploaded work:d.txt"), "\(back)")
    #expect(back.out.contains("uploaded work:/a.txt"), "the recovered edit is named by its path: \(back)")
    #expect(
      back.out.contains("kept work:/a.txt: your edits of an item deleted elsewhere, as a new item"),
      "the person is told where the edits went: \(back)")
    let expected = [
      "a.txt": aEditedOffline, "b-renamed.txt": original["b.txt"]!, "c.txt": cEditedByB, "d.txt": dNewOffline,
    ]
    #expect(try await a.listing() == Set(expected.keys))
    let recents = try await a.run(["recents"])
    #expect(recents.out.contains("work:/b-renamed.txt"), "A's index has B's rename: \(recents)")
    #expect(!recents.out.contains("work:/b.txt"), "\(recents)")
    let aCopies = try await a.download(Array(expected.keys), into: "step4")
    for (name, data) in expected { #expect(try aCopies[name].map(sha256) == (try sha256(data)), "A's \(name)") }
    let conflicts = try a.index().conflicts(domain: RemoteServer.work)
    #expect(conflicts.map(\.reason) == [.remoteDeletion], "the recovery is recorded as a conflict: \(conflicts)")
    // The command line lists it and settles it, as the browser's Resolve Conflict… does: keeping
    // mine changes nothing on the server (the edits already are the live a.txt).
    let listed = try await a.run(["conflicts"])
    #expect(listed.status == 0 && listed.out.contains("deleted elsewhere, edited here  yours: work:/a.txt"), "\(listed)")
    let resolved = try await a.run(["resolve", "work:/a.txt", "--keep", "mine"])
    #expect(resolved.status == 0 && resolved.out.contains("kept mine: work:/a.txt"), "\(resolved)")
    #expect(try a.index().conflicts(domain: RemoteServer.work).isEmpty)
    let none = try await a.run(["conflicts", "--json"])
    let parsed = try JSONSerialization.jsonObject(with: Data(none.out.utf8)) as? [Any]
    #expect(none.status == 0 && parsed?.isEmpty == true, "\(none)")
    let notOne = try await a.run(["resolve", "work:/d.txt", "--keep", "theirs"])
    #expect(notOne.status == 1 && notOne.err.contains("is not part of a conflict"), "\(notOne)")

    // 5. B syncs and sees d and A's kept edit.
    try await b.expectSync()
    #expect(try await b.listing() == Set(expected.keys))
    let bCopies = try await b.download(["a.txt", "d.txt"], into: "step5")
    #expect(try bCopies["a.txt"].map(sha256) == (try sha256(aEditedOffline)), "B gets A's offline edit")
    #expect(try bCopies["d.txt"].map(sha256) == (try sha256(dNewOffline)), "B gets A's offline d")

    // The server, listed and read directly: every version kept has exactly its bytes, once. (The
    // first a was deleted on purpose and the first c replaced from its current version: neither
    // is a version anyone still expects.)
    let checker = try RemoteClient(server, user: "ana")
    let files = try await within(300) { try await checker.children() }
    #expect(files.allSatisfy { !$0.isFolder })
    #expect(files.map(\.filename.lossyString).sorted() == expected.keys.sorted())
    for file in files {
      let bytes = try await within(300) { try await checker.serverBytes(file.identifier) }
      #expect(try sha256(bytes) == (try expected[file.filename.lossyString].map(sha256)), "\(file.filename.lossyString)")
    }
    #expect(try await within(300) { try await checker.children(.trash) }.isEmpty, "nothing left in Recently Deleted")
    let stored = try FileManager.default.contentsOfDirectory(
      at: server.server.root.appendingPathComponent("content"), includingPropertiesForKeys: nil)
    #expect(
      try Set(stored.map { try sha256(try Data(contentsOf: $0)) }) == Set(try expected.values.map(sha256))
        && stored.count == expected.count,
      "the server stores each kept version once: \(stored.map(\.lastPathComponent))")
  }
}

/// One computer: a private XDG world (`FolioHome`) signed in as ana, with an opener for `.txt`
/// that writes the bytes of `edit-source` into the opened copy (an editor saving in place).
final class Machine: Sendable {
  let name: String
  let home: FolioHome
  var editSource: URL { home.root.appendingPathComponent("edit-source") }

  init(_ name: String, server: RemoteServer) throws {
    self.name = name
    home = try FolioHome(server: server, user: "ana")
    let config = home.root.appendingPathComponent("config/folio/config.toml")
    let opener = """

      [[opener]]
      extensions = ["txt"]
      command = ["cp", "\(editSource.path)", "{path}"]

      """
    let handle = try FileHandle(forWritingTo: config)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(opener.utf8))
    try handle.close()
  }

  /// What the next `folio open` of a `.txt` file saves into it.
  func setEdit(_ data: Data) throws { try data.write(to: editSource) }

  /// Runs `folio ARGS` on this computer; a run that outlives `seconds` is killed and fails the
  /// test instead of hanging it.
  func run(_ arguments: [String], seconds: Double = 300) async throws -> FolioHome.Result {
    let (p, out, err) = try home.process(arguments)
    p.standardInput = FileHandle.nullDevice
    try p.run()
    let pid = p.processIdentifier
    let box = ProcessBox(p, out, err)
    do {
      return try await within(seconds) {
        try await withTaskCancellationHandler {
          await withCheckedContinuation { (c: CheckedContinuation<FolioHome.Result, Never>) in
            DispatchQueue.global().async { c.resume(returning: box.collect()) }
          }
        } onCancel: {
          kill(pid, SIGKILL)
        }
      }
    } catch {
      throw ProviderError(.serverUnreachable, "machine \(name): folio \(arguments.joined(separator: " ")): \(error)")
    }
  }

  /// `folio sync`, which must succeed.
  func expectSync() async throws {
    let sync = try await run(["sync"])
    #expect(sync.status == 0, "machine \(name): \(sync)")
    #expect(sync.err.isEmpty, "machine \(name): \(sync)")
  }

  /// `folio get work:/NAME FOLDER` for each name into a new folder: name → the bytes received.
  func download(_ names: [String], into folder: String) async throws -> [String: Data] {
    let dest = home.root.appendingPathComponent("work/\(folder)")
    try FileManager.default.createDirectory(at: dest, withIntermediateDirectories: true)
    var out: [String: Data] = [:]
    for file in names {
      let get = try await run(["get", "work:/\(file)", dest.path])
      #expect(get.status == 0, "machine \(name): \(get)")
      out[file] = try? Data(contentsOf: dest.appendingPathComponent(file))
    }
    return out
  }

  /// The names `folio ls --json work:/` prints.
  func listing() async throws -> Set<String> {
    let ls = try await run(["ls", "--json", "work:/"])
    #expect(ls.status == 0, "machine \(name): \(ls)")
    struct Entry: Decodable { var name: String }
    return Set(try JSONDecoder().decode([Entry].self, from: Data(ls.out.utf8)).map(\.name))
  }

  /// This computer's index, read after its commands ended.
  func index() throws -> WorkingSetIndex {
    try WorkingSetIndex.open(at: home.root.appendingPathComponent("data/folio/index.sqlite"))
  }
}

/// `folio sync --json`, the part read here.
struct SyncJSON: Decodable {
  struct Transfer: Decodable {
    var direction: String
    var name: String?
    var state: String
  }
  var unfinished: [Transfer]
}

/// A started `folio` and its pipes, read to the end on a dispatch thread.
private final class ProcessBox: @unchecked Sendable {
  let process: Process
  let out: Pipe
  let err: Pipe

  init(_ process: Process, _ out: Pipe, _ err: Pipe) {
    self.process = process
    self.out = out
    self.err = err
  }

  func collect() -> FolioHome.Result {
    // Standard error on its own thread: a process filling one pipe while the other is read
    // would otherwise wait forever.
    let errData = LockedText()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
      errData.append(self.err.fileHandleForReading.readDataToEndOfFile())
      group.leave()
    }
    let o = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return FolioHome.Result(status: process.terminationStatus, out: String(decoding: o, as: UTF8.self), err: errData.text)
  }
}
