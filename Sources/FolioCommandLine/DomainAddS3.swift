import FolioConfig
import Foundation
import ProviderAPI
import S3Client
import S3Provider

extension DomainAddCommand {
  /// Lists the bucket once (credentials and region right?), probes its conditional writes on a
  /// scratch key, then saves `[[domain]] type = "s3"` with what the probe found — and says, when
  /// the store ignores them, that it cannot detect conflicting edits.
  func addS3(_ id: DomainIdentifier, url: String, text: String, file: URL, paths: FolioPaths) async throws(ProviderError) {
    guard url.hasPrefix("s3://") else {
      throw ProviderError(.invalidArgument, "\(TerminalText.escape(url)) is not an s3://BUCKET[/PREFIX] URL")
    }
    let rest = url.dropFirst("s3://".count)
    let bucket = String(rest.prefix { $0 != "/" })
    let prefix = String(rest.dropFirst(bucket.count).drop { $0 == "/" })
    var settings = [("bucket", bucket)]
    if !prefix.isEmpty { settings.append(("prefix", prefix)) }
    if let endpoint { settings.append(("endpoint", endpoint)) }
    if let region { settings.append(("region", region)) }
    if let profile { settings.append(("profile", profile)) }
    if let accessKeyId {
      settings.append(("access_key_id", accessKeyId))
      try CredentialsStore(paths: paths).setSecret(try PasswordInput.fromStandardInput(), for: id)
    }
    var draft = try DomainConfigEditor.adding(
      name: id, type: "s3", settings: settings, displayName: displayName, to: text, file: file.path, paths: paths)
    let config = try FolioConfiguration.parse(draft, file: file.path, paths: paths).domains.first { $0.identifier == id }
    guard let config, let provider = try RemoteDomains.s3Provider(for: config, paths: paths) else {
      throw ProviderError(.badConfig, "the location '\(id)' could not be made")
    }
    do throws(ProviderError) {
      _ = try await provider.enumerate(EnumerationRequest(container: .root, suggestedPageSize: 1), page: nil, progress: { _ in })
      let found = try await S3Probe.conditionalWrites(try provider.client())
      settings.append(("conditional_writes", found.rawValue))
      let versioning = try await S3Probe.versioning(try provider.client())
      settings.append(("versioning", versioning))
      draft = try DomainConfigEditor.adding(
        name: id, type: "s3", settings: settings, displayName: displayName, to: text, file: file.path, paths: paths)
      try DomainConfigEditor.write(draft, to: file)
      let place = "s3://\(bucket)\(prefix.isEmpty ? "" : "/" + prefix)"
      Console.out("added '\(id)': \(TerminalText.escape(place)) (browse it with: folio ls \(id):/)")
      Console.out(
        versioning == "enabled"
          ? "the bucket keeps versions: deleted items go to Recently Deleted and can be put back"
          : "the bucket keeps no versions: deleting is for good (Folio asks first)")
      if found != .honoured {
        Console.out(
          "note: this store does not refuse a write based on a version it no longer has, so Folio cannot detect "
            + "conflicting edits by the write itself; it reads each object just before replacing it")
      }
    } catch {
      if accessKeyId != nil { _ = try? CredentialsStore(paths: paths).removeSecret(for: id) }
      throw error
    }
  }
}
