import Foundation
import ProviderAPI
import ProviderCore

/// `folio ls` as plain values, and the listing itself.
///
/// `ListCommand` (ArgumentParser) makes one for help, completions and usage errors; the usual
/// command lines are read by `init?(quickArguments:)` instead: ArgumentParser's parse of a
/// subcommand instantiates its property wrappers' generic metadata from mangled names and
/// checks for a completion-script request, each first (type, protocol) pair a scan of the
/// binary's every conformance record — about half of a small folder's `folio ls`
/// (docs/BENCHMARKS.md, issue 13).
struct ListOptions: Sendable, Equatable {
  var path = "."
  var sort: ItemSort.Key = .name
  var reverse = false
  var all = false
  var foldersFirst = true
  var limit: Int?
  var json = false

  /// As the browser sorts: names and kinds A to Z, dates newest and sizes largest first.
  var order: ItemSort {
    let natural = sort == .name || sort == .kind
    return ItemSort(key: sort, ascending: natural != reverse, foldersFirst: foldersFirst)
  }
  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make(readOnly: true)
      var (domain, folder) = try await context.resolve(path)
      if folder.isSymlink, let target = try? await domain.provider.item(at: resolvedTarget(folder)), target.isFolder {
        folder = target
      }
      guard folder.isFolder else {
        print([folder], domain: domain, context: context, first: true, last: true)
        return
      }
      try await list(folder, in: domain, context: context)
    }
  }

  private func resolvedTarget(_ link: Item) -> ItemPath {
    guard let t = link.symlinkTargetPath else { return link.path }
    return t.isAbsolute ? t : ItemAddress.normalize(link.path.parent.bytes + [0x2F] + t.bytes)
  }

  private func list(_ folder: Item, in domain: Domain, context: FolioContext) async throws(ProviderError) {
    let service = EnumerationService(prefetchPages: 1)
    let request = EnumerationRequest(
      container: folder.identifier, sort: order,
      includeHidden: all, suggestedPageSize: 1000)
    let ticket = await service.open(request, on: domain.provider, watch: false)
    let max = limit ?? Int.max
    var printed = 0
    // Entries listed by name only: the listing is incomplete, and the exit status says so.
    var unreadable = 0
    var firstUnreadable: ProviderError?
    /// Thrown once everything readable is printed.
    func incomplete() -> ProviderError? {
      guard let e = firstUnreadable else { return nil }
      let what = unreadable == 1 ? "1 item" : "\(unreadable) items"
      return ProviderError(e.code, "\(what) of \(folder.path.displayString) listed by name only: \(e.message)", underlying: e.underlying)
    }
    var first = true
    var showedProgress = false
    if max == 0 {
      if json { Console.out("[]") }
      return
    }
    for await event in service.events {
      switch event {
      case .progress(_, let p):
        guard Console.stderrIsTerminal, p.phase == .readingMetadata, let total = p.total, total > 50_000 else { continue }
        FileHandle.standardError.write(Data("\rreading metadata \(p.completed)/\(total)…".utf8))
        showedProgress = true
      case .page(_, let offset, let items, _, let complete):
        // Reader-driven: ask for the next page only as this one is printed, so memory stays at a
        // couple of pages however large the folder.
        await service.reading(ticket, upTo: offset + items.count - 1)
        if showedProgress {
          FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
          showedProgress = false
        }
        let take = Array(items.prefix(max - printed))
        printed += take.count
        for item in take {
          guard let e = item.metadataError else { continue }
          unreadable += 1
          if firstUnreadable == nil { firstUnreadable = e }
        }
        let done = complete || printed >= max
        print(context.items.annotate(take, domain: domain.identifier), domain: domain, context: context, first: first, last: done)
        first = false
        if done {
          await service.shutdown()
          if let error = incomplete() { throw error }
          return
        }
      case .failed(_, let error):
        await service.shutdown()
        throw error
      case .restarted:
        throw ProviderError(.pageExpired, "\(folder.path.displayString) changed while it was being listed; run ls again")
      case .containerChanged, .containerRead:
        continue
      }
    }
  }

  /// Prints items as they arrive; JSON is one array spread over the pages.
  private func print(_ items: [Item], domain: Domain, context: FolioContext, first: Bool, last: Bool) {
    if json {
      var chunk = first ? "[" : ""
      for (i, item) in items.enumerated() {
        if !(first && i == 0) { chunk += "," }
        chunk += "\n" + ItemJSON.encode(ItemJSON(item, location: context.locationName(domain)))
      }
      if last { chunk += "\n]" }
      if !chunk.isEmpty { Console.out(chunk) }
      return
    }
    for item in items { Console.out(HumanFormat.line(item)) }
  }
}

extension ListOptions {
  /// The arguments after `ls` when they are only the plain forms (`-a`, `--all`, `--reverse`,
  /// `--json`, `--[no-]folders-first`, `--sort KEY`, `--limit N`, each with `=` too, and one
  /// path not starting with `-`); nil for anything else — help, a repeated or unknown option, a
  /// bad value, `--` — which ArgumentParser then parses and reports as before.
  init?(quickArguments arguments: some Sequence<String>) {
    var iterator = arguments.makeIterator()
    var seen: Set<String> = []
    var sawPath = false
    while let argument = iterator.next() {
      guard argument.hasPrefix("-") else {
        guard !sawPath, !argument.isEmpty else { return nil }
        sawPath = true
        path = argument
        continue
      }
      var name = argument
      var value: String?
      if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
        name = String(argument[..<eq])
        value = String(argument[argument.index(after: eq)...])
      }
      // `-a` and `--all` are one option.
      let option = name == "-a" ? "--all" : name
      guard seen.insert(option == "--no-folders-first" ? "--folders-first" : option).inserted else { return nil }
      switch option {
      case "--all", "--reverse", "--json", "--folders-first", "--no-folders-first":
        guard value == nil else { return nil }
        switch option {
        case "--all": all = true
        case "--reverse": reverse = true
        case "--json": json = true
        case "--folders-first": foldersFirst = true
        default: foldersFirst = false
        }
      case "--sort":
        guard let text = value ?? iterator.next(), let key = ItemSort.Key(rawValue: text) else { return nil }
        sort = key
      case "--limit":
        guard let text = value ?? iterator.next(), let n = Int(text), n >= 0, !text.hasPrefix("+") else { return nil }
        limit = n
      default:
        return nil
      }
    }
  }
}
