import Foundation
import S3Client
import S3TestSupport
import TestExecution
import Testing

/// Copy, delete, versions and sign-in failures against moto with signatures checked.
@Suite(.offThePool)
struct S3ClientObjectTests {
  @Test func aCopyKeepsTheBytesAndItsConditionsHold() async throws {
    let server = try await MotoServer()
    defer { server.stop() }
    let s3 = try server.client(bucket: server.plainBucket, prefix: "c")
    let content = try LocalFile.holding(Array("copied bytes".utf8))
    defer { content.remove() }
    let source = Array("from here/a b.txt".utf8)
    let put = try await s3.putObject(
      source, fromFile: content.path, size: content.size, sha256: content.sha256,
      metadata: ["folio-sha256": content.sha256])

    let copy = try await s3.copyObject(from: source, to: Array("to there/a b.txt".utf8), sourceIfMatch: put.etag)
    #expect(copy.etag == put.etag)
    let target = try DownloadTarget()
    let download = try await s3.getObject(Array("to there/a b.txt".utf8), to: target.fd)
    #expect(target.bytes == Array("copied bytes".utf8))
    #expect(download.info.metadata["folio-sha256"] == content.sha256)

    let replaced = try await s3.copyObject(from: source, to: Array("renamed".utf8), metadata: ["note": "new"])
    #expect(replaced.etag == put.etag)
    #expect(try await s3.headObject(Array("renamed".utf8)).metadata == ["note": "new"])

    // moto 5.2.1 ignores x-amz-copy-source-if-match and If-None-Match on a copy (AWS honours both
    // since 2025): S3ClientAnswerTests checks they are sent.
    let missing = await #expect(throws: S3Error.self) {
      try await s3.copyObject(from: Array("not there".utf8), to: Array("never".utf8))
    }
    #expect(missing?.code == .noSuchKey)
    let never = await #expect(throws: S3Error.self) { try await s3.headObject(Array("never".utf8)) }
    #expect(never?.code == .noSuchKey)
  }

  @Test func aDeleteOnAnUnversionedBucketIsForGood() async throws {
    let server = try await MotoServer()
    defer { server.stop() }
    let s3 = try server.client(bucket: server.plainBucket)
    #expect(try await s3.bucketVersioning() == .unversioned)
    let content = try LocalFile.holding([1, 2, 3])
    defer { content.remove() }
    let key = Array("gone".utf8)
    let put = try await s3.putObject(key, fromFile: content.path, size: 3, sha256: content.sha256)

    let wrongVersion = await #expect(throws: S3Error.self) { try await s3.deleteObject(key, ifMatch: "\"other\"") }
    #expect(wrongVersion?.code == .preconditionFailed)
    let deleted = try await s3.deleteObject(key, ifMatch: put.etag)
    #expect(!deleted.isDeleteMarker)
    let head = await #expect(throws: S3Error.self) { try await s3.headObject(key) }
    #expect(head?.code == .noSuchKey)
    #expect(try await s3.listObjectVersions(prefix: key).versions.isEmpty)
    // Deleting what is not there succeeds, as in S3.
    _ = try await s3.deleteObject(key)
  }

  @Test func aDeleteOnAVersionedBucketLeavesAMarkerAndRemovingItRestores() async throws {
    let server = try await MotoServer()
    defer { server.stop() }
    let s3 = try server.client(bucket: server.versionedBucket, prefix: "docs")
    #expect(try await s3.bucketVersioning() == .enabled)
    let one = try LocalFile.holding(Array("one".utf8))
    let two = try LocalFile.holding(Array("two!".utf8))
    defer {
      one.remove()
      two.remove()
    }
    let key = Array("notes é.txt".utf8)
    let first = try await s3.putObject(key, fromFile: one.path, size: one.size, sha256: one.sha256)
    let second = try await s3.putObject(key, fromFile: two.path, size: two.size, sha256: two.sha256)
    #expect(first.versionID != nil && second.versionID != nil && first.versionID != second.versionID)

    let deleted = try await s3.deleteObject(key)
    #expect(deleted.isDeleteMarker)
    let marker = try #require(deleted.versionID)
    let head = await #expect(throws: S3Error.self) { try await s3.headObject(key) }
    #expect(head?.code == .noSuchKey)
    #expect(try await s3.listObjects(delimiter: nil).objects.isEmpty)

    let page = try await s3.listObjectVersions(prefix: key)
    #expect(!page.isTruncated)
    let markers = page.versions.filter(\.isDeleteMarker)
    #expect(markers.map(\.versionID) == [marker])
    #expect(markers.first?.isLatest == true)
    #expect(markers.first?.key == key)
    let versions = page.versions.filter { !$0.isDeleteMarker }
    #expect(Set(versions.map(\.versionID)) == Set([first.versionID!, second.versionID!]))
    #expect(versions.allSatisfy { !$0.isLatest && $0.key == key })
    #expect(versions.first { $0.versionID == second.versionID }?.size == 4)

    // An old version stays readable by its id.
    let old = try DownloadTarget()
    _ = try await s3.getObject(key, versionID: first.versionID, to: old.fd)
    #expect(old.bytes == Array("one".utf8))

    // Restore: delete the marker.
    // AWS answers x-amz-delete-marker: true here; moto 5.2.1 does not.
    _ = try await s3.deleteObject(key, versionID: marker)
    let info = try await s3.headObject(key)
    #expect(info.etag == second.etag)
    #expect(info.versionID == second.versionID)

    // A copy of an older version.
    let copy = try await s3.copyObject(from: key, sourceVersionID: first.versionID, to: Array("restored one".utf8))
    #expect(copy.etag == first.etag)
  }

  @Test func versionListingsPageByKeyAndVersionMarkers() async throws {
    let server = try await MotoServer()
    defer { server.stop() }
    let s3 = try server.client(bucket: server.versionedBucket)
    let content = try LocalFile.holding([7])
    defer { content.remove() }
    for name in ["p/a", "p/b", "p/c"] {
      for _ in 0..<2 {
        _ = try await s3.putObject(Array(name.utf8), fromFile: content.path, size: 1, sha256: content.sha256)
      }
    }
    var seen: [String] = []
    var keyMarker: [UInt8]?
    var versionMarker: String?
    var pages = 0
    repeat {
      let page = try await s3.listObjectVersions(
        prefix: Array("p/".utf8), keyMarker: keyMarker, versionIDMarker: versionMarker, maxKeys: 4)
      pages += 1
      seen += page.versions.map { String(decoding: $0.key, as: UTF8.self) + "@" + $0.versionID }
      keyMarker = page.isTruncated ? page.nextKeyMarker : nil
      versionMarker = page.nextVersionIDMarker
    } while keyMarker != nil
    #expect(pages == 2)
    #expect(seen.count == 6)
    #expect(Set(seen).count == 6)
  }

  @Test func aWrongSecretOrKeyIsTheSignInError() async throws {
    let server = try await MotoServer()
    defer { server.stop() }
    let wrongSecret = S3Credentials(accessKeyID: server.credentials.accessKeyID, secretAccessKey: "not the secret")
    let s3 = try server.client(bucket: server.plainBucket, credentials: wrongSecret)
    let listing = await #expect(throws: S3Error.self) { try await s3.listObjects() }
    #expect(listing?.code == .signatureMismatch)
    #expect(listing?.needsSignIn == true)
    #expect(listing?.httpStatus == 403)
    #expect(listing?.message.contains("not the secret") == false)

    let head = await #expect(throws: S3Error.self) { try await s3.headObject(Array("k".utf8)) }
    #expect(head?.needsSignIn == true)

    let unknown = try server.client(
      bucket: server.plainBucket, credentials: S3Credentials(accessKeyID: "AKIANOBODY0000000000", secretAccessKey: "x"))
    let stranger = await #expect(throws: S3Error.self) { try await unknown.listObjects() }
    #expect(stranger?.code == .invalidAccessKey)
    #expect(stranger?.needsSignIn == true)

    // The right key still works: the server checks, it does not refuse everything.
    #expect(try await server.client(bucket: server.plainBucket).listObjects().objects.isEmpty)
    let noBucket = await #expect(throws: S3Error.self) {
      try await server.client(bucket: "no-such-bucket").listObjects()
    }
    #expect(noBucket?.code == .noSuchBucket)
  }
}
