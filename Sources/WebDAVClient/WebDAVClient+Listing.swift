import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What a Depth 1 PROPFIND found besides the children it delivered.
public struct WebDAVListing: Sendable {
  /// The listed collection's own entry.
  public var collection: WebDAVEntry
  /// Children delivered, in all batches.
  public var childCount: Int
  /// `<response>`s that reported a failure (a non-2xx status, a failed propstat): those items
  /// are missing from the batches or lack properties.
  public var failedResponses: Int

  /// Whether the answer covered the whole collection: only a complete listing may be taken to
  /// mean that something absent was deleted (remote-providers.md §1.3).
  public var isComplete: Bool { failedResponses == 0 }
}

/// RFC 4331 quota of a collection; nil where the server does not say.
public struct WebDAVQuota: Sendable, Equatable {
  public var availableBytes: Int64?
  public var usedBytes: Int64?
}

extension WebDAVClient {
  /// Children per batch when the caller does not say.
  public static let defaultBatchSize = 500

  /// Lists a collection with PROPFIND Depth 1 — never `infinity` — and hands its children to
  /// `entries` in batches while the answer is still arriving.
  ///
  /// The answer is parsed as a stream (``MultistatusParser``): memory holds one batch and a
  /// bounded piece of the body, whatever the folder's size. `entries` is called once per batch,
  /// one call at a time; the parser waits while it runs.
  ///
  /// What was delivered only counts once this returns: a throw (a broken answer, an href outside
  /// the collection, a cut connection, the caller's own error) means the listing failed as a whole
  /// and the batches already seen are to be dropped (test-plan F08: never half-apply a listing).
  ///
  /// - Parameters:
  ///   - path: The collection.
  ///   - properties: What to ask for (``WebDAVProperties/standard`` by default).
  ///   - batchSize: Children per call of `entries`; the last batch may be smaller.
  /// - Returns: The collection's own entry, how many children came, and whether the listing was
  ///   complete.
  /// - Throws: ``WebDAVError``, or what `entries` threw.
  public func list(
    _ path: WebDAVPath, properties: WebDAVProperties = .standard, batchSize: Int = defaultBatchSize,
    entries: @Sendable ([WebDAVEntry]) async throws -> Void
  ) async throws -> WebDAVListing {
    let outcome = try await propfind(
      path, depth: 1, collection: true, properties: properties, batchSize: max(1, batchSize), entries: entries)
    guard let collection = outcome.requested else {
      throw WebDAVError(.malformedResponse, "the listing of \(path) on \(server) does not include the folder itself")
    }
    return WebDAVListing(collection: collection, childCount: outcome.children, failedResponses: outcome.failedResponses)
  }

  /// One item's properties: PROPFIND Depth 0.
  ///
  /// - Throws: `notFound` when there is nothing at `path`.
  public func stat(_ path: WebDAVPath, properties: WebDAVProperties = .standard) async throws(WebDAVError) -> WebDAVEntry {
    let outcome: MultistatusReader.Outcome
    do {
      outcome = try await propfind(path, depth: 0, collection: false, properties: properties, batchSize: 1) { _ in }
    } catch let error as WebDAVError {
      throw error
    } catch {
      throw WebDAVError(.malformedResponse, "\(error)")  // unreachable: the handler above throws nothing
    }
    guard let entry = outcome.requested else {
      if outcome.failedResponses > 0 { throw WebDAVError(.notFound, "no such item: \(path) on \(server)") }
      throw WebDAVError(.malformedResponse, "the answer about \(path) on \(server) does not describe it")
    }
    return entry
  }

  /// RFC 4331 `quota-available-bytes` and `quota-used-bytes` of a collection (the base one by
  /// default); both nil on a server that has none (Apache 2.4, nginx, rclone).
  public func quota(_ path: WebDAVPath = .root) async throws(WebDAVError) -> WebDAVQuota {
    let entry = try await stat(path, properties: [.resourceType, .quotaAvailable, .quotaUsed])
    return WebDAVQuota(availableBytes: entry.quotaAvailableBytes, usedBytes: entry.quotaUsedBytes)
  }

  /// The PROPFIND both share.
  func propfind(
    _ path: WebDAVPath, depth: Int, collection: Bool, properties: WebDAVProperties, batchSize: Int,
    entries: @Sendable ([WebDAVEntry]) async throws -> Void
  ) async throws -> MultistatusReader.Outcome {
    try await propfindAnswer(
      path, depth: depth, collection: collection, properties: properties, batchSize: batchSize, entries: entries
    ).outcome
  }

  /// A PROPFIND with `extra` headers (Nextcloud's paging), and the answer's headers.
  func propfindAnswer(
    _ path: WebDAVPath, depth: Int, collection: Bool, properties: WebDAVProperties, batchSize: Int,
    extra: [(String, String)] = [], entries: @Sendable ([WebDAVEntry]) async throws -> Void
  ) async throws -> (outcome: MultistatusReader.Outcome, headers: HTTPHeaders) {
    let url = try url(path, collection: collection)
    let body = PropfindBody.xml(properties)
    let operation: DAVOperation = depth == 0 ? .stat : .list
    let opened = try await open(
      .PROPFIND, url,
      headers: headers([("Depth", String(depth)), ("Content-Type", "application/xml; charset=utf-8")] + extra), body: body)
    guard opened.head.status.code == 207 else {
      throw await refusal(opened, operation: operation, subject: path)
    }
    let reader = MultistatusReader(
      resolver: resolver, requested: path, depth: depth, batchSize: batchSize, server: server)
    opened.response.stream(into: reader.feed)
    do {
      try await withTaskCancellationHandler {
        while let batch = await reader.next() {
          try Task.checkCancellation()
          try await entries(batch)
          reader.processed()
        }
      } onCancel: {
        reader.cancel()
        opened.task.cancel()
      }
    } catch {
      reader.cancel()
      opened.task.cancel()
      _ = try? await opened.task.futureResult.get()
      if error is CancellationError { throw WebDAVError.cancelledError }
      throw error
    }
    if Task.isCancelled {
      opened.task.cancel()
      throw WebDAVError.cancelledError
    }
    let outcome: MultistatusReader.Outcome
    do {
      outcome = try reader.result()
    } catch {
      opened.task.cancel()
      _ = try? await opened.task.futureResult.get()
      throw error
    }
    try await finish(opened.task)
    return (outcome, opened.head.headers)
  }
}
