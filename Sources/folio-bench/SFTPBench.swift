import Foundation
import ProviderAPI
import ProviderCore
import WorkingSetIndex
import SFTPClient
import SFTPProvider
import SSHTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `folio-bench sftp`: Folio's SFTP location against OpenSSH's own `sftp` and `scp`, all three on
/// the same private sshd on loopback (SSHTestSupport: its own host key, user key and config), in
/// one run. Each Folio measurement runs in a fresh child process of this executable, so its peak
/// RSS (VmHWM) is its own, and each includes starting ssh and signing in, as `sftp -b` and `scp`
/// do:
/// - download and upload of a `fileMiB` file, alternating Folio / sftp / scp, `runs` each;
/// - a folder of `entries` files: Folio's first sorted page (200, by name) against `sftp`'s
///   `ls -1` of the whole folder (READDIR has no order: both read all of it), then Folio's second
///   visit in the same process (the last reading, checked by one STAT);
/// - a file made on the server while its folder is on screen: the delay until the change poller
///   (the browser's, with its standard cadence) has it, `changeRuns` times at random moments.
enum SFTPBench {
  struct Options {
    var entries = 100_000
    var fileMiB = 1024
    var runs = 3
    var changeRuns = 5
  }

  static let usage = """
    usage: folio-bench sftp [--entries 100000] [--file-mib 1024] [--runs 3] [--change-runs 5]

    Starts a private sshd on loopback (needs /usr/sbin/sshd, ssh, sftp, scp, sha256sum) and prints:
    download and upload of a --file-mib MiB file through Folio's SFTP provider, `sftp -b` and
    `scp` (seconds, MB/s, Folio/sftp ratio, Folio's peak RSS), alternating, --runs each; and a
    folder of --entries files: Folio's first sorted page (connect included) against
    `sftp -b` `ls -1` of it, and Folio's second visit; the delay from a file made on the server to
    the change poller having it, for the folder on screen (median of --change-runs, each at a
    random moment of the 20 s cadence). Everything is removed at the end.
    Build in release mode: swift build -c release --product folio-bench
    """

  static func parse(_ args: [String]) -> Options {
    BenchArguments.parse(args, into: Options(), usage: usage, numbers: ["--entries": \.entries, "--file-mib": \.fileMiB, "--runs": \.runs, "--change-runs": \.changeRuns])
  }

  struct TransferResult: Codable {
    var seconds: Double
    var peakRSS: Int
  }

  struct ChangeResult: Codable {
    var delays: [Double]
  }

  struct ListingResult: Codable {
    var first: Double
    var second: Double
    var count: Int
    var peakRSS: Int
  }

  // MARK: - The parent

  static func run(_ o: Options) async throws {
    let server = try PrivateSSHServer()
    defer {
      server.stop()
      try? FileManager.default.removeItem(atPath: server.folder)
    }
    let config = try server.configuration(name: "bench").configFile ?? ""
    let bytes = Int64(o.fileMiB) << 20
    let source = server.folder + "/up.bin"
    try BenchFile.create(source, size: bytes)
    try FileManager.default.copyItem(atPath: source, toPath: server.files + "/down.bin")
    let sum = try BenchFile.sha256(source).hex
    print("folio-bench sftp: \(o.fileMiB) MiB file, \(grouped(o.entries)) entries, \(o.runs) runs; sshd on 127.0.0.1:\(server.port)")

    var down: [String: [Double]] = [:]
    var up: [String: [Double]] = [:]
    var rss: [Int] = []
    for run in 1...o.runs {
      let target = server.folder + "/got-\(run).bin"
      let folio = try child(["_sftp-get", config, "/down.bin", target], as: TransferResult.self)
      down["folio", default: []].append(folio.seconds)
      rss.append(folio.peakRSS)
      try check(target, sum)
      down["sftp", default: []].append(try timed { try sftp(config, "get \(server.files)/down.bin \(target)") })
      try check(target, sum)
      down["scp", default: []].append(try timed { try tool("/usr/bin/scp", ["-q", "-F", config, "sftp-test:\(server.files)/down.bin", target]) })
      try check(target, sum)
      try? FileManager.default.removeItem(atPath: target)

      let name = "up-\(run).bin"
      let put = try child(["_sftp-put", config, source, name], as: TransferResult.self)
      up["folio", default: []].append(put.seconds)
      rss.append(put.peakRSS)
      try check(server.files + "/" + name, sum)
      try FileManager.default.removeItem(atPath: server.files + "/" + name)
      up["sftp", default: []].append(try timed { try sftp(config, "put \(source) \(server.files)/\(name)") })
      try FileManager.default.removeItem(atPath: server.files + "/" + name)
      up["scp", default: []].append(try timed { try tool("/usr/bin/scp", ["-q", "-F", config, source, "sftp-test:\(server.files)/\(name)"]) })
      try FileManager.default.removeItem(atPath: server.files + "/" + name)
      // `put -f` asks the server to fsync, as Folio's safe replace does before its rename.
      up["sftp -f", default: []].append(try timed { try sftp(config, "put -f \(source) \(server.files)/\(name)") })
      try FileManager.default.removeItem(atPath: server.files + "/" + name)
    }
    try? FileManager.default.removeItem(atPath: server.files + "/down.bin")
    try? FileManager.default.removeItem(atPath: source)

    let many = server.files + "/many"
    try FileManager.default.createDirectory(atPath: many, withIntermediateDirectories: true)
    for n in 0..<o.entries {
      let fd = open(many + "/file \(n).txt", O_WRONLY | O_CREAT | O_EXCL, 0o644)
      if fd >= 0 { close(fd) }
    }
    var first: [Double] = []
    var second: [Double] = []
    var lsTimes: [Double] = []
    var listRSS = 0
    for _ in 1...o.runs {
      let r = try child(["_sftp-list", config, "/many"], as: ListingResult.self)
      guard r.count == o.entries else { throw BenchError("Folio listed \(r.count) of \(o.entries) entries") }
      first.append(r.first)
      second.append(r.second)
      listRSS = max(listRSS, r.peakRSS)
      lsTimes.append(try timed { try sftp(config, "ls -1 \(many)") })
    }

    try FileManager.default.removeItem(atPath: many)
    try FileManager.default.createDirectory(atPath: server.files + "/watched", withIntermediateDirectories: true)
    let changes = try child(["_sftp-changes", config, "/watched", String(o.changeRuns)], as: ChangeResult.self)

    func mbps(_ s: Double) -> String { String(format: "%.0f MB/s", Double(bytes) / s / 1e6) }
    print("")
    print("| \(o.fileMiB) MiB | Folio | sftp | scp | Folio speed / sftp | sftp put -f (fsync, as Folio) | Folio speed / sftp -f | Folio peak RSS |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for (label, table) in [("download", down), ("upload", up)] {
      let f = median(table["folio"]!)
      let s = median(table["sftp"]!)
      let c = median(table["scp"]!)
      let synced = table["sftp -f"].map { median($0) }
      print(
        "| \(label) | \(sec(f)) (\(mbps(f))) | \(sec(s)) (\(mbps(s))) | \(sec(c)) (\(mbps(c))) | \(String(format: "%.2f×", s / f)) | "
          + (synced.map { "\(sec($0)) (\(mbps($0))) | \(String(format: "%.2f×", $0 / f))" } ?? "– | –") + " | \(mib(rss.max() ?? 0)) |"
      )
    }
    print("")
    print("| \(grouped(o.entries)) entries | Folio first sorted page | sftp ls -1 | Folio / sftp | Folio second visit | Folio peak RSS |")
    print("|---|---:|---:|---:|---:|---:|")
    let f = median(first)
    let l = median(lsTimes)
    print("| medians of \(o.runs) | \(sec(f)) | \(sec(l)) | \(String(format: "%.2f×", f / l)) | \(sec(median(second))) | \(mib(listRSS)) |")
    print("")
    print("| a file made on the server → the poller has it (folder on screen, 20 s cadence) | median \(sec(median(changes.delays))) of \(o.changeRuns) |")
    print("|---|---:|")
    print("")
    print("each run: download \(down.map { "\($0.key) \($0.value.map(sec))" }.sorted().joined(separator: "; "))")
    print("          upload \(up.map { "\($0.key) \($0.value.map(sec))" }.sorted().joined(separator: "; "))")
    print("          listing first \(first.map(sec)), second \(second.map(sec)), sftp ls \(lsTimes.map(sec))")
    print("          change delays \(changes.delays.map(sec))")
  }

  static func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    return s.isEmpty ? 0 : s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
  }

  static func timed(_ body: () throws -> Void) throws -> Double {
    let t0 = now()
    try body()
    return now() - t0
  }

  /// `sftp -b -` with one command, its listing thrown away (the terminal is not what is timed).
  static func sftp(_ config: String, _ command: String) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/sftp")
    p.arguments = ["-q", "-F", config, "-b", "-", "sftp-test"]
    let input = Pipe()
    p.standardInput = input
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    input.fileHandleForWriting.write(Data((command + "\n").utf8))
    try input.fileHandleForWriting.close()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw BenchError("sftp \(command) failed (\(p.terminationStatus))") }
  }

  static func tool(_ program: String, _ arguments: [String]) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: program)
    p.arguments = arguments
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw BenchError("\(program) failed (\(p.terminationStatus))") }
  }

  static func sha256(_ path: String) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    p.arguments = [path]
    let out = Pipe()
    p.standardOutput = out
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
  }

  static func check(_ path: String, _ sum: String) throws {
    guard try sha256(path) == sum else { throw BenchError("\(path) does not have the source's SHA-256") }
  }

  // MARK: - The children

  static func provider(_ config: String) -> SFTPProvider {
    SFTPProvider(
      domain: DomainIdentifier(unchecked: "bench"), configuration: SSHConfiguration(host: "sftp-test", configFile: config),
      remotePath: URL(fileURLWithPath: config).deletingLastPathComponent().path + "/files")
  }

  static func download(config: String, remote: String, to destination: String) async throws -> TransferResult {
    let t0 = now()
    let p = provider(config)
    let item = try await p.item(at: ItemPath(remote))
    _ = try await p.fetchContents(item.identifier, version: nil, to: URL(fileURLWithPath: destination), progress: { _ in })
    return TransferResult(seconds: now() - t0, peakRSS: peakRSS())
  }

  static func upload(config: String, file: String, name: String) async throws -> TransferResult {
    let t0 = now()
    let p = provider(config)
    let template = ItemTemplate(parentIdentifier: .root, filename: try ItemName.validated(name), contentType: .data)
    _ = try await p.createItem(template, fields: [], contents: URL(fileURLWithPath: file), options: [])
    return TransferResult(seconds: now() - t0, peakRSS: peakRSS())
  }

  static func list(config: String, folder: String) async throws -> ListingResult {
    let t0 = now()
    let p = provider(config)
    let container = try await p.item(at: ItemPath(folder)).identifier
    let request = EnumerationRequest(container: container, suggestedPageSize: 200)
    let page = try await p.enumerate(request, page: nil, progress: { _ in })
    let first = now() - t0
    let t1 = now()
    _ = try await p.enumerate(request, page: nil, progress: { _ in })
    let second = now() - t1
    return ListingResult(first: first, second: second, count: page.totalCount ?? -1, peakRSS: peakRSS())
  }

  /// A poller as the browser runs one (standard cadence, the folder shown), on a scratch index:
  /// files are made on the server (the same filesystem) at random moments, and the delay until a
  /// listing applies a change of the folder naming the file is taken.
  static func changes(config: String, folder: String, runs: Int) async throws -> ChangeResult {
    let p = provider(config)
    let container = try await p.item(at: ItemPath(folder)).identifier
    let local = URL(fileURLWithPath: config).deletingLastPathComponent().path + "/files" + folder
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("folio-bench-index-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let index = try WorkingSetIndex.open(at: scratch.appendingPathComponent("index.sqlite"))
    let (applied, sink) = AsyncStream.makeStream(of: (Double, [String]).self)
    let poller = ListingPoller(domain: DomainIdentifier(unchecked: "bench"), provider: p, index: index) { changes in
      guard changes.folder == container else { return }
      sink.yield((now(), changes.updatedItems.map(\.filename.lossyString)))
    }
    await poller.start()
    poller.show(container)
    var iterator = applied.makeAsyncIterator()
    var delays: [Double] = []
    for run in 0..<runs {
      try await Task.sleep(for: .milliseconds(Int.random(in: 0..<20_000)))
      let name = "made-\(run).txt"
      let t0 = now()
      let fd = open(local + "/" + name, O_WRONLY | O_CREAT | O_EXCL, 0o644)
      guard fd >= 0 else { throw BenchError("cannot make \(name)") }
      close(fd)
      while let (at, names) = await iterator.next() {
        if names.contains(name) {
          delays.append(at - t0)
          break
        }
      }
    }
    await poller.stop()
    return ChangeResult(delays: delays)
  }
}
