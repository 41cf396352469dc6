import Foundation
import ProviderAPI
import WebDAVProvider

extension WebDAVBench {
  /// A provider as `folio domain add --webdav` makes one for Apache after its probe: conditional
  /// writes honoured, files replaced only once complete (one PUT, no temporary and MOVE). The
  /// account comes from the environment the parent set.
  static func provider(_ url: String) throws -> WebDAVProvider {
    let environment = ProcessInfo.processInfo.environment
    guard let base = URL(string: url), let user = environment[userVariable], let password = environment[passwordVariable] else {
      throw BenchError("a WebDAV child needs a URL and \(userVariable), \(passwordVariable)")
    }
    return WebDAVProvider(
      domain: DomainIdentifier(unchecked: "bench"), url: base, user: user, password: { password },
      conditionalWrites: .honoured, replacesInPlace: false)
  }

  /// `fetchContents` of `remote` into `destination` (a PROPFIND Depth 0, the GET, the fsync).
  static func download(url: String, remote: String, to destination: String) async throws -> SFTPBench.TransferResult {
    let t0 = now()
    let p = try provider(url)
    let item = try await p.item(at: ItemPath(remote))
    _ = try await p.fetchContents(item.identifier, version: nil, to: URL(fileURLWithPath: destination), progress: { _ in })
    return SFTPBench.TransferResult(seconds: now() - t0, peakRSS: peakRSS())
  }

  /// `createItem` of a new file `name` at the top (a PROPFIND that finds nothing, the PUT with
  /// `If-None-Match: *`, the PROPFIND of the result).
  static func upload(url: String, file: String, name: String) async throws -> SFTPBench.TransferResult {
    let t0 = now()
    let p = try provider(url)
    let template = ItemTemplate(parentIdentifier: .root, filename: try ItemName.validated(name), contentType: .data)
    _ = try await p.createItem(template, fields: [], contents: URL(fileURLWithPath: file), options: [])
    return SFTPBench.TransferResult(seconds: now() - t0, peakRSS: peakRSS())
  }

  /// The first page of `folder` in the default sort: the folder is read whole (one streamed
  /// PROPFIND Depth 1) and sorted before it comes.
  static func list(url: String, folder: String, pageSize: Int) async throws -> SFTPBench.ListingResult {
    let t0 = now()
    let p = try provider(url)
    let container = try await p.item(at: ItemPath(folder)).identifier
    let page = try await p.enumerate(
      EnumerationRequest(container: container, suggestedPageSize: pageSize, freshness: .current), page: nil, progress: { _ in })
    let first = now() - t0
    guard page.items.count == min(pageSize, page.totalCount ?? 0) else {
      throw BenchError("the first page holds \(page.items.count) items, not \(pageSize)")
    }
    return SFTPBench.ListingResult(first: first, second: 0, count: page.totalCount ?? -1, peakRSS: peakRSS())
  }
}
