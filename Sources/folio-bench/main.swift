import Foundation
import ProviderAPI

// folio-bench: one table, one run. Each measurement runs in a fresh child process so its peak
// RSS is its own; the floors (`ls -f | wc -l`, `ls | head`) run on the same folders in the same run.

let usage = """
  usage: folio-bench [--sizes 10000,100000,1000000] [--work DIR] [--index-rows N]
         folio-bench remote [--help]   (Folio against folio serve and curl: see its --help)
         folio-bench sftp [--help]     (Folio against sftp and scp on a private sshd: see its --help)
         folio-bench s3 [--help]       (Folio against curl and aws s3 cp on moto: see its --help)
         folio-bench webdav [--help]   (Folio against curl on a private Apache mod_dav: see its --help)
         folio-bench preview-image [--help]  (a 4000x3000 JPEG as pane cells, Folio against chafa: see its --help)
         folio-bench ext [--help]      (the extension host's per-call overhead and a 100k listing: see its --help)

  Creates (once, then reuses) folders with the given numbers of entries under DIR
  (default: $TMPDIR/folio-bench), and an index of N working-set rows (default 1000000), then prints:
  time to the first sorted page of 200 items through EnumerationService (by name and by date),
  time to enumerate everything, peak RSS, and the floors `ls -f | wc -l` and `ls | head`;
  Recents' first page and a full-text search over the index.
  Build it in release mode: swift build -c release --product folio-bench
  """

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data(("folio-bench: " + message + "\n").utf8))
  exit(1)
}

func emit<T: Encodable>(_ value: T) {
  let d = try! JSONEncoder().encode(value)
  FileHandle.standardOutput.write(d)
  FileHandle.standardOutput.write(Data("\n".utf8))
}

/// Runs this executable again with `arguments` and decodes the JSON line it prints.
func child<T: Decodable>(_ arguments: [String], as type: T.Type) throws -> T {
  let p = Process()
  p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
  if !FileManager.default.isExecutableFile(atPath: p.executableURL!.path) {
    p.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  }
  p.arguments = arguments
  let out = Pipe()
  p.standardOutput = out
  try p.run()
  let data = out.fileHandleForReading.readDataToEndOfFile()
  p.waitUntilExit()
  guard p.terminationStatus == 0 else { throw BenchError("child \(arguments) failed with status \(p.terminationStatus)") }
  return try JSONDecoder().decode(T.self, from: data)
}

func ms(_ s: Double) -> String { String(format: "%.1f ms", s * 1000) }
func sec(_ s: Double) -> String { s >= 1 ? String(format: "%.2f s", s) : ms(s) }
func mib(_ b: Int) -> String { String(format: "%.1f MiB", Double(b) / 1_048_576) }
func grouped(_ n: Int) -> String {
  let f = NumberFormatter()
  f.numberStyle = .decimal
  f.groupingSeparator = ","
  return f.string(from: NSNumber(value: n)) ?? String(n)
}
func pad(_ s: String, _ w: Int) -> String { s.count >= w ? s : String(repeating: " ", count: w - s.count) + s }

let args = Array(CommandLine.arguments.dropFirst())

if args.first == "_enumerate", args.count == 3 {
  do {
    emit(try await EnumerationBench.run(folder: args[1], sort: ItemSort.Key(rawValue: args[2]) ?? .name))
  } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_index", args.count == 3, let rows = Int(args[2]) {
  do { emit(try IndexBench.run(file: args[1], rows: rows)) } catch { fail("\(error)") }
  exit(0)
}

if args.first == "remote" {
  do { try await RemoteBench.run(RemoteBench.parse(Array(args.dropFirst()))) } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_remote-list", args.count == 5, let runs = Int(args[4]) {
  do {
    emit(
      try await RemoteListingBench.run(
        server: try RemoteServer.fromChild(url: args[1]), folder: args[2], sort: ItemSort.Key(rawValue: args[3]) ?? .name,
        runs: runs))
  } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_remote-download", args.count == 4 {
  do {
    emit(try await RemoteTransferBench.download(server: try RemoteServer.fromChild(url: args[1]), identifier: args[2], to: args[3]))
  } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_remote-upload", args.count == 6 {
  do {
    emit(
      try await RemoteTransferBench.upload(
        server: try RemoteServer.fromChild(url: args[1]), file: args[2], parent: args[3], name: args[4],
        sha256: args[5]))
  } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_remote-changes", args.count == 4, let runs = Int(args[3]) {
  do {
    emit(try await RemoteChangeBench.run(server: try RemoteServer.fromChild(url: args[1]), folder: args[2], runs: runs))
  } catch { fail("\(error)") }
  exit(0)
}

if args.first == "ext" {
  do { try await ExtensionBench.run(ExtensionBench.parse(Array(args.dropFirst()))) } catch { fail("\(error)") }
  exit(0)
}
if args.first == "s3" {
  do { try await S3Bench.run(S3Bench.parse(Array(args.dropFirst()))) } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_s3-get", args.count == 4 {
  do { emit(try await S3Bench.download(url: args[1], remote: args[2], to: args[3])) } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_s3-put", args.count == 6 {
  do { emit(try await S3Bench.upload(url: args[1], file: args[2], name: args[3], sha256: args[4], mode: args[5])) } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_s3-list", args.count == 3 {
  do { emit(try await S3Bench.list(url: args[1], folder: args[2])) } catch { fail("\(error)") }
  exit(0)
}
if args.first == "webdav" {
  do { try await WebDAVBench.run(WebDAVBench.parse(Array(args.dropFirst()))) } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_dav-get", args.count == 4 {
  do { emit(try await WebDAVBench.download(url: args[1], remote: args[2], to: args[3])) } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_dav-put", args.count == 4 {
  do { emit(try await WebDAVBench.upload(url: args[1], file: args[2], name: args[3])) } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_dav-list", args.count == 4, let pageSize = Int(args[3]) {
  do { emit(try await WebDAVBench.list(url: args[1], folder: args[2], pageSize: pageSize)) } catch { fail("\(error)") }
  exit(0)
}
if args.first == "sftp" {
  do { try await SFTPBench.run(SFTPBench.parse(Array(args.dropFirst()))) } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_sftp-get", args.count == 4 {
  do { emit(try await SFTPBench.download(config: args[1], remote: args[2], to: args[3])) } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_sftp-put", args.count == 4 {
  do { emit(try await SFTPBench.upload(config: args[1], file: args[2], name: args[3])) } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_sftp-changes", args.count == 4, let runs = Int(args[3]) {
  do { emit(try await SFTPBench.changes(config: args[1], folder: args[2], runs: runs)) } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_sftp-list", args.count == 3 {
  do { emit(try await SFTPBench.list(config: args[1], folder: args[2])) } catch { fail("\(error)") }
  exit(0)
}

if args.first == "preview-image" {
  do { try PreviewImageBench.run(PreviewImageBench.parse(Array(args.dropFirst()))) } catch { fail("\(error)") }
  exit(0)
}
if args.first == "_preview-image", args.count == 6, let runs = Int(args[2]), let columns = Int(args[3]),
  let rows = Int(args[4])
{
  do {
    emit(try PreviewImageBench.measure(path: args[1], runs: runs, columns: columns, rows: rows, fullSize: args[5] == "full"))
  } catch { fail("\(error)") }
  exit(0)
}

var sizes = [10_000, 100_000, 1_000_000]
var work = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/var/tmp") + "/folio-bench"
var indexRows = 1_000_000
var i = 0
while i < args.count {
  switch args[i] {
  case "--help", "-h":
    print(usage)
    exit(0)
  case "--sizes" where i + 1 < args.count:
    sizes = args[i + 1].split(separator: ",").compactMap { Int($0) }
    i += 1
  case "--work" where i + 1 < args.count:
    work = args[i + 1]
    i += 1
  case "--index-rows" where i + 1 < args.count:
    indexRows = Int(args[i + 1]) ?? indexRows
    i += 1
  default:
    fail("unknown argument \(args[i])\n\(usage)")
  }
  i += 1
}

do {
  try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
  print("folio-bench: \(ProcessInfo.processInfo.activeProcessorCount) cores, work dir \(work)")
  var rows: [[String]] = []
  for n in sizes {
    FileHandle.standardError.write(Data("preparing a folder of \(grouped(n)) entries…\n".utf8))
    let folder = try BenchFolder.ensure("\(work)/folder-\(n)", count: n)
    _ = try Floors.lsUnsorted(folder)  // warm the cache so every tool starts equal
    let byName = try child(["_enumerate", folder, "name"], as: EnumerationBench.Result.self)
    let byDate = try child(["_enumerate", folder, "date"], as: EnumerationBench.Result.self)
    let lsF = try Floors.lsUnsorted(folder)
    let lsHead = try Floors.lsSortedHead(folder)
    guard byName.count == n, byDate.count == n else {
      throw BenchError("enumerated \(byName.count)/\(byDate.count) of \(n) entries")
    }
    rows.append([
      grouped(n), ms(byName.firstPage), ms(byDate.firstPage), sec(byName.all), mib(byName.firstPageRSS),
      mib(byName.peakRSS), mib(byDate.peakRSS),
      ms(lsF), ms(lsHead),
    ])
  }
  let header = [
    "entries", "first page (name)", "first page (date)", "all (name)", "RSS at 1st page", "peak RSS (name, all)",
    "peak RSS (date, all)",
    "ls -f | wc -l", "ls | head",
  ]
  let widths = header.indices.map { c in max(header[c].count, rows.map { $0[c].count }.max() ?? 0) }
  print("")
  print(header.indices.map { pad(header[$0], widths[$0]) }.joined(separator: "  "))
  for r in rows { print(r.indices.map { pad(r[$0], widths[$0]) }.joined(separator: "  ")) }

  FileHandle.standardError.write(Data("preparing an index of \(grouped(indexRows)) working-set rows…\n".utf8))
  let idx = try child(["_index", "\(work)/index-\(indexRows).sqlite", String(indexRows)], as: IndexBench.Result.self)
  print("")
  print("index of \(grouped(idx.rows)) working-set rows" + (idx.buildSeconds.map { " (built in \(sec($0)))" } ?? ""))
  print("  Recents first page (200): first \(ms(idx.recentsFirst)), median \(ms(idx.recentsMedian))")
  print("  FTS search (200 max):     first \(ms(idx.searchFirst)) (\(idx.searchHits) hits), median \(ms(idx.searchMedian))")
  print("  peak RSS: \(mib(idx.peakRSS))")
} catch {
  fail("\(error)")
}
