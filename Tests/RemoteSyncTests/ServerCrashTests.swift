import FolioProtocol
import FolioServerProvider
import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `kill -9` of the SERVER in the middle of a transfer (test plan L01, D3, I2). The `stall` fault
/// holds the body halfway for a while, so the kill lands mid-transfer every time: nothing
/// half-written becomes visible on either side, the restarted server on the same root has the old
/// state or the complete new one, and the next sync delivers exactly the bytes.
extension RemoteSyncTests {
  @Test func killingTheServerMidDownloadCommitsNothingAndTheNextDownloadIsExact() async throws {
    let server = try await RemoteServer(faults: true)
    let ana = try RemoteClient(server, user: "ana")
    let data = randomData(3 << 20, seed: 31)
    _ = try await ana.engine.put([try ana.file("big.bin", data)], into: try await ana.root(), in: ana.domain)
    #expect(await ana.engine.queue.drain().succeeded)
    let ben = try RemoteClient(server, user: "ben")
    let item = try await ben.item("/big.bin")
    try await server.faults([
      FaultRule(method: "GET", pathPrefix: "/v1/items/\(item.identifier.rawValue)/content", kind: .stall, delayMs: 20_000)
    ])
    let halfway = waitForEvent(ben.engine.events) {
      if case .progress(let a) = $0 { a.completedBytes > 0 } else { false }
    }
    let download = Task { try await ben.engine.materialize(item, in: ben.domain) }
    #expect(await halfway.value != nil, "the download started")
    server.server.stop(signal: SIGKILL)
    let result = await download.result
    #expect((try? result.get()) == nil, "a download cut by the server's death is not a success")
    #expect(try ben.engine.store.localFile(domain: RemoteServer.work, identifier: item.identifier) == nil)
    #expect(ben.cacheFiles().isEmpty, "left behind: \(ben.cacheFiles())")

    try await server.server.start()
    await ben.engine.queue.resolve(domain: RemoteServer.work)
    let url = try await ben.engine.materialize(item, in: ben.domain)
    #expect(try sha256(try Data(contentsOf: url)) == (try sha256(data)))
  }

  /// A new file: `folio sync` is uploading it when the server dies. The restarted server shows
  /// no trace of it (no item, no upload file), and the next `folio sync` sends it, once.
  @Test func killingTheServerMidUploadLeavesNothingAndFolioSyncDeliversExactlyTheBytes() async throws {
    let server = try await RemoteServer(faults: true)
    let home = try FolioHome(server: server)
    let data = randomData(2 << 20, seed: 37)
    let queued = try home.run(["put", "--queue-only", try home.file("new.bin", data), "work:/"])
    #expect(queued.status == 0, "\(queued)")
    try await server.faults([FaultRule(method: "POST", pathPrefix: "/v1/uploads", kind: .stall, delayMs: 20_000)])
    let (sync, _, _) = try home.process(["sync"])
    sync.standardInput = FileHandle.nullDevice
    try sync.run()
    try await waitForPartialUpload(in: server, atLeast: data.count / 4)
    server.server.stop(signal: SIGKILL)
    sync.waitUntilExit()
    #expect(sync.terminationStatus == 75, "folio sync says the upload did not finish, and that it waits")

    try await server.server.start()
    #expect(try uploadFiles(of: server).isEmpty, "the partial upload file is removed at start")
    #expect(try await RemoteClient(server, user: "ana").children().isEmpty, "nothing half-uploaded is visible")
    let again = try home.run(["sync"])
    #expect(again.status == 0, "\(again)")
    try await expectExactlyOnce(data, named: "new.bin", on: server)
  }

  /// New content for an existing file: the server dies mid-body. Restarted, it still serves the
  /// old bytes, whole; the next sync sends the new ones, whole.
  @Test func killingTheServerMidReplaceKeepsTheOldContentThenSyncSendsTheNew() async throws {
    let server = try await RemoteServer(faults: true)
    let ana = try RemoteClient(server, user: "ana")
    let old = randomData(2 << 20, seed: 41)
    let new = randomData(2 << 20, seed: 43)
    _ = try await ana.engine.put([try ana.file("doc.bin", old)], into: try await ana.root(), in: ana.domain)
    #expect(await ana.engine.queue.drain().succeeded)
    let item = try await ana.item("/doc.bin")
    try await server.faults([
      FaultRule(method: "PUT", pathPrefix: "/v1/items/\(item.identifier.rawValue)/content", kind: .stall, delayMs: 20_000)
    ])
    try await ana.edit(item, new)
    let drain = Task { await ana.engine.queue.drain() }
    try await waitForPartialUpload(in: server, atLeast: new.count / 4)
    server.server.stop(signal: SIGKILL)
    #expect(!(await drain.value).succeeded)

    try await server.server.start()
    #expect(try uploadFiles(of: server).isEmpty)
    #expect(try sha256(try await ana.serverBytes(item.identifier)) == (try sha256(old)), "the old content, whole")
    #expect(await ana.engine.queue.drain().succeeded)
    #expect(try sha256(try await ana.serverBytes(item.identifier)) == (try sha256(new)), "the new content, whole")
    #expect(try await ana.children().filter { !$0.isFolder }.count == 1)
  }

  /// Waits until the server has an upload file of at least `bytes` in `uploads/` (the stall holds
  /// it there).
  func waitForPartialUpload(in server: RemoteServer, atLeast bytes: Int) async throws {
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      let sizes = try uploadFiles(of: server).map { $0.1 }
      if sizes.contains(where: { $0 >= bytes }) { return }
      try await Task.sleep(nanoseconds: 10_000_000)
    }
    Issue.record("no upload of \(bytes) bytes reached the server's uploads/ within 20 s")
  }

  func uploadFiles(of server: RemoteServer) throws -> [(String, Int)] {
    let dir = server.server.root.appendingPathComponent("uploads")
    guard FileManager.default.fileExists(atPath: dir.path) else { return [] }
    return try FileManager.default.contentsOfDirectory(atPath: dir.path).map { name in
      let attributes = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(name).path)
      return (name, (attributes[.size] as? NSNumber)?.intValue ?? 0)
    }
  }
}
