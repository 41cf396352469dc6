import FolioProtocol
import FolioServerProvider
import Foundation
import ProviderAPI
import Testing

@testable import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The built `folio` in a private XDG world, with a `work` location on the test's server.
final class FolioHome: @unchecked Sendable {
  let root: URL
  let environment: [String: String]

  init(server: RemoteServer, user: String = "ana") throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent("folio-remote-cli-\(UUID().uuidString)")
    for sub in ["home", "data", "config", "cache", "work"] {
      try FileManager.default.createDirectory(at: root.appendingPathComponent(sub), withIntermediateDirectories: true)
    }
    environment = [
      "HOME": root.appendingPathComponent("home").path, "XDG_DATA_HOME": root.appendingPathComponent("data").path,
      "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
      "XDG_CACHE_HOME": root.appendingPathComponent("cache").path,
      "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC",
    ]
    let added = try run(
      ["domain", "add", "work", "--server", server.server.baseURL.absoluteString, "--user", user, "--password-stdin"],
      stdin: (RemoteServer.passwords[user] ?? "") + "\n")
    guard added.status == 0 else { throw ServerProcess.Failure.adminFailed("domain add: \(added)") }
  }

  deinit { try? FileManager.default.removeItem(at: root) }

  struct Result: CustomStringConvertible {
    var status: Int32
    var out: String
    var err: String
    var description: String { "exit \(status)\nstdout: \(out)\nstderr: \(err)" }
  }

  func process(_ arguments: [String]) throws -> (Process, Pipe, Pipe) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: try ServerProcess.binary())
    p.arguments = arguments
    p.environment = environment
    p.currentDirectoryURL = root.appendingPathComponent("work")
    let out = Pipe()
    let err = Pipe()
    p.standardOutput = out
    p.standardError = err
    return (p, out, err)
  }

  /// Runs `folio ARGS` to the end.
  func run(_ arguments: [String], stdin: String? = nil) throws -> Result {
    let (p, out, err) = try process(arguments)
    let input = Pipe()
    p.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try p.run()
    if let stdin {
      input.fileHandleForWriting.write(Data(stdin.utf8))
      try input.fileHandleForWriting.close()
    }
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return Result(status: p.terminationStatus, out: String(decoding: o, as: UTF8.self), err: String(decoding: e, as: UTF8.self))
  }

  /// Starts `folio ARGS`, waits until its stdout holds `marker`, waits `after` more, then
  /// `kill -9`s it.
  func killDuring(_ arguments: [String], when marker: String?, after: TimeInterval) async throws -> String {
    let (p, out, _) = try process(arguments)
    p.standardInput = FileHandle.nullDevice
    let collected = LockedText()
    out.fileHandleForReading.readabilityHandler = { h in collected.append(h.availableData) }
    try p.run()
    let deadline = Date().addingTimeInterval(30)
    if let marker {
      while !collected.text.contains(marker) && Date() < deadline && p.isRunning {
        try await Task.sleep(nanoseconds: 10_000_000)
      }
    }
    try await Task.sleep(nanoseconds: UInt64(after * 1e9))
    let wasRunning = p.isRunning
    kill(p.processIdentifier, SIGKILL)
    p.waitUntilExit()
    out.fileHandleForReading.readabilityHandler = nil
    #expect(wasRunning, "folio \(arguments.joined(separator: " ")) ended before the kill: \(collected.text)")
    return collected.text
  }

  func file(_ name: String, _ data: Data) throws -> String {
    let url = root.appendingPathComponent("work/\(name)")
    try data.write(to: url)
    return url.path
  }
}

final class LockedText: @unchecked Sendable {
  private let lock = NSLock()
  private var data = Data()
  func append(_ d: Data) { lock.withLock { data.append(d) } }
  var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}

/// `kill -9` of `folio put` and `folio sync` in the middle of an upload, then `folio sync`:
/// exactly the bytes arrive, once (test plan L01, I2).
extension RemoteSyncTests {
  @Test func killingFolioPutMidUploadThenSyncDeliversExactlyTheBytes() async throws {
    let server = try await RemoteServer(faults: true)
    let home = try FolioHome(server: server)
    let data = randomData(2 << 20, seed: 7)
    let path = try home.file("payload.bin", data)
    // The server holds every upload for 20 s before reading it: the kill lands mid-request even
    // when a loaded machine wakes this test's timers seconds late (3 s was not enough in CI).
    try await server.faults([FaultRule(method: "POST", pathPrefix: "/v1/uploads", kind: .delay, delayMs: 20_000)])
    let printed = try await home.killDuring(["put", path, "work:/"], when: "queued", after: 0.5)
    #expect(printed.contains("queued payload.bin"))
    try await server.faults([])
    let sync = try home.run(["sync"])
    #expect(sync.status == 0, "\(sync)")
    try await expectExactlyOnce(data, named: "payload.bin", on: server)
  }

  @Test func killingFolioSyncMidUploadThenSyncDeliversExactlyTheBytes() async throws {
    let server = try await RemoteServer(faults: true)
    let home = try FolioHome(server: server)
    let data = randomData(1 << 20, seed: 9)
    let queued = try home.run(["put", "--queue-only", try home.file("q.bin", data), "work:/"])
    #expect(queued.status == 0 && queued.out == "queued q.bin\n", "\(queued)")
    try await server.faults([FaultRule(method: "POST", pathPrefix: "/v1/uploads", kind: .delay, delayMs: 20_000)])
    _ = try await home.killDuring(["sync"], when: nil, after: 1.5)
    try await server.faults([])
    let sync = try home.run(["sync", "--json"])
    #expect(sync.status == 0, "\(sync)")
    #expect(sync.out.contains("\"direction\" : \"upload\""))
    try await expectExactlyOnce(data, named: "q.bin", on: server)
  }

  /// The server stored the upload, then the client died before its next commit (here: the
  /// same bytes are put there by another connection): the next sync recognises its own upload by
  /// its content instead of creating "once 2.bin".
  @Test func anUploadThatLandedBeforeTheCrashIsNotDuplicated() async throws {
    let server = try await RemoteServer()
    let home = try FolioHome(server: server)
    let data = randomData(300_000, seed: 11)
    let queued = try home.run(["put", "--queue-only", try home.file("once.bin", data), "work:/"])
    #expect(queued.status == 0, "\(queued)")
    let other = try RemoteClient(server, user: "ana")
    _ = try await other.provider.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("once.bin"), contentType: .data), fields: [.contents],
      contents: try other.file("once.bin", data), options: [])
    let sync = try home.run(["sync"])
    #expect(sync.status == 0, "\(sync)")
    try await expectExactlyOnce(data, named: "once.bin", on: server)
  }

  /// `folio put` of a file the folder already holds with the same bytes: "up to date", nothing
  /// queued or sent (it said "uploaded", the queue having taken the server's file for its own).
  @Test func puttingBytesTheServerAlreadyHasSaysItIsUpToDate() async throws {
    let server = try await RemoteServer()
    let home = try FolioHome(server: server)
    let data = randomData(70_000, seed: 21)
    let path = try home.file("same.bin", data)
    let first = try home.run(["put", path, "work:/"])
    #expect(first.status == 0 && first.out.contains("uploaded"), "\(first)")
    let again = try home.run(["put", path, "work:/"])
    #expect(again.status == 0, "\(again)")
    #expect(again.out == "up to date work:/same.bin (the server has these bytes; nothing was sent)\n", "\(again)")
    let queued = try home.run(["put", "--queue-only", path, "work:/"])
    #expect(queued.status == 0 && queued.out.hasPrefix("up to date"), "\(queued)")
    let sync = try home.run(["sync", "--json"])
    #expect(sync.status == 0 && !sync.out.contains("upload"), "nothing was journaled: \(sync)")
    try await expectExactlyOnce(data, named: "same.bin", on: server)

    // Other bytes under that name still go up beside it.
    let other = try home.run(["put", try home.file("same.bin", randomData(100, seed: 22)), "work:/"])
    #expect(other.status == 0 && other.out.contains("uploaded /same 2.bin"), "\(other)")
  }

  @Test func quotaExceededSaysWhatToDoAndSyncSendsItOnceFreed() async throws {
    let server = try await RemoteServer(quotas: ["ana": 1000])
    let home = try FolioHome(server: server)
    let put = try home.run(["put", try home.file("big.bin", randomData(5000, seed: 3)), "work:/"])
    #expect(put.status == 75, "\(put)")
    #expect(put.out.contains("queued big.bin"))
    #expect(put.err.contains("Free space on the server, then retry."), "\(put)")
    #expect(put.err.contains("folio sync"))
    let sync = try home.run(["sync"])
    #expect(sync.status == 75, "\(sync)")
    #expect(sync.err.split(separator: "\n").count == 1, "\(sync)")
    #expect(sync.err.contains("Free space on the server, then retry."))
    try server.server.admin(["user", "quota", "ana", "none"])
    let again = try home.run(["sync"])
    #expect(again.status == 0, "\(again)")
    #expect(again.out.contains("uploaded work:big.bin"))
  }

  @Test func getEvictPinAndLocalItemsFromTheCommandLine() async throws {
    let server = try await RemoteServer()
    let home = try FolioHome(server: server)
    let data = randomData(70_000, seed: 5)
    #expect(try home.run(["put", try home.file("doc.bin", data), "work:/"]).status == 0)
    let dest = home.root.appendingPathComponent("work/out.bin").path
    let get = try home.run(["get", "work:/doc.bin", dest])
    #expect(get.status == 0, "\(get)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: dest)) == data)
    #expect(try home.run(["get", "work:/doc.bin", dest]).err.contains("already exists"))
    #expect(try home.run(["evict", "work:/doc.bin"]).status == 0)
    #expect(try home.run(["pin", "work:/doc.bin"]).status == 0)
    let refused = try home.run(["evict", "work:/doc.bin"])
    #expect(refused.status == 1 && refused.err.contains("kept downloaded"), "\(refused)")
    #expect(try home.run(["pin", "--off", "work:/doc.bin"]).status == 0)
    #expect(try home.run(["evict", "work:/doc.bin"]).status == 0)
    let local = try home.run(["evict", dest])
    #expect(local.status == 1 && local.err.contains("on this computer"), "\(local)")
    let localPin = try home.run(["pin", dest])
    #expect(localPin.status == 1 && localPin.err.contains("on this computer"), "\(localPin)")
  }

  func expectExactlyOnce(_ data: Data, named name: String, on server: RemoteServer) async throws {
    let checker = try RemoteClient(server, user: "ana")
    let files = try await checker.children().filter { !$0.isFolder }
    #expect(files.map(\.filename.lossyString) == [name])
    let item = try #require(files.first)
    #expect(try await checker.serverBytes(item.identifier) == data)
  }
}
