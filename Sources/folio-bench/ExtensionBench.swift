import ExtensionHost
import Foundation
import LocalProvider
import ProviderAPI

/// `folio-bench ext`: what the extension host costs. Against the host's test extension
/// (Tests/ExtensionHostTests/Fixtures/folder-ext.py, Python, one thread per request) over a real
/// folder, in one run:
/// - the per-call overhead: `item` round trips one after another, median and p99, beside the
///   same `item` through the local provider (the floor: no process, no JSON);
/// - a folder of `entries` files listed whole (pages of `pageSize`) through the extension and
///   through the local provider, first page and all.
enum ExtensionBench {
  struct Options {
    var entries = 100_000
    var calls = 2000
    var pageSize = 1000
    var work = NSTemporaryDirectory() + "/folio-bench"
    var fixture = "Tests/ExtensionHostTests/Fixtures/folder-ext.py"
  }

  static let usage = """
    usage: folio-bench ext [--entries 100000] [--calls 2000] [--page-size 1000] [--work DIR] [--extension PATH]

    Runs an FEP/1 extension (default: the host's test fixture, from the repository's root) over a
    folder of --entries files (made once under DIR, as the enumeration benchmark makes them) and
    prints: the time of one `item` round trip through the extension (median and p99 of --calls,
    one after another) beside the local provider's; and the time to list the folder whole, in
    pages of --page-size, through the extension and through the local provider.
    Build in release mode: swift build -c release --product folio-bench
    """

  static func parse(_ args: [String]) -> Options {
    var options = Options()
    var rest: [String] = []
    var i = 0
    while i < args.count {
      if args[i] == "--work", i + 1 < args.count {
        options.work = args[i + 1]
        i += 2
      } else if args[i] == "--extension", i + 1 < args.count {
        options.fixture = args[i + 1]
        i += 2
      } else {
        rest.append(args[i])
        i += 1
      }
    }
    return BenchArguments.parse(
      rest, into: options, usage: usage, numbers: ["--entries": \.entries, "--calls": \.calls, "--page-size": \.pageSize])
  }

  static func run(_ o: Options) async throws {
    let fixture = URL(fileURLWithPath: o.fixture).standardizedFileURL.path
    guard FileManager.default.isExecutableFile(atPath: fixture) else { throw BenchError("no extension at \(fixture) (--extension PATH)") }
    try FileManager.default.createDirectory(atPath: o.work, withIntermediateDirectories: true)
    let folder = try BenchFolder.ensure(o.work + "/entries-\(o.entries)", count: o.entries)
    let base = URL(fileURLWithPath: o.work).appendingPathComponent("ext-\(getpid())")
    defer { try? FileManager.default.removeItem(at: base) }
    let launch = ExtensionLaunch(
      domain: DomainIdentifier(unchecked: "bench"), displayName: "bench", command: [fixture], config: ["root": folder],
      stagingDirectory: base.appendingPathComponent("staging"), stateDirectory: base.appendingPathComponent("state"),
      logFile: base.appendingPathComponent("bench.log"))
    let ext = ExtensionProvider(launch: launch)
    let local = LocalProvider()

    // One file of the folder, by its id in each.
    let firstPage = try await ext.enumerate(EnumerationRequest(container: .root, suggestedPageSize: 10), page: nil) { _ in }
    guard let sample = firstPage.items.first(where: { !$0.isFolder }) else { throw BenchError("the folder has no file") }
    let localSample = try await local.item(at: ItemPath(folder).appending(sample.filename))

    func percentiles(_ body: () async throws -> Void) async throws -> (median: Double, p99: Double) {
      for _ in 0..<50 { try await body() }
      var times: [Double] = []
      times.reserveCapacity(o.calls)
      for _ in 0..<o.calls {
        let t0 = now()
        try await body()
        times.append(now() - t0)
      }
      times.sort()
      return (times[times.count / 2], times[min(times.count - 1, times.count * 99 / 100)])
    }
    let extCall = try await percentiles { _ = try await ext.item(for: sample.identifier) }
    let localCall = try await percentiles { _ = try await local.item(for: localSample.identifier, pathHint: localSample.path) }

    func listAll(_ provider: any Provider, _ container: ItemIdentifier) async throws -> (first: Double, all: Double, count: Int) {
      let t0 = now()
      var first: Double? = nil
      var page: Page? = nil
      var count = 0
      repeat {
        let p = try await provider.enumerate(
          EnumerationRequest(container: container, includeHidden: true, suggestedPageSize: o.pageSize), page: page) { _ in }
        if first == nil { first = now() - t0 }
        count += p.items.count
        page = p.nextPage
      } while page != nil
      return (first ?? 0, now() - t0, count)
    }
    let localRoot = try await local.item(at: ItemPath(folder)).identifier
    let extList = try await listAll(ext, .root)
    let localList = try await listAll(local, localRoot)
    await ext.shutdown()

    print("folio-bench ext: \(fixture) over \(grouped(o.entries)) entries, \(o.calls) calls, pages of \(o.pageSize)")
    print("")
    print("  item round trip     median      p99")
    print("  extension        \(pad(ms(extCall.median), 10)) \(pad(ms(extCall.p99), 10))")
    print("  local provider   \(pad(ms(localCall.median), 10)) \(pad(ms(localCall.p99), 10))")
    print("")
    print("  list the folder   first page    all       entries")
    print("  extension        \(pad(sec(extList.first), 10)) \(pad(sec(extList.all), 10))  \(grouped(extList.count))")
    print("  local provider   \(pad(sec(localList.first), 10)) \(pad(sec(localList.all), 10))  \(grouped(localList.count))")
    print(String(format: "  extension / local (all): %.1fx", extList.all / max(localList.all, 1e-9)))
    print("  peak RSS of this process: \(mib(peakRSS()))")
  }
}
