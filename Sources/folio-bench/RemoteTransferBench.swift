import FolioServerProvider
import Foundation
import ProviderAPI

/// One download or upload through FolioServerProvider, in this (child) process, so that its peak
/// RSS (VmHWM) is the transfer's own: the provider's streaming is what the 64 MiB target is about.
///
/// - download: `fetchContents` into a new file (streamed, counted, SHA-256 checked, fsynced);
/// - upload: `createItem` of a new file, streamed from disk, with its size and SHA-256 given in the
///   template as the sync engine gives them (it hashed its staged snapshot while copying it; the
///   protocol sends the hash as a header, before the body). curl is given the same hash, from
///   the same `sha256sum` run, outside both clocks.
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

  static func upload(
    server: RemoteServer, file: String, parent: String, name: String, sha256: String
  ) async throws -> Result {
    let provider = try server.provider(user: RemoteServer.benchUser)
    _ = try await provider.item(for: .root, pathHint: nil)
    let before = peakRSS()
    var template = ItemTemplate(
      parentIdentifier: ItemIdentifier(parent), filename: try ItemName.validated(name), contentType: .data)
    let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int64 ?? 0
    template.contentDigest = ContentDigest(size: size, sha256: sha256)
    let t0 = now()
    let item = try await provider.createItem(
      template, fields: [], contents: URL(fileURLWithPath: file), options: [])
    let seconds = now() - t0
    return Result(
      seconds: seconds, bytes: item.documentSize ?? -1, identifier: item.identifier.rawValue, peakRSS: peakRSS(),
      rssBefore: before)
  }
}
