import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Group 10: calls during a long download, cancellation, and `kill -9` in the middle of an upload.
extension ConformanceKit {
  func runConcurrency() {
    var big: (item: WireItem, bytes: [UInt8])?
    check("prepare-a-big-file") {
      let s = try session()
      if caps.create {
        let bytes = bytes(options.bigSize, seed: 10)
        big = (try create(s, parent: try scratch(s), name: "big.bin", bytes: bytes), bytes)
      } else if let file = try fixtureItem(s, FixtureLayout.contentFile) {
        // Read-only: the fixture's 3 MiB file stands in (the kill check needs a write and skips).
        big = (file, FixtureLayout.contentBytes())
        transcript.record("!!", "read-only: the fixture's \(FixtureLayout.contentFile) is the big file")
      } else {
        throw CheckSkip("needs write.create to upload a \(options.bigSize >> 20) MiB file, or --fixture (docs/EXTENSIONS.md §6)")
      }
    }
    check("eight-item-calls-during-a-download") {
      guard let big else { throw CheckSkip("no big file") }
      let s = try session()
      let dest = try downloadDestination()
      defer { try? FileManager.default.removeItem(atPath: dest) }
      let download = s.send("fetchContents", ["id": .string(big.item.id), "dest": .string(dest)])
      // Eight calls, never more in flight than the declared concurrency.metadata (the host's rule).
      let targets = (0..<8).map { $0 % 2 == 0 ? "#root" : big.item.id }
      let depth = max(1, min(caps.metadataDepth, 8))
      for wave in stride(from: 0, to: targets.count, by: depth) {
        let batch = Array(targets[wave..<min(wave + depth, targets.count)])
        let ids = batch.map { s.send("item", ["id": .string($0)]) }
        for (request, target) in zip(ids, batch) {
          let answered = try parseItem(try expectResult(s.wait(request, timeout: 120), "item \(target) during a download"), "item")
          try expect(answered.id == target, "item \(target) during a download answered \(answered.id)")
        }
      }
      _ = try expectResult(s.wait(download, timeout: 60, progressExtends: true), "the download")
      try expect(fileSize(dest) == big.bytes.count, "the download wrote \(fileSize(dest)) bytes")
    }
    check("cancel-answered-within-5s-and-dest-stops") {
      guard let big else { throw CheckSkip("no big file") }
      let s = try session()
      let dest = try downloadDestination()
      defer { try? FileManager.default.removeItem(atPath: dest) }
      let download = s.send("fetchContents", ["id": .string(big.item.id), "dest": .string(dest)])
      let started = Date()
      while s.progress[download] == nil && !s.hasAnswer(download) && Date().timeIntervalSince(started) < 5 {
        _ = s.process.waitForLine(after: s.process.lineCount, until: Date().addingTimeInterval(0.05))
        s.pump()
      }
      s.notify("$/cancelRequest", ["id": .number(Double(download))])
      let reply = s.wait(download, timeout: 5)
      if case .none(let why) = reply { throw CheckFailure("a cancelled fetch: \(why)") }
      try expect(reply.result != nil || reply.errorCode == -32800, "a cancelled fetch: expected -32800 or the result, got \(reply.summary)")
      let size = fileSize(dest)
      s.drain(for: 1)
      try expect(fileSize(dest) == size, "dest grew from \(size) to \(fileSize(dest)) bytes after the answer")
    }
    check("kill-9-mid-upload-then-replay-creates-once") {
      guard let big else { throw CheckSkip("no big file") }
      guard caps.create else { throw CheckSkip("not declared (write.create)") }
      let folder = try scratch(try session())
      let before = Set(try enumerateAll(try session(), folder).items.map(\.nameBytes))
      let s = try freshSession()
      let key = UUID().uuidString.lowercased()
      let name = Array("killed upload.bin".utf8)
      let request = sendCreate(s, parent: folder, name: name, contents: try stage(big.bytes), key: key)
      let started = Date()
      while s.progress[request] == nil && !s.hasAnswer(request) && Date().timeIntervalSince(started) < 0.3 {
        _ = s.process.waitForLine(after: s.process.lineCount, until: Date().addingTimeInterval(0.02))
        s.pump()
      }
      let finishedFirst = s.hasAnswer(request)
      s.process.signal(SIGKILL)
      transcript.record("!!", "SIGKILL sent to the process group")
      _ = s.process.waitForExit(until: Date().addingTimeInterval(5))
      forgetShared()
      let r = try session()
      var after = try enumerateAll(r, folder).items
      if let present = after.first(where: { $0.nameBytes == name }) {
        // Visible after the kill: only whole, as if the create had finished before it.
        let bytes = try fetch(r, present.id).bytes
        try expect(bytes.count == big.bytes.count && Self.sha256(bytes) == Self.sha256(big.bytes),
          "a partial object after kill -9: \(present.id) holds \(bytes.count) of \(big.bytes.count) bytes, or other bytes")
      }
      let made = try create(r, parent: folder, nameBytes: name, bytes: big.bytes, key: key)
      after = try enumerateAll(r, folder).items
      let named = after.filter { $0.nameBytes == name }
      try expect(named.count == 1, "\(named.count) items named 'killed upload.bin' after the replay")
      try expect(named.first?.id == made.id, "the replay answered \(made.id), the folder lists \(named.first?.id ?? "")")
      let litter = Set(after.map(\.nameBytes)).subtracting(before).subtracting([name])
      try expect(litter.isEmpty, "left behind: \(litter.map { String(decoding: $0, as: UTF8.self) }.sorted())")
      let got = try fetch(r, made.id)
      try expect(Self.sha256(got.bytes) == Self.sha256(big.bytes), "the replayed upload's bytes differ")
      if finishedFirst { transcript.record("!!", "the upload was answered before the kill landed") }
    }
  }
}
