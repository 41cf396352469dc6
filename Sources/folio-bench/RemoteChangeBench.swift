import FolioServerProvider
import Foundation
import ProviderAPI

/// The delay from a change made on the server by another client to the measured client knowing
/// it, in this (child) process.
///
/// "Another client" is a second FolioServerProvider signed in as another user (its own HTTP
/// connection) that renames a file with `PATCH /v1/items/ID`. The measured client does what the
/// working-set sync does: it keeps the provider's change signal open (the long-poll,
/// `GET /v1/changes/wait`) and on each signal asks `changes(in: .workingSet, since:)` until the
/// renamed item comes back with its new name. The clock starts just before the rename is sent.
///
/// This stops at the provider: the step that writes the batch into the index (ProviderCore's
/// WorkingSetSync) was not in the tree when this benchmark was written.
enum RemoteChangeBench {
  struct Result: Codable {
    /// Rename sent → the new name in a change batch, every run (seconds).
    var delays: [Double]
    /// The rename's own round trip (sent → answered), every run.
    var renameRoundTrips: [Double]
    var peakRSS: Int
  }

  static func run(server: RemoteServer, folder: String, runs: Int) async throws -> Result {
    let watcher = try server.provider(user: RemoteServer.benchUser)
    let other = try server.provider(user: RemoteServer.otherUser)
    _ = try await watcher.item(for: .root, pathHint: nil)
    _ = try await other.item(for: .root, pathHint: nil)
    // The other user's file, in the shared tree.
    let empty = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("folio-bench-change-\(getpid())")
    FileManager.default.createFile(atPath: empty.path, contents: Data("probe\n".utf8))
    defer { try? FileManager.default.removeItem(at: empty) }
    var item = try await other.createItem(
      ItemTemplate(
        parentIdentifier: ItemIdentifier(folder), filename: try ItemName.validated("probe-0.txt"), contentType: .data),
      fields: [], contents: empty, options: [])

    var anchor = try await watcher.currentSyncAnchor(for: .workingSet)
    var signals = watcher.changeSignals(for: .workingSet).makeAsyncIterator()
    var delays: [Double] = []
    var trips: [Double] = []
    for run in 1...max(1, runs) {
      // Let the long-poll park on the server (and the previous change settle) before the clock starts.
      try await Task.sleep(nanoseconds: 300_000_000)
      var template = ItemTemplate(item)
      let newName = try ItemName.validated("probe-\(run).txt")
      template.filename = newName
      let t0 = now()
      item = try await other.modifyItem(template, baseVersion: item.version, changedFields: [.filename], contents: nil)
      trips.append(now() - t0)
      var seenAt: Double?
      while seenAt == nil {
        guard await signals.next() != nil else { throw BenchError("the change signal ended") }
        var more = true
        while more {
          let batch = try await watcher.changes(in: .workingSet, since: anchor)
          anchor = batch.anchor
          more = batch.moreComing
          if seenAt == nil,
            batch.updatedItems.contains(where: { $0.identifier == item.identifier && $0.filename == newName })
          {
            seenAt = now()
          }
        }
      }
      delays.append((seenAt ?? now()) - t0)
    }
    try await other.deleteItem(item.identifier, baseVersion: nil, options: [.recursive])
    return Result(delays: delays, renameRoundTrips: trips, peakRSS: peakRSS())
  }
}
