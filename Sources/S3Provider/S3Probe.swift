import Foundation
import ProviderAPI
import S3Client

/// What a store really does with conditional writes, found on a scratch key before the location
/// is trusted with edits (issue 11 §1, remote-providers.md §1.1): a create with `If-None-Match: *`
/// twice (the second must be refused) and a write with an `If-Match` that names no version (must
/// be refused). A store that takes either write cannot detect conflicting edits by the write
/// itself; Folio then reads the object just before it replaces it.
public enum S3Probe {
  public static func conditionalWrites(_ client: S3Client) async throws(ProviderError) -> ProviderTraits.ConditionalWrites {
    let key = Array(".folio-probe-\(UUID().uuidString.lowercased())".utf8)
    let empty = "/dev/null"
    let sha = S3Provider.emptySHA256
    do {
      _ = try await client.putObject(key, fromFile: empty, size: 0, sha256: sha, condition: .ifNoneMatch)
      var honoured = true
      do {
        _ = try await client.putObject(key, fromFile: empty, size: 0, sha256: sha, condition: .ifNoneMatch)
        honoured = false
      } catch let error as S3Error where error.code == .preconditionFailed || error.code == .conflict {}
      do {
        _ = try await client.putObject(
          key, fromFile: empty, size: 0, sha256: sha, condition: .ifMatch("\"00000000000000000000000000000000\""))
        honoured = false
      } catch let error as S3Error where error.code == .preconditionFailed || error.code == .conflict {}
      _ = try? await client.deleteObject(key)
      return honoured ? .honoured : .ignored
    } catch {
      _ = try? await client.deleteObject(key)
      throw S3ErrorMapping.map(error, location: "the bucket", bucket: client.endpoint.bucket)
    }
  }

  /// "enabled" when the bucket keeps versions (a delete leaves a marker: a trash), else "off".
  public static func versioning(_ client: S3Client) async throws(ProviderError) -> String {
    do {
      return try await client.bucketVersioning() == .enabled ? "enabled" : "off"
    } catch {
      throw S3ErrorMapping.map(error, location: "the bucket", bucket: client.endpoint.bucket)
    }
  }
}
