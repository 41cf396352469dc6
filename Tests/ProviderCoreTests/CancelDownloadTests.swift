import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Cancel Download: a running or waiting download leaves the journal, its partial file goes, the
/// item stays not downloaded, and whoever waited for it is told `cancelled`.
@Suite struct CancelDownloadTests {
  @Test func aRunningDownloadIsCancelledAndLeavesNothing() async throws {
    let f = try SyncFixture()
    let file = await f.memory.add(ItemName("big.bin"), content: Data(repeating: 7, count: 4096))
    let gate = Gate()
    await f.memory.setHook { call throws(ProviderError) in if call == .fetch { await gate.pass() } }
    let waiting = Task { try await f.engine.materialize(file, in: f.domain) }
    await gate.waitForArrivals(1)
    #expect(f.storeFiles().temporary.count == 1, "the partial file")
    let id = try #require(try f.index.pendingTransfers(domain: SyncFixture.cloud).first { $0.direction == .download }?.id)

    #expect(try await f.queue.cancelDownload(id))
    await gate.open()
    let error = await #expect(throws: ProviderError.self) { _ = try await waiting.value }
    #expect(error?.code == .cancelled)
    #expect(try f.index.pendingTransfers(domain: SyncFixture.cloud).isEmpty)
    #expect(f.storeFiles().temporary.isEmpty && f.storeFiles().content.isEmpty)
    #expect(try f.index.content(domain: SyncFixture.cloud, identifier: file.identifier) == nil)
    // Not a download any more: nothing to cancel.
    #expect(try await !f.queue.cancelDownload(id))
  }

  @Test func aWaitingDownloadIsCancelledBeforeItStarts() async throws {
    let f = try SyncFixture()
    let file = await f.memory.add(ItemName("later.bin"), content: Data(repeating: 1, count: 10))
    let id = try await f.queue.enqueueDownload(file.identifier, domain: SyncFixture.cloud)
    #expect(try await f.queue.cancelDownload(id))
    #expect(try f.index.pendingTransfers(domain: SyncFixture.cloud).isEmpty)
    let report = await f.queue.drain()
    #expect(report.succeeded)
    #expect(await !f.memory.calls.contains(.fetch))
    #expect(try f.index.content(domain: SyncFixture.cloud, identifier: file.identifier) == nil)
  }
}

/// The path an opener gets for a remote file: its real name, and an editor that saves by renaming
/// over it still has its save found.
@Suite struct OpenedCopyTests {
  @Test func theOpenerGetsTheItemsNameAndInPlaceWritesReachTheStore() throws {
    let scratch = ScratchFolder()
    let root = URL(fileURLWithPath: scratch.path.lossyString).appendingPathComponent("content")
    try FileManager.default.createDirectory(at: root.appendingPathComponent("d"), withIntermediateDirectories: true)
    let stored = root.appendingPathComponent("d/0123abcd")
    try Data("one".utf8).write(to: stored)
    let opened = OpenedCopy.make(for: stored, name: ItemName("notes.md"), contentRoot: root)
    #expect(opened.url.lastPathComponent == "notes.md")
    #expect(opened.url != stored)
    // In place (through the link): the stored file is the same file.
    let h = try FileHandle(forWritingTo: opened.url)
    try h.truncate(atOffset: 0)
    try h.write(contentsOf: Data("two".utf8))
    try h.close()
    #expect(try String(contentsOf: stored, encoding: .utf8) == "two")
    #expect(!opened.settle())
    // Saved by renaming a new file over the name: settle moves it into the store.
    let temp = opened.url.deletingLastPathComponent().appendingPathComponent(".notes.md.swp")
    try Data("three".utf8).write(to: temp)
    #expect(rename(temp.path, opened.url.path) == 0)
    #expect(try String(contentsOf: stored, encoding: .utf8) == "two")
    #expect(opened.settle())
    #expect(try String(contentsOf: stored, encoding: .utf8) == "three")
    // The name is the stored file again, for a program that saves there later.
    #expect(try String(contentsOf: opened.url, encoding: .utf8) == "three")
    #expect(!opened.settle())
  }

  @Test(arguments: [
    ("a/b.txt", "a_b.txt"), ("..", "_"), (".", "_"), ("line\nbreak\u{1B}.md", "line_break_.md"), ("", "_"),
  ])
  func namesBecomeFileSystemNames(_ name: String, _ expected: String) {
    #expect(OpenedCopy.fileSystemName(ItemName(bytes: Array(name.utf8))) == expected)
  }

  @Test func aLongNameKeepsItsExtension() {
    let long = String(repeating: "x", count: 300) + ".swift"
    let made = OpenedCopy.fileSystemName(ItemName(bytes: Array(long.utf8)))
    #expect(made.utf8.count == 255)
    #expect(made.hasSuffix(".swift"))
  }
}
