import Foundation
import Testing

/// folio-ext-sqlite interrupted: a cancel during a download and during an upload, metadata calls
/// answered while a transfer waits, `kill -9` in the middle of an upload, SIGTERM.
///
/// The transfers go through named pipes the test writes or reads itself, so that each cancel or
/// kill lands while the transfer is provably under way (its first `$/progress` was seen), whatever
/// the speed of the machine.
extension SqliteExtensionTests {
  /// Opens the test's end of a FIFO the extension was just asked to use; blocks until the
  /// extension opens its end (it does, working on the request).
  static func open(_ fifo: String, _ flags: Int32) throws -> Int32 {
    let fd = Foundation.open(fifo, flags)
    guard fd >= 0 else { throw ExtensionProcess.Failure("cannot open \(fifo)") }
    return fd
  }

  static func write(_ fd: Int32, _ data: Data) {
    data.withUnsafeBytes { raw in
      var done = 0
      while done < raw.count {
        let n = Foundation.write(fd, raw.baseAddress! + done, raw.count - done)
        if n <= 0 { return }
        done += n
      }
    }
  }

  @Test func cancelledDownloadIsAnsweredCancelledAndMetadataIsAnsweredMeanwhile() throws {
    let scratch = try Scratch()
    let ext = try ExtensionProcess.sqlite(scratch, root: try scratch.folder("store"))
    let bytes = Scratch.bytes(4 * 1_048_576)
    let id = try #require(
      try Self.create(ext, scratch, name: "big", bytes: bytes, key: "big")["result"]["item"]["id"].string)
    let dest = try scratch.fifo("dl")
    let request = try ext.request("fetchContents", ["id": .string(id), "dest": .string(dest)])
    // The reader takes the first MiB, then stops until the cancel is sent: the extension is held
    // in its second write meanwhile. Then it drains to the end (the extension closes `dest`).
    let reader = try Self.open(dest, O_RDONLY)
    let cancelSent = DispatchSemaphore(value: 0)
    let drain = Thread {
      var sink = [UInt8](repeating: 0, count: 1 << 16)
      var total = 0
      while total < 1_048_576 {
        let n = read(reader, &sink, sink.count)
        if n <= 0 { break }
        total += n
      }
      cancelSent.wait()
      while read(reader, &sink, sink.count) > 0 {}
      close(reader)
    }
    drain.start()
    #expect(ext.waitForProgress(of: request), "the download is under way")
    // The download is held by the pipe: eight metadata calls are answered all the same.
    let ids = try (0..<8).map { _ in try ext.request("item", ["id": .string(id)]) }
    for rid in ids { #expect(try ext.answer(to: rid)["result"]["id"] == .string(id)) }
    try ext.notify("$/cancelRequest", ["id": .int(request)])
    // Lines are read in order, and the reader flags a cancel as it reads it: once a request sent
    // after the cancel is answered, the flag is up, and the download, freed only now, stops at its
    // next check. Freed before, it could finish first under load (then answered with its result,
    // as the contract allows), and the test would prove nothing about the cancel.
    let after = try ext.request("item", ["id": .string(id)])
    #expect(try ext.answer(to: after)["result"]["id"] == .string(id))
    cancelSent.signal()
    let answer = try ext.answer(to: request)
    #expect(answer["error"]["code"] == -32800, "\(answer)")
    #expect(ext.progress(of: request).compactMap { $0["completed"].int }.allSatisfy { $0 < bytes.count })
  }

  @Test func cancelledUploadLeavesNothingAndCreatesNothing() throws {
    let scratch = try Scratch()
    let store = try scratch.folder("store")
    let ext = try ExtensionProcess.sqlite(scratch, root: store)
    let upload = try scratch.fifo("up")
    let request = try ext.request(
      "createItem",
      [
        "key": "k-cancel", "template": ["parent": "#root", "name": "never.bin", "kind": "file"],
        "fields": ["name", "parent", "contents"], "contents": .string(upload),
      ])
    let writer = try Self.open(upload, O_WRONLY)
    Self.write(writer, Scratch.bytes(1_048_576))
    #expect(ext.waitForProgress(of: request), "the upload is under way")
    try ext.notify("$/cancelRequest", ["id": .int(request)])
    Self.write(writer, Scratch.bytes(1_048_576, seed: 2))  // the read returns; the cancel is seen
    close(writer)
    let answer = try ext.answer(to: request)
    #expect(answer["error"]["code"] == -32800, "\(answer)")
    #expect(scratch.list("store/staging").isEmpty, "the staged bytes are removed: \(scratch.list("store/staging"))")
    #expect(try ext.listAll("#root").items.isEmpty)
  }

  /// `kill -9` halfway through an upload, then a restart: the item is absent, nothing partial is
  /// left, and the same key creates it exactly once.
  @Test func killedMidUploadThenRestartLeavesNothingPartial() throws {
    let scratch = try Scratch()
    let store = try scratch.folder("store")
    let first = try ExtensionProcess.sqlite(scratch, root: store)
    let upload = try scratch.fifo("up")
    let template: JSON = ["parent": "#root", "name": "killed.bin", "kind": "file"]
    let request = try first.request(
      "createItem",
      ["key": "k-kill", "template": template, "fields": ["name", "parent", "contents"], "contents": .string(upload)])
    let writer = try Self.open(upload, O_WRONLY)
    defer { close(writer) }
    Self.write(writer, Scratch.bytes(2 * 1_048_576))
    #expect(first.waitForProgress(of: request), "the upload is under way")
    #expect(!scratch.list("store/staging").isEmpty, "the upload is staged under its key's name")
    first.signal(SIGKILL)
    #expect(first.waitForExit(timeout: 30) != nil)

    let second = try ExtensionProcess.sqlite(scratch, root: store)
    #expect(scratch.list("store/staging").isEmpty, "a restart sweeps what the killed upload left")
    #expect(try second.listAll("#root").items.isEmpty, "nothing partial is visible")
    let bytes = Scratch.bytes(2 * 1_048_576 + 5)
    let whole = try scratch.file("whole", bytes)
    let params: JSON = [
      "key": "k-kill", "template": template, "fields": ["name", "parent", "contents"], "contents": .string(whole),
    ]
    let made = try second.result("createItem", params)
    let again = try second.result("createItem", params)
    #expect(made["item"]["id"] == again["item"]["id"])
    #expect(made["item"]["sha256"] == .string(Self.sha256(bytes)))
    #expect(try second.listAll("#root").items.count == 1)
    let blobs = scratch.list("store/blobs")
    #expect(blobs.count == 1, "one blob, no orphan: \(blobs)")
  }

  @Test func sigtermEndsTheProcessWithStatusZero() throws {
    let scratch = try Scratch()
    let ext = try ExtensionProcess.sqlite(scratch, root: try scratch.folder("store"))
    #expect(try ext.result("item", ["id": "#root"])["id"] == "#root")
    ext.signal(SIGTERM)
    let status = ext.waitForExit(timeout: 30)
    #expect(status == 0, "status \(String(describing: status))")
  }
}
