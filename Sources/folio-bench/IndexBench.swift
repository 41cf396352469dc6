import Foundation
import ProviderAPI
import WorkingSetIndex

/// Recents' first page and a full-text search over an index of N working-set rows.
enum IndexBench {
  struct Result: Codable {
    var rows: Int
    var buildSeconds: Double?
    var recentsFirst: Double
    var recentsMedian: Double
    var searchFirst: Double
    var searchMedian: Double
    var searchHits: Int
    var peakRSS: Int
  }

  static func run(file: String, rows: Int) throws -> Result {
    let url = URL(fileURLWithPath: file)
    let marker = file + ".complete-\(rows)"
    var built: Double? = nil
    if access(marker, F_OK) != 0 {
      for suffix in ["", "-wal", "-shm"] { unlink(file + suffix) }
      let index = try WorkingSetIndex.open(at: url)
      let t0 = now()
      var batch: [Item] = []
      batch.reserveCapacity(10_000)
      let base = Date(timeIntervalSince1970: 1_700_000_000)
      let words = BenchFolder.words
      for i in 0..<rows {
        let name = ItemName("\(words[i % words.count])-\(i).\(BenchFolder.extensions[i % BenchFolder.extensions.count])")
        batch.append(
          Item(
            identifier: ItemIdentifier("bench:\(i)"), parentIdentifier: .root, filename: name,
            path: ItemPath("/bench/\(i % 1000)").appending(name), contentType: .data, documentSize: Int64(i),
            contentModificationDate: base, lastUsedDate: base.addingTimeInterval(Double((i &* 7919) % rows))))
        if batch.count == 10_000 {
          try index.upsert(batch, domain: .local, insertNew: true)
          batch.removeAll(keepingCapacity: true)
        }
      }
      if !batch.isEmpty { try index.upsert(batch, domain: .local, insertNew: true) }
      try index.close()
      built = now() - t0
      close(open(marker, O_WRONLY | O_CREAT, 0o644))
    }
    let index = try WorkingSetIndex.open(at: url)
    func timed(_ body: () throws -> Void) rethrows -> Double {
      let t = now()
      try body()
      return now() - t
    }
    let recentsFirst = try timed { _ = try index.recents(limit: 200) }
    var recents: [Double] = []
    for _ in 0..<21 { recents.append(try timed { _ = try index.recents(limit: 200) }) }
    var hits = 0
    let searchFirst = try timed { hits = try index.search("invoice 4242", limit: 200).count }
    var searches: [Double] = []
    for q in ["report", "photo 99", "budget", "notes-1234", "summary 5"] {
      searches.append(try timed { _ = try index.search(q, limit: 200) })
    }
    return Result(
      rows: rows, buildSeconds: built, recentsFirst: recentsFirst, recentsMedian: median(recents),
      searchFirst: searchFirst, searchMedian: median(searches), searchHits: hits, peakRSS: peakRSS())
  }

  static func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.isEmpty ? 0 : s[s.count / 2]
  }
}
