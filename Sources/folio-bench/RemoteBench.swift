import FolioProtocol
import Foundation
import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `folio-bench remote`: Folio against a real `folio serve` on loopback, next to `curl` against the
/// same server, in one run.
///
/// The server is another process (the built `folio`, started through TestSupport's ServerProcess
/// on a fresh root under the work folder), so the client's memory is measured alone. As in the
/// local benchmark, each Folio measurement runs in a fresh child process of this executable and
/// reports its own peak RSS (VmHWM):
/// - the first sorted page of a folder of `entries` items (seeded with `folio serve admin seed`
///   while the server is stopped), by name and by date, median of `listingRuns`, and the whole
///   folder once; the floor is curl fetching the same page;
/// - download and upload of a `fileBytes` file through FolioServerProvider and through curl,
///   alternating, `transferRuns` each: throughput, the ratio, Folio's peak RSS;
/// - a rename by another client → the measured client's `changes()` has it, through the long-poll.
enum RemoteBench {
  struct Options {
    var entries = 100_000
    var fileBytes: Int64 = 1 << 30
    var listingRuns = 5
    var transferRuns = 3
    var changeRuns = 9
    var work = "/var/tmp/folio-bench-remote"
  }

  static let usage = """
    usage: folio-bench remote [--entries 100000] [--file-mib 1024] [--runs 5] [--transfer-runs 3]
                              [--change-runs 9] [--work DIR]

    Starts `folio serve` (the folio binary built next to folio-bench) on loopback with a fresh root
    under DIR (default /var/tmp/folio-bench-remote), seeds a folder of N entries, and prints: the
    first sorted page (200 items) through FolioServerProvider and the EnumerationService, by name
    and by date (median of --runs), the whole folder, peak RSS, and curl fetching the same page;
    download and upload of a file of --file-mib MiB through Folio and through curl (MB/s, the
    ratio, Folio's peak RSS); the delay from another client's rename to changes() having it.
    Everything it creates under DIR is removed at the end. Needs curl and sha256sum.
    Build both in release mode: swift build -c release --product folio --product folio-bench
    """

  static func parse(_ args: [String]) -> Options {
    var o = Options()
    var i = 0
    func value() -> String {
      guard i + 1 < args.count else { fail("\(args[i]) needs a value\n\(usage)") }
      i += 1
      return args[i]
    }
    func number(_ s: String) -> Int {
      guard let n = Int(s), n > 0 else { fail("not a positive number: \(s)") }
      return n
    }
    while i < args.count {
      switch args[i] {
      case "--help", "-h":
        print(usage)
        exit(0)
      case "--entries": o.entries = number(value())
      case "--file-mib": o.fileBytes = Int64(number(value())) << 20
      case "--runs": o.listingRuns = number(value())
      case "--transfer-runs": o.transferRuns = number(value())
      case "--change-runs": o.changeRuns = number(value())
      case "--work": o.work = value()
      default: fail("unknown argument \(args[i])\n\(usage)")
      }
      i += 1
    }
    return o
  }

  static func run(_ o: Options) async throws {
    guard CurlClient.available() else { throw BenchError("curl is not installed (apt-get install curl)") }
    try FileManager.default.createDirectory(atPath: o.work, withIntermediateDirectories: true)
    // ServerProcess makes its root under the temporary directory; the children write there too.
    setenv("TMPDIR", o.work, 1)
    let password = UUID().uuidString
    setenv(RemoteServer.passwordVariable, password, 1)
    let binary = try ServerProcess.binary()
    let loadBefore = loadAverage()
    print("folio-bench remote: \(ProcessInfo.processInfo.activeProcessorCount) cores, load \(loadBefore), work dir \(o.work)")
    print("server: \(binary)\(binary.contains("/release/") ? "" : "  (not a release build)")")

    let server = try await ServerProcess(users: [RemoteServer.benchUser: password, RemoteServer.otherUser: password])
    defer {
      server.stop()
      try? FileManager.default.removeItem(at: server.root)
    }
    // Seeded while stopped, so the restarted server's change log starts at the seeded end.
    server.stop()
    note("seeding a folder of \(grouped(o.entries)) entries…")
    let t0 = now()
    let folder = try server.admin(
      ["seed", "--folder", "bench-\(o.entries)", "--entries", String(o.entries), "--owner", RemoteServer.benchUser]
    ).trimmingCharacters(in: .whitespacesAndNewlines)
    let seedSeconds = now() - t0
    try await server.start()
    let url = server.baseURL.absoluteString
    let curl = try CurlClient.signIn(baseURL: url, user: RemoteServer.benchUser, password: password)

    let listing = try measureListing(o, url: url, folder: folder, curl: curl)
    let transfers = try measureTransfers(o, url: url, curl: curl)
    note("measuring change delays…")
    let changes = try child(["_remote-changes", url, "root", String(o.changeRuns)], as: RemoteChangeBench.Result.self)

    RemoteReport(
      options: o, seedSeconds: seedSeconds, listing: listing, transfers: transfers, changes: changes,
      loadBefore: loadBefore, loadAfter: loadAverage()
    ).print()
  }

  // MARK: Listing

  struct Listing {
    var byName: RemoteListingBench.Result
    var byDate: RemoteListingBench.Result
    var curlByName: [Double]
    var curlByDate: [Double]
  }

  static func measureListing(_ o: Options, url: String, folder: String, curl: CurlClient) throws -> Listing {
    note("listing the folder through Folio…")
    let runs = String(o.listingRuns)
    let byName = try child(["_remote-list", url, folder, "name", runs], as: RemoteListingBench.Result.self)
    let byDate = try child(["_remote-list", url, folder, "date", runs], as: RemoteListingBench.Result.self)
    guard byName.count == o.entries, byDate.count == o.entries else {
      throw BenchError("enumerated \(byName.count)/\(byDate.count) of \(o.entries) entries")
    }
    note("listing the first page with curl…")
    // The same request the provider sends for its first page (folders first, 200 items).
    func curlPage(_ sort: String) throws -> [Double] {
      try (0..<o.listingRuns).map { _ in
        let (seconds, body) = try curl.get(
          "/v1/items/\(folder)/children?sort=\(sort)&order=asc&foldersFirst=1&limit=200")
        let page = try JSONDecoder().decode(PageResponse.self, from: body)
        guard page.items.count == 200 else { throw BenchError("curl's page held \(page.items.count) items") }
        return seconds
      }
    }
    return Listing(byName: byName, byDate: byDate, curlByName: try curlPage("name"), curlByDate: try curlPage("date"))
  }

  // MARK: Transfers

  struct Transfers {
    var bytes: Int64
    var sha256Seconds: Double
    var folioDownloads: [RemoteTransferBench.Result] = []
    var curlDownloads: [Double] = []
    var folioUploads: [RemoteTransferBench.Result] = []
    var curlUploads: [Double] = []
  }

  /// Uploads, then downloads of the first uploaded file; Folio and curl take turns going first.
  static func measureTransfers(_ o: Options, url: String, curl: CurlClient) throws -> Transfers {
    let source = "\(o.work)/source-\(o.fileBytes).bin"
    let target = "\(o.work)/downloaded.bin"
    unlink(source)
    unlink(target)
    defer {
      unlink(source)
      unlink(target)
    }
    note("writing a file of \(grouped(Int(o.fileBytes))) bytes…")
    try BenchFile.create(source, size: o.fileBytes)
    let (sha, shaSeconds) = try BenchFile.sha256(source)
    var t = Transfers(bytes: o.fileBytes, sha256Seconds: shaSeconds)
    var uploaded: [String] = []
    defer { for id in uploaded { try? curl.delete(id) } }

    for run in 1...o.transferRuns {
      note("upload \(run) of \(o.transferRuns)…")
      func viaCurl() throws {
        settle()
        let (transfer, item) = try curl.upload(source, sha256: sha, parent: "root", name: "curl-\(run).bin")
        uploaded.append(item.id)
        guard transfer.bytes == o.fileBytes, item.size == o.fileBytes, item.sha256 == sha else {
          throw BenchError("curl's upload stored \(item.size ?? -1) bytes")
        }
        t.curlUploads.append(transfer.seconds)
      }
      func viaFolio() throws {
        settle()
        let r = try child(["_remote-upload", url, source, "root", "folio-\(run).bin", sha], as: RemoteTransferBench.Result.self)
        if let id = r.identifier { uploaded.append(id) }
        guard r.bytes == o.fileBytes else { throw BenchError("Folio's upload stored \(r.bytes) bytes") }
        t.folioUploads.append(r)
      }
      if run % 2 == 1 {
        try viaCurl()
        try viaFolio()
      } else {
        try viaFolio()
        try viaCurl()
      }
    }
    // Keep the first upload to download; the others only take disk space.
    for id in uploaded.dropFirst() { try curl.delete(id) }
    uploaded = Array(uploaded.prefix(1))
    guard let file = uploaded.first else { throw BenchError("nothing was uploaded") }

    for run in 1...o.transferRuns {
      note("download \(run) of \(o.transferRuns)…")
      func viaCurl() throws {
        settle()
        let transfer = try curl.download(file, to: target)
        guard transfer.bytes == o.fileBytes, BenchFile.size(target) == o.fileBytes else {
          throw BenchError("curl downloaded \(transfer.bytes) bytes")
        }
        if run == 1, try BenchFile.sha256(target).hex != sha { throw BenchError("curl's download has another SHA-256") }
        t.curlDownloads.append(transfer.seconds)
        unlink(target)
      }
      func viaFolio() throws {
        settle()
        let r = try child(["_remote-download", url, file, target], as: RemoteTransferBench.Result.self)
        // fetchContents itself checked the length and the SHA-256 the server sent.
        guard r.bytes == o.fileBytes, BenchFile.size(target) == o.fileBytes else {
          throw BenchError("Folio downloaded \(r.bytes) bytes")
        }
        t.folioDownloads.append(r)
        unlink(target)
      }
      if run % 2 == 1 {
        try viaCurl()
        try viaFolio()
      } else {
        try viaFolio()
        try viaCurl()
      }
    }
    return t
  }

  // MARK: Helpers

  /// Writes every dirty page to disk before a transfer, outside its clock: Folio's download ends
  /// with an `fsync` (curl's does not), and the server's uploads with one, so whoever ran while the
  /// previous transfer's gigabyte was still being written back waited for it (runs of 1.0 s and
  /// 2.3 s in one series). Each transfer now starts on a quiet disk.
  static func settle() { sync() }

  static func note(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }

  /// The 1, 5 and 15 minute load averages (/proc/loadavg).
  static func loadAverage() -> String {
    guard let s = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "?" }
    return s.split(separator: " ").prefix(3).joined(separator: " ")
  }
}
