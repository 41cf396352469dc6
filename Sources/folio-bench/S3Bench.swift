import Foundation
import ProviderAPI
import S3Client
import S3Provider
import S3TestSupport

/// `folio-bench s3`: Folio's S3 location against curl and `aws s3 cp` on the same moto server on
/// loopback, in one run (issue 11 §6). moto runs without signature checks here; every client still
/// signs (curl with `--aws-sigv4`) and pays the same server. Each Folio measurement runs in a fresh child
/// process (its own peak RSS) and includes making its client:
/// - download and upload of a `fileMiB` object, alternating Folio / curl / aws, `runs` each; the
///   upload also as one PUT (the threshold above the size), to tell the client's cost from the
///   multipart protocol's on moto (which joins the parts by copying them in Python at completion);
/// - a folder of `entries` keys: Folio's first sorted page (the whole folder is read: S3 lists in
///   key order only) against the listing requests alone, made with curl (ListObjectsV2 pages of
///   1000 followed by their continuation tokens).
enum S3Bench {
  struct Options {
    var entries = 20_000
    var fileMiB = 256
    var runs = 3
  }

  static let usage = """
    usage: folio-bench s3 [--entries 20000] [--file-mib 256] [--runs 3]

    Starts moto on loopback (pip install 'moto[server]'; also needs curl, sha256sum, and aws for its
    column) and prints: download and upload of a --file-mib MiB object through Folio's S3 provider,
    curl and `aws s3 cp` (seconds, MB/s, Folio/curl, Folio's peak RSS), alternating, --runs each
    (Folio's upload also as one PUT, its multipart threshold above the size);
    and a folder of --entries keys: Folio's first sorted page against curl's ListObjectsV2 pages.
    Build in release mode: swift build -c release --product folio-bench
    """

  static func parse(_ args: [String]) -> Options {
    BenchArguments.parse(args, into: Options(), usage: usage, numbers: ["--entries": \.entries, "--file-mib": \.fileMiB, "--runs": \.runs])
  }

  static let bucket = "folio-plain"
  /// curl signs with SigV4 too (moto refuses an anonymous GET), its payload left unsigned; Folio
  /// signs the real SHA-256, which its staged uploads carry: the child is given the file's digest
  /// as `ContentDigest`, as the sync engine gives it (it hashes while it stages the snapshot), and
  /// still hashes each part it sends above the multipart threshold.
  static let signed = ["-sf", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", "bench:bench"]

  static func run(_ o: Options) async throws {
    let moto = try await MotoServer(authentication: false)
    defer { moto.stop() }
    let url = moto.endpointURL
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folio-bench-s3-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let bytes = Int64(o.fileMiB) << 20
    let source = folder + "/up.bin"
    try BenchFile.create(source, size: bytes)
    var sum = ""
    let hashSeconds = try SFTPBench.timed { sum = try SFTPBench.sha256(source) }
    try SFTPBench.tool("/usr/bin/curl", Self.signed + ["-T", source, "\(url)/\(bucket)/down.bin"])
    let hasAWS = FileManager.default.isExecutableFile(atPath: "/usr/local/bin/aws") || which("aws") != nil
    print("folio-bench s3: \(o.fileMiB) MiB object, \(grouped(o.entries)) keys, \(o.runs) runs; moto on \(url)")

    var down: [String: [Double]] = [:]
    var up: [String: [Double]] = [:]
    var rss: [Int] = []
    for run in 1...o.runs {
      let target = folder + "/got-\(run).bin"
      let folio = try child(["_s3-get", url, "/down.bin", target], as: SFTPBench.TransferResult.self)
      down["folio", default: []].append(folio.seconds)
      rss.append(folio.peakRSS)
      try SFTPBench.check(target, sum)
      down["curl", default: []].append(try SFTPBench.timed { try SFTPBench.tool("/usr/bin/curl", Self.signed + ["-o", target, "\(url)/\(bucket)/down.bin"]) })
      try SFTPBench.check(target, sum)
      if hasAWS {
        down["aws", default: []].append(try SFTPBench.timed { try aws(url, ["s3", "cp", "--quiet", "s3://\(bucket)/down.bin", target]) })
        try SFTPBench.check(target, sum)
      }
      try? FileManager.default.removeItem(atPath: target)

      // Each object is deleted once timed: moto keeps them all, and grew slower as it did.
      func drop(_ name: String) throws { try SFTPBench.tool("/usr/bin/curl", Self.signed + ["-X", "DELETE", "\(url)/\(bucket)/\(name)"]) }
      let put = try child(["_s3-put", url, source, "up-\(run).bin", sum, "multipart"], as: SFTPBench.TransferResult.self)
      up["folio", default: []].append(put.seconds)
      rss.append(put.peakRSS)
      try drop("up-\(run).bin")
      let one = try child(["_s3-put", url, source, "one-\(run).bin", sum, "one-put"], as: SFTPBench.TransferResult.self)
      up["folio one PUT", default: []].append(one.seconds)
      rss.append(one.peakRSS)
      try drop("one-\(run).bin")
      let big = try child(["_s3-put", url, source, "big-\(run).bin", sum, "big-parts"], as: SFTPBench.TransferResult.self)
      up["folio 64 MiB parts", default: []].append(big.seconds)
      rss.append(big.peakRSS)
      try drop("big-\(run).bin")
      up["curl", default: []].append(try SFTPBench.timed { try SFTPBench.tool("/usr/bin/curl", Self.signed + ["-T", source, "\(url)/\(bucket)/c-\(run).bin"]) })
      try drop("c-\(run).bin")
      if hasAWS {
        up["aws", default: []].append(try SFTPBench.timed { try aws(url, ["s3", "cp", "--quiet", source, "s3://\(bucket)/a-\(run).bin"]) })
        try drop("a-\(run).bin")
      }
    }

    // The folder: keys made with the client, 16 at a time (none with --entries 0: transfers only).
    var first: [Double] = []
    var curlList: [Double] = []
    var listRSS = 0
    if o.entries > 0 {
      let client = try moto.client(bucket: bucket)
      let empty = folder + "/empty"
      FileManager.default.createFile(atPath: empty, contents: Data())
      var next = 0
      while next < o.entries {
        try await withThrowingTaskGroup(of: Void.self) { group in
          for n in next..<min(o.entries, next + 8) {
            group.addTask {
              _ = try await client.putObject(
                Array("many/file \(n).txt".utf8), fromFile: empty, size: 0,
                sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
            }
          }
          try await group.waitForAll()
        }
        next += 8
      }
      for _ in 1...o.runs {
        let r = try child(["_s3-list", url, "/many"], as: SFTPBench.ListingResult.self)
        guard r.count == o.entries else { throw BenchError("Folio listed \(r.count) of \(o.entries) keys") }
        first.append(r.first)
        listRSS = max(listRSS, r.peakRSS)
        curlList.append(try SFTPBench.timed { try curlListing(url, prefix: "many/", expect: o.entries) })
      }
    }

    func mbps(_ s: Double) -> String { String(format: "%.0f MB/s", Double(bytes) / s / 1e6) }
    print("")
    print("| \(o.fileMiB) MiB | Folio | curl | aws s3 cp | Folio speed / curl | Folio speed / aws | Folio peak RSS |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    let oneRow = up.merging(["folio": up["folio one PUT"]!]) { $1 }
    let bigRow = up.merging(["folio": up["folio 64 MiB parts"]!]) { $1 }
    for (label, table) in [("download", down), ("upload", up), ("upload, 64 MiB parts³", bigRow), ("upload, one PUT²", oneRow)] {
      let f = median(table["folio"]!)
      let c = median(table["curl"]!)
      let a = table["aws"].map { median($0) }
      print(
        "| \(label) | \(sec(f)) (\(mbps(f))) | \(sec(c)) (\(mbps(c))) | \(a.map { "\(sec($0)) (\(mbps($0)))" } ?? "–") | "
          + "\(String(format: "%.2f×", c / f)) | \(a.map { String(format: "%.2f×", $0 / f) } ?? "–") | \(mib(rss.max() ?? 0)) |")
    }
    print("² the provider's multipart threshold set above the file's size (the default sends it in parts)")
    print("³ parts of 64 MiB instead of 16 MiB, 4 in flight as by default")
    print("")
    if o.entries > 0 {
      print("| \(grouped(o.entries)) keys | Folio first sorted page | curl ListObjectsV2 pages | Folio / curl | Folio peak RSS |")
      print("|---|---:|---:|---:|---:|")
      let f = median(first)
      let l = median(curlList)
      print("| medians of \(o.runs) | \(sec(f)) | \(sec(l)) | \(String(format: "%.2f×", f / l)) | \(mib(listRSS)) |")
      print("")
    }
    print("sha256sum of the file: \(sec(hashSeconds)) (outside every clock: Folio's upload is given it as ContentDigest, as the sync engine's staged snapshot gives it)")
    print("each run: download \(down.map { "\($0.key) \($0.value.map(sec))" }.sorted().joined(separator: "; "))")
    print("          upload \(up.map { "\($0.key) \($0.value.map(sec))" }.sorted().joined(separator: "; "))")
    print("          listing Folio \(first.map(sec)), curl \(curlList.map(sec))")
  }

  static func which(_ program: String) -> String? {
    (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(program)" }
      .first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  static func aws(_ url: String, _ arguments: [String]) throws {
    guard let program = which("aws") else { throw BenchError("aws is not installed") }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: program)
    p.arguments = ["--endpoint-url", url] + arguments
    var env = ProcessInfo.processInfo.environment
    env["AWS_ACCESS_KEY_ID"] = "bench"
    env["AWS_SECRET_ACCESS_KEY"] = "bench"
    env["AWS_DEFAULT_REGION"] = "us-east-1"
    p.environment = env
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw BenchError("aws \(arguments) failed (\(p.terminationStatus))") }
  }

  /// The listing requests alone: ListObjectsV2 pages of 1000 with curl, following the tokens.
  static func curlListing(_ url: String, prefix: String, expect: Int) throws {
    var token: String?
    var keys = 0
    repeat {
      var query = "list-type=2&delimiter=%2F&max-keys=1000&prefix=\(prefix.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? prefix)"
      if let token { query += "&continuation-token=\(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token)" }
      let p = Process()
      p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
      p.arguments = Self.signed + ["\(url)/\(bucket)?\(query)"]
      let out = Pipe()
      p.standardOutput = out
      try p.run()
      let body = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      p.waitUntilExit()
      keys += body.components(separatedBy: "<Key>").count - 1
      token = body.range(of: "<NextContinuationToken>").flatMap { start in
        body[start.upperBound...].range(of: "</NextContinuationToken>").map { String(body[start.upperBound..<$0.lowerBound]) }
      }
    } while token != nil
    guard keys == expect else { throw BenchError("curl listed \(keys) of \(expect) keys") }
  }

  // MARK: - The children

  /// - Parameter threshold: the multipart threshold; the provider's default when nil.
  static func provider(_ url: String, threshold: Int64? = nil) throws -> S3Provider {
    let endpoint = try S3Endpoint(bucket: bucket, endpoint: url)
    let credentials = S3Credentials(accessKeyID: "bench", secretAccessKey: "bench")
    let domain = DomainIdentifier(unchecked: "bench")
    guard let threshold else {
      return S3Provider(domain: domain, endpoint: endpoint, credentials: credentials, conditionalWrites: .honoured)
    }
    return S3Provider(
      domain: domain, endpoint: endpoint, credentials: credentials, conditionalWrites: .honoured,
      multipartThreshold: threshold)
  }

  static func download(url: String, remote: String, to destination: String) async throws -> SFTPBench.TransferResult {
    let t0 = now()
    let p = try provider(url)
    let item = try await p.item(at: ItemPath(remote))
    _ = try await p.fetchContents(item.identifier, version: nil, to: URL(fileURLWithPath: destination), progress: { _ in })
    return SFTPBench.TransferResult(seconds: now() - t0, peakRSS: peakRSS())
  }

  /// - Parameter mode: `multipart` (the provider's defaults), `one-put` (the threshold above the
  ///   file's size, so it goes as one PUT) or `big-parts` (64 MiB parts instead of 16).
  static func upload(url: String, file: String, name: String, sha256: String, mode: String) async throws
    -> SFTPBench.TransferResult
  {
    let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int64 ?? 0
    let t0 = now()
    let p =
      mode == "big-parts"
      ? S3Provider(
        domain: DomainIdentifier(unchecked: "bench"), endpoint: try S3Endpoint(bucket: bucket, endpoint: url),
        credentials: S3Credentials(accessKeyID: "bench", secretAccessKey: "bench"), conditionalWrites: .honoured,
        partSize: 64 << 20)
      : try provider(url, threshold: mode == "one-put" ? size + 1 : nil)
    var template = ItemTemplate(parentIdentifier: .root, filename: try ItemName.validated(name), contentType: .data)
    template.contentDigest = ContentDigest(size: size, sha256: sha256)
    _ = try await p.createItem(template, fields: [], contents: URL(fileURLWithPath: file), options: [])
    return SFTPBench.TransferResult(seconds: now() - t0, peakRSS: peakRSS())
  }

  static func list(url: String, folder: String) async throws -> SFTPBench.ListingResult {
    let t0 = now()
    let p = try provider(url)
    let container = try await p.item(at: ItemPath(folder)).identifier
    let page = try await p.enumerate(
      EnumerationRequest(container: container, suggestedPageSize: 200, freshness: .current), page: nil, progress: { _ in })
    return SFTPBench.ListingResult(first: now() - t0, second: 0, count: page.totalCount ?? -1, peakRSS: peakRSS())
  }
}
