import AsyncHTTPClient
import FolioProtocol
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI

extension FolioServerProvider {
  /// Downloads the item's content into `destination`, verified.
  ///
  /// The item's metadata is read first and the content asked for at exactly that revision
  /// (`?version=N`), so the returned item describes the bytes written; when the content changed in
  /// between (410), it starts over once with the new metadata. `Content-Length` and
  /// `X-Folio-SHA256` must match the bytes (see ``ContentDownload``); a cancelled, truncated or
  /// corrupted download leaves no file behind.
  ///
  /// - Parameter version: A specific version; `versionNoLongerAvailable` when it is not current.
  public func fetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    var attempts = 0
    while true {
      attempts += 1
      let item = try await self.item(for: identifier, pathHint: nil)
      guard !item.isFolder else { throw ProviderError(.invalidArgument, "\(item.path.displayString) is a folder") }
      let revision = try requestedRevision(version, current: item)
      do throws(ProviderError) {
        let response = try await connection.send(contentRequest(identifier, revision: revision, range: nil))
        let length = try contentLength(response, item: item)
        guard let sha = response.headers.first(name: WireRoutes.sha256Header), Self.isHexSHA256(sha) else {
          throw ProviderError(.cannotSynchronize, "\(connection.serverName) sent content without its SHA-256")
        }
        try checkContentVersion(response, revision: revision)
        try await ContentDownload(destination: destination, server: connection.serverName).write(
          response.body, expectedLength: length, expectedSHA256: sha, progress: progress)
        return item
      } catch {
        // The content changed between the metadata and the download: once more, from the top.
        if error.code == .versionNoLongerAvailable, version == nil, attempts == 1 { continue }
        throw error
      }
    }
  }

  /// Writes at least `range` of the content into `destination`, at the same offsets as in the
  /// content (a sparse file the caller fills range by range).
  ///
  /// A server that ignores `Range` and answers 200 with the whole content is handled (F07): the
  /// whole content is written, verified against its hash, and reported as the range written.
  public func fetchPartialContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, range: Range<Int64>, to destination: URL
  ) async throws(ProviderError) -> (item: Item, range: Range<Int64>) {
    let item = try await self.item(for: identifier, pathHint: nil)
    guard !item.isFolder else { throw ProviderError(.invalidArgument, "\(item.path.displayString) is a folder") }
    let size = item.documentSize ?? 0
    guard range.lowerBound >= 0, range.lowerBound <= range.upperBound else {
      throw ProviderError(.invalidArgument, "invalid range \(range)")
    }
    let wanted = range.lowerBound..<min(range.upperBound, size)
    if wanted.isEmpty { return (item, wanted) }
    let revision = try requestedRevision(version, current: item)
    let response = try await connection.send(contentRequest(identifier, revision: revision, range: wanted))
    try checkContentVersion(response, revision: revision)
    let length = try contentLength(response, item: item)
    let server = connection.serverName
    if response.status == .partialContent {
      guard let header = response.headers.first(name: "Content-Range"), let got = Self.contentRange(header),
        got.lowerBound <= wanted.lowerBound, got.upperBound >= wanted.upperBound,
        Int64(got.count) == length
      else {
        throw ProviderError(.cannotSynchronize, "\(server) answered a range request with a range that does not cover it")
      }
      try await ContentDownload(destination: destination, server: server, offset: got.lowerBound, truncate: false).write(
        response.body, expectedLength: length, expectedSHA256: nil, progress: { _ in })
      return (item, got)
    }
    // 200: the whole content, so it can be checked whole.
    guard let sha = response.headers.first(name: WireRoutes.sha256Header), Self.isHexSHA256(sha) else {
      throw ProviderError(.cannotSynchronize, "\(server) sent content without its SHA-256")
    }
    try await ContentDownload(destination: destination, server: server).write(
      response.body, expectedLength: length, expectedSHA256: sha, progress: { _ in })
    return (item, 0..<length)
  }

  // MARK: Helpers

  private func contentRequest(_ identifier: ItemIdentifier, revision: Int64, range: Range<Int64>?) throws(ProviderError)
    -> ServerRequest
  {
    var request = ServerRequest(
      .GET, ["items", try WireItemMapper.wireID(identifier), "content"], query: [("version", String(revision))])
    if let range { request.headers.append(("Range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)")) }
    return request
  }

  private func requestedRevision(_ version: ItemVersion?, current item: Item) throws(ProviderError) -> Int64 {
    guard let version else {
      guard let r = WireItemMapper.contentRevision(item.version) else {
        throw ProviderError(.cannotSynchronize, "\(connection.serverName) sent an item without a content revision")
      }
      return r
    }
    guard let r = WireItemMapper.contentRevision(version) else {
      throw ProviderError(.versionNoLongerAvailable, "this version did not come from a Folio server")
    }
    return r
  }

  private func contentLength(_ response: HTTPClientResponse, item: Item) throws(ProviderError) -> Int64 {
    guard let text = response.headers.first(name: "Content-Length"), let n = Int64(text), n >= 0 else {
      throw ProviderError(.cannotSynchronize, "\(connection.serverName) sent content without its length")
    }
    return n
  }

  private func checkContentVersion(_ response: HTTPClientResponse, revision: Int64) throws(ProviderError) {
    if let text = response.headers.first(name: WireRoutes.contentVersionHeader), Int64(text) != revision {
      throw ProviderError(.versionNoLongerAvailable, "the content changed on \(connection.serverName) while it was asked for")
    }
  }

  /// `bytes a-b/total` → a..<b+1.
  static func contentRange(_ header: String) -> Range<Int64>? {
    let parts = header.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0] == "bytes" else { return nil }
    let spec = parts[1].split(separator: "/", maxSplits: 1)
    let bounds = spec[0].split(separator: "-", maxSplits: 1)
    guard bounds.count == 2, let a = Int64(bounds[0]), let b = Int64(bounds[1]), a >= 0, b >= a else { return nil }
    return a..<(b + 1)
  }

  static func isHexSHA256(_ s: String) -> Bool {
    s.utf8.count == 64 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) || ($0 >= 0x41 && $0 <= 0x46) }
  }
}
