import Foundation
import WebDAVClient
import WebDAVTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `folio-bench webdav`: Folio's WebDAV location against curl on the same private Apache mod_dav
/// server on loopback (WebDAVTestSupport's ``ApacheDAVServer``), in one run (issue 11 §6). Each
/// Folio measurement runs in a fresh child process of this executable (its own peak RSS, VmHWM) and
/// includes making its client, as each curl includes starting curl:
/// - download and upload of a `fileMiB` file, alternating Folio / curl, `runs` each. Folio's download
///   fsyncs the file before it reports it (``WebDAVProvider/fetchContents``), so curl followed by
///   `sync FILE` is printed beside plain curl. A `sync` (untimed) comes before each transfer;
/// - a folder of `entries` files made on disk in the server's folder: Folio's first sorted screen
///   (one streamed PROPFIND Depth 1 of the whole folder, sorted, the first page of `pageSize`)
///   against that PROPFIND alone, made with curl with the very body Folio sends (``PropfindBody``);
/// - a folder of `bigEntries` files: Folio's peak RSS while it lists it, beside the one at `entries`
///   and the size of the XML answer curl got, to show that the XML is streamed, never held.
enum WebDAVBench {
  struct Options {
    var fileMiB = 1024
    var runs = 3
    var entries = 20_000
    var bigEntries = 100_000
    var pageSize = 50
  }

  static let usage = """
    usage: folio-bench webdav [--file-mib 1024] [--runs 3] [--entries 20000] [--big-entries 100000]
                              [--page-size 50]

    Starts a private Apache mod_dav on loopback (apt-get install apache2 apache2-utils; also needs
    curl, sync and sha256sum) and prints, in one run: download and upload of a --file-mib MiB file
    through Folio's WebDAV provider and curl (seconds, MB/s, Folio/curl, Folio's peak RSS),
    alternating, --runs each, medians; a folder of --entries files: Folio's first sorted screen
    (--page-size items; the folder is read with one streamed PROPFIND) against curl's PROPFIND
    Depth 1 alone, same body; a folder of --big-entries files: Folio's peak RSS while it lists it
    and the size of the XML answer. Each Folio measurement runs in a fresh child process.
    Everything is removed at the end.
    Build in release mode: swift build -c release --product folio-bench
    """

  static func parse(_ args: [String]) -> Options {
    BenchArguments.parse(args, into: Options(), usage: usage, numbers: ["--file-mib": \.fileMiB, "--runs": \.runs, "--entries": \.entries, "--big-entries": \.bigEntries, "--page-size": \.pageSize])
  }

  /// The children read the account from here (not their argv, which `ps` shows).
  static let userVariable = "FOLIO_BENCH_DAV_USER"
  static let passwordVariable = "FOLIO_BENCH_DAV_PASSWORD"

  // MARK: - The parent

  static func run(_ o: Options) async throws {
    let server = try ApacheDAVServer()
    defer { server.stop() }
    setenv(userVariable, server.user, 1)
    setenv(passwordVariable, server.password, 1)
    let url = server.baseURL.absoluteString
    let curl = DAVCurl(baseURL: url, user: server.user, password: server.password)
    let bytes = Int64(o.fileMiB) << 20
    let source = server.folder + "/up.bin"
    try BenchFile.create(source, size: bytes)
    try FileManager.default.copyItem(atPath: source, toPath: server.files + "/down.bin")
    // Readable by the server, whose children run as nobody when the bench runs as root.
    chmod(server.files + "/down.bin", 0o644)
    let sum = try BenchFile.sha256(source).hex
    print(
      "folio-bench webdav: \(o.fileMiB) MiB file, \(grouped(o.entries)) and \(grouped(o.bigEntries)) entries, \(o.runs) runs; "
        + "Apache mod_dav on \(url)")

    var down: [String: [Double]] = [:]
    var up: [String: [Double]] = [:]
    var rss: [Int] = []
    for run in 1...o.runs {
      let target = server.folder + "/got-\(run).bin"
      try settle()
      let folio = try child(["_dav-get", url, "/down.bin", target], as: SFTPBench.TransferResult.self)
      down["folio", default: []].append(folio.seconds)
      rss.append(folio.peakRSS)
      try SFTPBench.check(target, sum)
      try FileManager.default.removeItem(atPath: target)
      try settle()
      down["curl", default: []].append(try SFTPBench.timed { try curl.get("down.bin", to: target) })
      try SFTPBench.check(target, sum)
      try FileManager.default.removeItem(atPath: target)
      try settle()
      down["curl + sync", default: []].append(
        try SFTPBench.timed {
          try curl.get("down.bin", to: target)
          try SFTPBench.tool("/usr/bin/env", ["sync", "--", target])
        })
      try SFTPBench.check(target, sum)
      try FileManager.default.removeItem(atPath: target)

      let name = "up-\(run).bin"
      try settle()
      let put = try child(["_dav-put", url, source, name], as: SFTPBench.TransferResult.self)
      up["folio", default: []].append(put.seconds)
      rss.append(put.peakRSS)
      try SFTPBench.check(server.files + "/" + name, sum)
      try FileManager.default.removeItem(atPath: server.files + "/" + name)
      try settle()
      up["curl", default: []].append(try SFTPBench.timed { try curl.put(source, as: name) })
      try SFTPBench.check(server.files + "/" + name, sum)
      try FileManager.default.removeItem(atPath: server.files + "/" + name)
    }
    try? FileManager.default.removeItem(atPath: server.files + "/down.bin")
    try? FileManager.default.removeItem(atPath: source)

    let small = try listing(server, curl, folder: "many", entries: o.entries, runs: o.runs, pageSize: o.pageSize)
    let big = try listing(server, curl, folder: "big", entries: o.bigEntries, runs: o.runs, pageSize: o.pageSize)

    func mbps(_ s: Double) -> String { String(format: "%.0f MB/s", Double(bytes) / s / 1e6) }
    func cell(_ s: Double) -> String { "\(sec(s)) (\(mbps(s)))" }
    func ratio(_ baseline: Double, _ folio: Double) -> String { String(format: "%.2f×", baseline / folio) }
    print("")
    print("| \(o.fileMiB) MiB | Folio | curl | Folio speed / curl | curl + sync (fsync, as Folio) | Folio speed / curl + sync | Folio peak RSS |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for (label, table) in [("download", down), ("upload", up)] {
      let f = median(table["folio"]!)
      let c = median(table["curl"]!)
      let synced = table["curl + sync"].map { median($0) }
      print(
        "| \(label) | \(cell(f)) | \(cell(c)) | \(ratio(c, f)) | "
          + (synced.map { "\(cell($0)) | \(ratio($0, f))" } ?? "– | –") + " | \(mib(rss.max() ?? 0)) |")
    }
    print("")
    print("| folder | Folio first sorted screen (\(o.pageSize)) | curl PROPFIND Depth 1 | Folio / curl | XML answer | Folio peak RSS |")
    print("|---|---:|---:|---:|---:|---:|")
    for l in [small, big] {
      let f = median(l.folio)
      let c = median(l.curl)
      print(
        "| \(grouped(l.entries)) entries (medians of \(o.runs)) | \(sec(f)) | \(sec(c)) | \(String(format: "%.2f×", f / c)) | "
          + "\(mib(l.xmlBytes)) | \(mib(l.peakRSS)) |")
    }
    print("")
    print("each run: download \(down.map { "\($0.key) \($0.value.map(sec))" }.sorted().joined(separator: "; "))")
    print("          upload \(up.map { "\($0.key) \($0.value.map(sec))" }.sorted().joined(separator: "; "))")
    for l in [small, big] {
      print(
        "          \(grouped(l.entries)) entries: Folio \(l.folio.map(sec)), curl \(l.curl.map(sec)), "
          + "Folio peak RSS \(l.rss.map(mib))")
    }
  }

  struct Listing {
    var entries: Int
    var folio: [Double] = []
    var curl: [Double] = []
    var rss: [Int] = []
    var xmlBytes = 0
    var peakRSS: Int { rss.max() ?? 0 }
  }

  /// Makes `entries` empty files in the server's `folder` (on disk, as the server's own files), then
  /// alternates Folio's first sorted screen (a child each time) and curl's PROPFIND, `runs` each.
  static func listing(
    _ server: ApacheDAVServer, _ curl: DAVCurl, folder: String, entries: Int, runs: Int, pageSize: Int
  ) throws -> Listing {
    FileHandle.standardError.write(Data("making \(grouped(entries)) files in /\(folder)…\n".utf8))
    let path = server.files + "/" + folder
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    for n in 0..<entries {
      let fd = open(path + "/file \(n).txt", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
      guard fd >= 0 else { throw BenchError("cannot make file \(n) in \(path): \(String(cString: strerror(errno)))") }
      close(fd)
    }
    defer { try? FileManager.default.removeItem(atPath: path) }
    let answer = server.folder + "/propfind-\(folder).xml"
    defer { try? FileManager.default.removeItem(atPath: answer) }
    var result = Listing(entries: entries)
    for _ in 1...runs {
      let r = try child(
        ["_dav-list", server.baseURL.absoluteString, "/" + folder, String(pageSize)], as: SFTPBench.ListingResult.self)
      guard r.count == entries else { throw BenchError("Folio listed \(r.count) of \(entries) entries in /\(folder)") }
      result.folio.append(r.first)
      result.rss.append(r.peakRSS)
      result.curl.append(try SFTPBench.timed { try curl.propfind(folder + "/", to: answer) })
      let responses = try DAVCurl.count("<D:response", in: answer)
      guard responses == entries + 1 else {
        throw BenchError("curl's PROPFIND of /\(folder) holds \(responses) responses, not \(entries + 1)")
      }
      result.xmlBytes = Int(BenchFile.size(answer) ?? 0)
    }
    return result
  }

  static func median(_ values: [Double]) -> Double { SFTPBench.median(values) }

  /// `sync` before each timed transfer, untimed: the gigabyte the one before left dirty in the page
  /// cache (a download, or the server's copy of an upload) would otherwise be flushed during the
  /// next one and slow whichever client came next (seen: the same download 1.15 s and 3.14 s).
  static func settle() throws { try SFTPBench.tool("/usr/bin/env", ["sync"]) }
}
