import FolioServerProvider
import Foundation
import ProviderAPI

/// One download or upload through FolioServerProvider, in this (child) process, so that its peak
/// RSS (VmHWM) is the transfer's own: the provider's streaming is what the 64 MiB target is about.
///
/// - download: `fetchContents` into a new file (streamed, counted, SHA-256 checked, fsynced);
/// - upload: `createItem` of a new file (its SHA-256 read first — the protocol sends it as a
///   header, before the body — then streamed from disk).
///
/// The sign-in happens before the clock starts, as in RemoteListingBench.
enum RemoteTransferBench {
  struct Result: Codable {
    var seconds: Double
    var bytes: Int64
    /// The new item of an upload (its server identifier and SHA-256 for the parent to check).
    var identifier: String?
    var peakRSS: Int
    /// VmHWM after signing in, before the transfer started.
    var rssBefore: Int
  }

  static func download(server: RemoteServer, identifier: String, to destination: String) async throws -> Result {
    let provider = try server.provider(user: RemoteServer.benchUser)
    _ = try await provider.item(for: .root, pathHint: nil)
    let before = peakRSS()
    let t0 = now()
    let item = try await provider.fetchContents(
      ItemIdentifier(identifier), version: nil, to: URL(fileURLWithPath: destination), progress: { _ in })
    let seconds = now() - t0
    return Result(
      seconds: seconds, bytes: item.documentSize ?? -1, identifier: nil, peakRSS: peakRSS(), rssBefore: before)
  }

  static func upload(server: RemoteServer, file: String, parent: String, name: String) async throws -> Result {
    let provider = try server.provider(user: RemoteServer.benchUser)
    _ = try await provider.item(for: .root, pathHint: nil)
    let before = peakRSS()
    let template = ItemTemplate(
      parentIdentifier: ItemIdentifier(parent), filename: try ItemName.validated(name), contentType: .data)
    let t0 = now()
    let item = try await provider.createItem(
      template, fields: [], contents: URL(fileURLWithPath: file), options: [])
    let seconds = now() - t0
    return Result(
      seconds: seconds, bytes: item.documentSize ?? -1, identifier: item.identifier.rawValue, peakRSS: peakRSS(),
      rssBefore: before)
  }
}
