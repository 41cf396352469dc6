import Crypto
import Foundation

/// Group 6: bytes through files: whole and ranged fetches, progress, and the errors.
extension ConformanceKit {
  func runContent() {
    var subject: (id: String, bytes: [UInt8])?
    check("prepare-a-3-MiB-file") {
      let s = try session()
      if caps.create {
        let bytes = bytes(FixtureLayout.contentSize, seed: 6)
        let file = try create(s, parent: try scratch(s), name: "content.bin", bytes: bytes)
        try expect(file.size == nil || file.size == bytes.count, "created with \(bytes.count) bytes, the item says size \(file.size ?? -1)")
        subject = (file.id, bytes)
      } else if let file = try fixtureItem(s, FixtureLayout.contentFile) {
        subject = (file.id, FixtureLayout.contentBytes())
      } else {
        throw CheckSkip("read-only: needs --fixture PATH with \(FixtureLayout.contentFile) (docs/EXTENSIONS.md §6)")
      }
    }
    var progress: [JSONValue] = []
    check("whole-fetch-byte-exact") {
      guard let subject else { throw CheckSkip("no file to fetch") }
      let s = try session()
      let got = try fetch(s, subject.id)
      progress = got.progress
      try expect(got.bytes.count == subject.bytes.count, "dest holds \(got.bytes.count) bytes, expected \(subject.bytes.count)")
      try expect(got.bytes == subject.bytes, "dest differs from the content (first difference at \(firstDifference(got.bytes, subject.bytes)))")
      let item = try parseItem(got.result["item"], "fetchContents: item")
      try expect(item.size == subject.bytes.count, "fetchContents: item.size \(item.size ?? -1), expected \(subject.bytes.count)")
      let digest = Self.sha256(subject.bytes)
      if let stated = got.result["sha256"]?.string ?? item.sha256 {
        try expect(stated == digest, "sha256 \(stated), the bytes' is \(digest)")
      } else {
        try expect(!caps.fetchSHA256, "fetch.sha256 declared, but the answer has no sha256")
      }
    }
    check("progress-monotonic") {
      guard subject != nil else { throw CheckSkip("no file to fetch") }
      var last = -1
      for p in progress {
        guard let completed = p["completed"]?.int else { throw CheckFailure("$/progress without completed: \(p.compact)") }
        try expect(completed >= last, "$/progress went back from \(last) to \(completed)")
        if let total = p["total"]?.int { try expect(completed <= total, "$/progress completed \(completed) over total \(total)") }
        last = completed
      }
      transcript.record("!!", "\(progress.count) progress notification(s)")
    }
    check("range-bytes-at-their-offsets") {
      guard let subject else { throw CheckSkip("no file to fetch") }
      guard caps.ranges else { throw CheckSkip("not declared (fetch.ranges)") }
      let s = try session()
      for (start, end) in [(4096, 8192), (1_048_579, 2_097_152)] {
        let got = try fetch(s, subject.id, range: (start, end))
        try expect(got.bytes.count >= end, "dest holds \(got.bytes.count) bytes after a fetch of [\(start), \(end)]")
        try expect(Array(got.bytes[start..<end]) == Array(subject.bytes[start..<end]), "the bytes of [\(start), \(end)] are not at their offsets")
        if let range = got.result["range"]?.array?.compactMap(\.int), range.count == 2 {
          try expect(range[0] <= start && range[1] >= end, "the answer's range \(range) does not cover [\(start), \(end)]")
        }
      }
    }
    check("unknown-id-is-1005") {
      let s = try session()
      let dest = try downloadDestination()
      try expectError(
        s.call("fetchContents", ["id": "folio-kit-no-such-item-7f3a", "dest": .string(dest)]), [-1005], "fetchContents of an unknown id")
    }
    check("folder-fetch-is-an-error") {
      let s = try session()
      let dest = try downloadDestination()
      try expectError(s.call("fetchContents", ["id": "#root", "dest": .string(dest)]), [], "fetchContents of the root folder")
    }
  }

  static func sha256(_ bytes: [UInt8]) -> String {
    SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
  }

  func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    for i in 0..<min(a.count, b.count) where a[i] != b[i] { return i }
    return min(a.count, b.count)
  }
}
