import Foundation

/// The tables of `folio-bench remote`, in the local benchmark's layout: right-aligned columns,
/// one line per measurement, the runs behind each median on the lines after.
struct RemoteReport {
  let options: RemoteBench.Options
  let seedSeconds: Double
  let listing: RemoteBench.Listing
  let transfers: RemoteBench.Transfers
  let changes: RemoteChangeBench.Result
  let loadBefore: String
  let loadAfter: String

  func print() {
    let o = options
    let l = listing
    Swift.print("")
    Swift.print(
      "remote folder on folio serve over loopback (seeded in \(sec(seedSeconds))); first page = 200 items, median of \(o.listingRuns)")
    table(
      [
        "entries", "first page (name)", "first page (date)", "all (name)", "RSS at 1st page", "peak RSS (name, all)",
        "peak RSS (date, all)", "curl 1st page (name)", "curl 1st page (date)",
      ],
      [
        [
          grouped(o.entries), ms(median(l.byName.firstPages)), ms(median(l.byDate.firstPages)), sec(l.byName.all),
          mib(l.byName.firstPageRSS), mib(l.byName.peakRSS), mib(l.byDate.peakRSS), ms(median(l.curlByName)),
          ms(median(l.curlByDate)),
        ]
      ])
    Swift.print("  runs, first page (name): \(list(l.byName.firstPages)); (date): \(list(l.byDate.firstPages))")
    Swift.print("  runs, curl (name): \(list(l.curlByName)); (date): \(list(l.curlByDate))")

    let t = transfers
    Swift.print("")
    Swift.print(
      "\(size(t.bytes)) file through FolioServerProvider and through curl, median of \(o.transferRuns) each (MB/s = 10^6 bytes/s; the disk synced before each)")
    let down = t.folioDownloads.map(\.seconds)
    let up = t.folioUploads.map(\.seconds)
    table(
      ["transfer", "folio", "curl", "folio/curl", "folio peak RSS", "folio runs", "curl runs"],
      [
        [
          "download", rate(t.bytes, median(down)), rate(t.bytes, median(t.curlDownloads)),
          String(format: "%.2f", median(t.curlDownloads) / median(down)), mib(t.folioDownloads.map(\.peakRSS).max() ?? 0),
          list(down, sec), list(t.curlDownloads, sec),
        ],
        [
          "upload", rate(t.bytes, median(up)), rate(t.bytes, median(t.curlUploads)),
          String(format: "%.2f", median(t.curlUploads) / median(up)), mib(t.folioUploads.map(\.peakRSS).max() ?? 0),
          list(up, sec), list(t.curlUploads, sec),
        ],
      ])
    let before = (t.folioDownloads + t.folioUploads).map(\.rssBefore).max() ?? 0
    Swift.print("  folio's peak RSS before its transfer started (signed in): \(mib(before))")
    Swift.print(
      "  sha256sum of the file: \(sec(t.sha256Seconds)) (outside both clocks: curl's X-Folio-SHA256 header, and Folio's ContentDigest, as the sync engine's staged snapshot gives it)"
    )

    Swift.print("")
    Swift.print("a rename by another client (PATCH) -> the client's changes() has it, through the long-poll; \(changes.delays.count) runs")
    table(
      ["measure", "median", "min", "max"],
      [
        ["rename -> changes()", ms(median(changes.delays)), ms(changes.delays.min() ?? 0), ms(changes.delays.max() ?? 0)],
        [
          "the rename's round trip", ms(median(changes.renameRoundTrips)), ms(changes.renameRoundTrips.min() ?? 0),
          ms(changes.renameRoundTrips.max() ?? 0),
        ],
      ])
    Swift.print("")
    Swift.print("load average (1, 5, 15 min): \(loadBefore) before, \(loadAfter) after")
  }

  private func table(_ header: [String], _ rows: [[String]]) {
    let widths = header.indices.map { c in max(header[c].count, rows.map { $0[c].count }.max() ?? 0) }
    Swift.print(header.indices.map { pad(header[$0], widths[$0]) }.joined(separator: "  "))
    for r in rows { Swift.print(r.indices.map { pad(r[$0], widths[$0]) }.joined(separator: "  ")) }
  }

  private func list(_ values: [Double], _ format: (Double) -> String = ms) -> String {
    values.map(format).joined(separator: ", ")
  }

  private func rate(_ bytes: Int64, _ seconds: Double) -> String {
    String(format: "%.0f MB/s", Double(bytes) / seconds / 1e6)
  }

  private func size(_ bytes: Int64) -> String {
    bytes % (1 << 30) == 0 ? "\(bytes >> 30) GiB" : "\(bytes >> 20) MiB"
  }
}

/// The median of some measurements (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
  let s = values.sorted()
  guard !s.isEmpty else { return 0 }
  return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}
