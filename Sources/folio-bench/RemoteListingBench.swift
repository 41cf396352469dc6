import FolioServerProvider
import Foundation
import ProviderAPI
import ProviderCore

/// Measures, in this (child) process, a remote folder's first sorted page of 200 items through
/// FolioServerProvider and the EnumerationService — as the browser asks for it — then the whole
/// folder once, page after page, as `folio ls` reads it.
///
/// Signing in (scrypt on the server, ~0.1 s) happens before the clock starts: it is paid once per
/// session, not per folder. Each run opens a fresh EnumerationService; the HTTP connection is kept
/// alive between runs, as it is in a session.
enum RemoteListingBench {
  struct Result: Codable {
    /// First page, every run (seconds).
    var firstPages: [Double]
    var all: Double
    var count: Int
    var peakRSS: Int
    /// Peak RSS when the first page of the first run had arrived.
    var firstPageRSS: Int
  }

  static func run(server: RemoteServer, folder: String, sort: ItemSort.Key, runs: Int) async throws -> Result {
    let provider = try server.provider(user: RemoteServer.benchUser)
    _ = try await provider.item(for: .root, pathHint: nil)  // signs in
    let container = try await provider.item(for: ItemIdentifier(folder), pathHint: nil).identifier
    let request = EnumerationRequest(container: container, sort: ItemSort(key: sort), suggestedPageSize: 200)
    var firstPages: [Double] = []
    var firstRSS = 0
    for _ in 0..<max(1, runs) {
      let service = EnumerationService(prefetchPages: 1)
      let t0 = now()
      let ticket = await service.open(request, on: provider, watch: false)
      firstPages.append(try await firstPage(service, ticket) - t0)
      if firstRSS == 0 { firstRSS = peakRSS() }
      await service.close(ticket)
    }
    let service = EnumerationService(prefetchPages: 1)
    let t0 = now()
    let ticket = await service.open(request, on: provider, watch: false)
    var count = 0
    for await event in service.events {
      switch event {
      case .page(let t, let offset, let items, _, let complete) where t == ticket:
        count += items.count
        await service.reading(ticket, upTo: offset + items.count - 1)
        if complete {
          return Result(
            firstPages: firstPages, all: now() - t0, count: count, peakRSS: peakRSS(), firstPageRSS: firstRSS)
        }
      case .failed(_, let error):
        throw BenchError("enumeration failed: \(error.message)")
      default: continue
      }
    }
    throw BenchError("the event stream ended early")
  }

  /// The time the first page of `ticket` arrived.
  private static func firstPage(_ service: EnumerationService, _ ticket: EnumerationTicket) async throws -> Double {
    for await event in service.events {
      switch event {
      case .page(let t, _, let items, _, _) where t == ticket:
        guard items.count == 200 else { throw BenchError("the first page held \(items.count) items, not 200") }
        return now()
      case .failed(let t, let error) where t == ticket:
        throw BenchError("enumeration failed: \(error.message)")
      default: continue
      }
    }
    throw BenchError("the event stream ended early")
  }
}
