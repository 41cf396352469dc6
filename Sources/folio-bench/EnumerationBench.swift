import Foundation
import LocalProvider
import ProviderAPI
import ProviderCore

/// Measures, in this (child) process: time to the first sorted page of 200 items through the
/// EnumerationService, time to enumerate everything, and peak RSS.
enum EnumerationBench {
  struct Result: Codable {
    var firstPage: Double
    var all: Double
    var count: Int
    var peakRSS: Int
    /// Peak RSS when the first page had arrived.
    var firstPageRSS: Int
  }

  static func run(folder: String, sort: ItemSort.Key) async throws -> Result {
    let provider = LocalProvider()
    let service = EnumerationService(prefetchPages: 1)
    let t0 = now()
    let container = try await provider.item(at: ItemPath(folder)).identifier
    let ticket = await service.open(
      EnumerationRequest(container: container, sort: ItemSort(key: sort), suggestedPageSize: 200), on: provider,
      watch: false)
    var first: Double? = nil
    var firstRSS = 0
    var count = 0
    for await event in service.events {
      switch event {
      case .page(let t, let offset, let items, _, let complete) where t == ticket:
        if first == nil {
          first = now() - t0
          firstRSS = peakRSS()
        }
        count += items.count
        // Read the way a list view or `folio ls` does: the next page as this one is consumed.
        await service.reading(ticket, upTo: offset + items.count - 1)
        if complete {
          let all = now() - t0
          return Result(firstPage: first ?? all, all: all, count: count, peakRSS: peakRSS(), firstPageRSS: firstRSS)
        }
      case .failed(_, let error):
        throw BenchError("enumeration failed: \(error.message)")
      default: continue
      }
    }
    throw BenchError("the event stream ended early")
  }
}
