import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// The content store: staging, verified downloads, clean failures and cancellation, item keys.
@Suite struct ContentStoreTests {
  /// `folio get ITEM DEST`'s copy: byte for byte, on one filesystem (the kernel copies) and from
  /// tmpfs to disk (the kernel refuses, the ordinary copy does it); an existing DEST is refused.
  @Test func anExportIsTheSameBytesWithinAndAcrossFilesystems() async throws {
    var bytes = [UInt8](repeating: 0, count: 3 << 20)
    for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 7) }
    for sourceFolder in ["/var/tmp", "/dev/shm"] where FileManager.default.fileExists(atPath: sourceFolder) {
      let id = UUID().uuidString
      let source = URL(fileURLWithPath: "\(sourceFolder)/folio-export-src-\(id)")
      let target = URL(fileURLWithPath: "/var/tmp/folio-export-dst-\(id)")
      defer {
        try? FileManager.default.removeItem(at: source)
        try? FileManager.default.removeItem(at: target)
      }
      try Data(bytes).write(to: source)
      try await ContentStore.export(source, to: target)
      #expect(try Data(contentsOf: target) == Data(bytes), "from \(sourceFolder)")
      let again = await #expect(throws: ProviderError.self) { try await ContentStore.export(source, to: target) }
      #expect(again?.code == .filenameCollision)
    }
  }

  @Test func stagingCopiesFsyncsAndPublishesBeforeAnythingIsJournaled() async throws {
    let f = try SyncFixture()
    let source = try f.source("a.txt", "hello")
    let staged = try await f.store.stage(source, domain: SyncFixture.cloud)
    #expect(staged.size == 5)
    #expect(staged.sha256 == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
    #expect(try Data(contentsOf: staged.url) == Data("hello".utf8))
    #expect(f.storeFiles().staged == [staged.url.lastPathComponent])
    #expect(f.storeFiles().temporary.isEmpty)
    // The source can change or go: the snapshot is what will be sent.
    try FileManager.default.removeItem(at: source)
    #expect(try Data(contentsOf: staged.url) == Data("hello".utf8))
    #expect(try f.index.pendingTransfers().isEmpty)
  }

  @Test func putSaysQueuedOnlyOnceTheJournalRowAndTheStagedBytesExist() async throws {
    let f = try SyncFixture()
    let recorder = await SyncEventRecorder.follow(f.engine.events)
    let folder = await f.memory.add(ItemName("Docs"), folder: true)
    let ids = try await f.engine.put([try f.source("report.txt", "numbers")], into: folder, in: f.domain)
    #expect(ids.count == 1)
    // Before the queue ran: the row is durable (a fresh open of the index sees it) with the staged copy.
    let reopened = try WorkingSetIndex.open(at: f.indexURL)
    let row = try #require(try reopened.transfer(id: ids[0]))
    #expect(row.isCreate && row.name == ItemName("src-report.txt") && row.parentIdentifier == folder.identifier)
    let staged = URL(fileURLWithPath: try #require(row.stagedPath).lossyString)
    #expect(try Data(contentsOf: staged) == Data("numbers".utf8))
    #expect(row.sha256 == (try DurableFile.digest(of: staged)).sha256 && row.bytesTotal == 7)
    await recorder.wait { $0.contains { if case .queued(let a) = $0 { return a.transferID == ids[0] } else { return false } } }
    try reopened.close()
  }

  @Test func aDownloadIsVerifiedFsyncedRenamedAndRecorded() async throws {
    let f = try SyncFixture()
    let file = await f.memory.add(ItemName("notes.txt"), content: Data("abc".utf8))
    let url = try await f.engine.materialize(file, in: f.domain)
    #expect(url.deletingLastPathComponent() == f.store.folder(for: SyncFixture.cloud))
    #expect(url.lastPathComponent == ContentStore.key(for: file.identifier))
    #expect(try Data(contentsOf: url) == Data("abc".utf8))
    let content = try #require(try f.index.content(domain: SyncFixture.cloud, identifier: file.identifier))
    #expect(content.state == .clean && content.size == 3 && content.version == file.version)
    #expect(try f.index.item(domain: SyncFixture.cloud, identifier: file.identifier)?.isMaterialized == true)
    #expect(f.storeFiles().temporary.isEmpty)
    #expect(try f.index.pendingTransfers().isEmpty)
  }

  @Test func aShortDownloadNeverBecomesVisible() async throws {
    let f = try SyncFixture()
    let file = await f.memory.add(ItemName("big.bin"), content: Data(repeating: 7, count: 1000))
    f.provider.set { $0.truncateDownloads = true }
    await #expect(throws: ProviderError.self) { _ = try await f.engine.materialize(file, in: f.domain) }
    #expect(f.storeFiles().content.isEmpty)
    #expect(f.storeFiles().temporary.isEmpty)
    #expect(try f.index.content(domain: SyncFixture.cloud, identifier: file.identifier) == nil)
    // Every attempt was made (transient), then the person waiting was told.
    #expect(await f.memory.calls.filter { $0 == .fetch }.count == f.policy.attemptsPerDrain)
  }

  @Test func aHashThatDiffersNeverCommits() async throws {
    let f = try SyncFixture()
    let file = await f.memory.add(ItemName("a.txt"), content: Data("abc".utf8))
    f.provider.set { $0.statedHash = String(repeating: "0", count: 64) }
    let error = await #expect(throws: ProviderError.self) { _ = try await f.engine.materialize(file, in: f.domain) }
    #expect(error?.message.contains("corrupted on transfer") == true)
    #expect(f.storeFiles().content.isEmpty && f.storeFiles().temporary.isEmpty)
    // The right hash passes.
    f.provider.set { $0.statedHash = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" }
    let url = try await f.engine.materialize(file, in: f.domain)
    #expect(try Data(contentsOf: url) == Data("abc".utf8))
  }

  /// A provider that verified the bytes hands over its digest: recorded as it is, not computed
  /// again (the sentinel below is no file's hash). A digest whose size is not the file's is not
  /// believed: the file is hashed.
  @Test func aVerifiedDigestIsRecordedWithoutHashingTheFileAgain() async throws {
    let f = try SyncFixture()
    let file = await f.memory.add(ItemName("v.bin"), content: Data("abc".utf8))
    let sentinel = String(repeating: "a", count: 64)
    f.provider.set { $0.verifiedDigest = ContentDigest(size: 3, sha256: sentinel) }
    let (_, trusted) = try await f.store.download(file.identifier, domain: SyncFixture.cloud, provider: f.provider)
    #expect(trusted.sha256 == sentinel && trusted.size == 3)
    f.provider.set { $0.verifiedDigest = ContentDigest(size: 4, sha256: sentinel) }
    let (_, hashed) = try await f.store.download(file.identifier, domain: SyncFixture.cloud, provider: f.provider)
    #expect(hashed.sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" && hashed.size == 3)
  }

  /// A digest that is not a SHA-256 — an entity tag that merely looks like one, or no hash — says
  /// nothing of the SHA-256 the store records: the file is hashed here.
  @Test(arguments: [ContentDigest(size: 3, opaqueTag: String(repeating: "a", count: 64)), ContentDigest(size: 3)])
  func aDigestOfAnotherAlgorithmIsNeverRecordedAsTheSHA256(_ digest: ContentDigest) async throws {
    let f = try SyncFixture()
    let file = await f.memory.add(ItemName("t.bin"), content: Data("abc".utf8))
    f.provider.set { $0.verifiedDigest = digest }
    #expect(digest.sha256 == nil)
    let (_, content) = try await f.store.download(file.identifier, domain: SyncFixture.cloud, provider: f.provider)
    #expect(content.sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" && content.size == 3)
  }

  /// The kernel copy in steps (offsets carried from call to call) gives the same bytes; a source
  /// that is not a regular file is refused.
  @Test func aCopyInManyKernelStepsIsTheSameBytes() throws {
    var bytes = [UInt8](repeating: 0, count: (3 << 20) + 12_345)
    for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: (i &* 40_503) >> 5) }
    let id = UUID().uuidString
    let source = URL(fileURLWithPath: "/var/tmp/folio-steps-src-\(id)")
    let target = "/var/tmp/folio-steps-dst-\(id)"
    defer {
      unlink(source.path)
      unlink(target)
    }
    try Data(bytes).write(to: source)
    let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    try #require(fd >= 0)
    try DurableFile.copyContents(from: source, to: fd, step: 1 << 20)
    close(fd)
    #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == Data(bytes))
    let notFile = open("/var/tmp/folio-steps-dst2-\(id)", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    defer {
      close(notFile)
      unlink("/var/tmp/folio-steps-dst2-\(id)")
    }
    #expect(throws: ProviderError.self) { try DurableFile.copyContents(from: URL(fileURLWithPath: "/var/tmp"), to: notFile) }
  }

  @Test func aCancelledDownloadLeavesNoTemporaryFile() async throws {
    let f = try SyncFixture()
    let file = await f.memory.add(ItemName("slow.bin"), content: Data(repeating: 1, count: 10))
    let gate = Gate()
    await f.memory.setHook { call throws(ProviderError) in if call == .fetch { await gate.pass() } }
    let task = Task { try await f.store.download(file.identifier, domain: SyncFixture.cloud, provider: f.provider) }
    await gate.waitForArrivals(1)
    #expect(f.storeFiles().temporary.count == 1)
    task.cancel()
    await gate.open()
    await #expect(throws: ProviderError.self) { _ = try await task.value }
    #expect(f.storeFiles().temporary.isEmpty && f.storeFiles().content.isEmpty)
    #expect(try f.index.content(domain: SyncFixture.cloud, identifier: file.identifier) == nil)
  }

  /// Identifiers are data from a server: whatever they hold, the file stays in the domain folder.
  @Test(arguments: ["../../etc/passwd", "/abs", "a/b", "\u{1B}]0;x\u{7}", String(repeating: "x", count: 400), ""])
  func itemKeysNeverLeaveTheDomainFolder(_ raw: String) throws {
    let f = try SyncFixture()
    let url = f.store.fileURL(domain: SyncFixture.cloud, identifier: ItemIdentifier(raw))
    #expect(url.deletingLastPathComponent() == f.store.folder(for: SyncFixture.cloud))
    #expect(url.lastPathComponent.utf8.count == 64)
    #expect(url.lastPathComponent.allSatisfy { $0.isHexDigit })
  }

  @Test func domainFoldersNeverNameTheContentFolderOrItsParent() throws {
    let f = try SyncFixture()
    for name in [".", "..", ".hidden"] {
      let folder = f.store.folder(for: DomainIdentifier(unchecked: name))
      #expect(folder.deletingLastPathComponent().standardized == f.contentRoot.standardized)
      #expect(!folder.lastPathComponent.hasPrefix("."))
    }
  }

  @Test func leftoversOfDeadProcessesAreRemovedAndLiveOnesKept() async throws {
    let f = try SyncFixture()
    let folder = f.store.folder(for: SyncFixture.cloud)
    try DurableFile.makeFolder(folder)
    let dead = try SyncFixture.deadPID()
    let deadTemp = folder.appendingPathComponent(".tmp-\(dead)-abc")
    let liveTemp = folder.appendingPathComponent(".tmp-\(getpid())-abc")
    try Data("x".utf8).write(to: deadTemp)
    try Data("x".utf8).write(to: liveTemp)
    let orphan = try await f.store.stage(try f.source("o", "orphan"), domain: SyncFixture.cloud)
    let kept = try await f.store.stage(try f.source("k", "kept"), domain: SyncFixture.cloud)
    #expect(try f.store.removeLeftovers(keeping: [kept.url.path], grace: 0) == 2)
    #expect(!FileManager.default.fileExists(atPath: deadTemp.path))
    #expect(!FileManager.default.fileExists(atPath: orphan.url.path))
    #expect(FileManager.default.fileExists(atPath: liveTemp.path))
    #expect(FileManager.default.fileExists(atPath: kept.url.path))
  }
}
