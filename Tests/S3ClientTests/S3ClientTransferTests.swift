import Foundation
import S3Client
import S3TestSupport
import TestExecution
import Testing

/// Uploads and downloads against moto with signatures checked: whole objects by SHA-256, ranges,
/// conditional writes, multipart uploads.
@Suite(.offThePool)
struct S3ClientTransferTests {
  @Test func twentyMiBRoundTripBySHA256AndStreamInPieces() async throws {
    let server = try await MotoServer()
    defer { server.stop() }
    let s3 = try server.client(bucket: server.plainBucket)
    let file = try LocalFile.random(size: 20 << 20)
    defer { file.remove() }
    let key = Array("big/twenty MiB.bin".utf8)

    let sent = ProgressLog()
    let put = try await s3.putObject(
      key, fromFile: file.path, size: file.size, sha256: file.sha256, contentType: "application/octet-stream",
      metadata: ["folio-sha256": file.sha256], condition: .ifNoneMatch, progress: sent.handler)
    #expect(put.etag.count > 2)
    // Read as the connection asked: many steps, each at most one 256 KiB chunk.
    let steps = zip(sent.all.dropFirst(), sent.all).map { $0.completed - $1.completed }
    #expect(sent.all.count >= 80)
    #expect(steps.allSatisfy { $0 >= 0 && $0 <= 256 << 10 })
    #expect(sent.all.last?.completed == file.size)

    let info = try await s3.headObject(key)
    #expect(info.size == file.size)
    #expect(info.etag == put.etag)
    #expect(info.metadata["folio-sha256"] == file.sha256)
    #expect(info.contentType == "application/octet-stream")

    let target = try DownloadTarget()
    let received = ProgressLog(watching: target)
    let download = try await s3.getObject(key, to: target.fd, computeSHA256: true, progress: received.handler)
    #expect(download.sha256 == file.sha256)
    #expect(download.bytesWritten == file.size)
    #expect(download.info.metadata["folio-sha256"] == file.sha256)
    #expect(
      try LocalFile(path: target.path, size: file.size, sha256: "").sha256(offset: 0, length: file.size) == file.sha256)
    // Streamed to the file as it came: midway, the file already held what had arrived, and no
    // step was anywhere near the whole body.
    let midway = received.all.filter { $0.completed > 0 && $0.completed < file.size }
    #expect(midway.count >= 10)
    #expect(midway.allSatisfy { ($0.fileSize ?? 0) >= $0.completed })
    let largest = zip(received.all.dropFirst(), received.all).map { $0.completed - $1.completed }.max() ?? 0
    #expect(largest <= 4 << 20)
  }

  @Test func aRangedGetWritesThoseBytesAtTheOffset() async throws {
    let server = try await MotoServer()
    defer { server.stop() }
    let s3 = try server.client(bucket: server.plainBucket)
    let bytes = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }
    let file = try LocalFile.holding(bytes)
    defer { file.remove() }
    let put = try await s3.putObject(Array("r".utf8), fromFile: file.path, size: file.size, sha256: file.sha256)

    let target = try DownloadTarget()
    let middle = try await s3.getObject(
      Array("r".utf8), range: S3ByteRange(start: 1000, end: 1999), ifMatch: put.etag, to: target.fd, at: 10)
    #expect(middle.bytesWritten == 1000)
    #expect(middle.info.size == 5000)
    #expect(Array(target.bytes[10...]) == Array(bytes[1000...1999]))

    let tail = try DownloadTarget()
    let rest = try await s3.getObject(Array("r".utf8), range: S3ByteRange(start: 4990), to: tail.fd)
    #expect(rest.bytesWritten == 10)
    #expect(tail.bytes == Array(bytes[4990...]))

    let beyond = await #expect(throws: S3Error.self) {
      try await s3.getObject(Array("r".utf8), range: S3ByteRange(start: 9000), to: tail.fd)
    }
    #expect(beyond?.code == .invalidRange)
    let stale = await #expect(throws: S3Error.self) {
      try await s3.getObject(Array("r".utf8), range: S3ByteRange(start: 0, end: 9), ifMatch: "\"0000\"", to: tail.fd)
    }
    #expect(stale?.code == .preconditionFailed)
  }

  /// moto 5.2.1 honours `If-None-Match: *` and `If-Match` on PUT with 412 PreconditionFailed, as
  /// AWS does since 2024 (docs/remote-providers.md §5).
  @Test func conditionalWritesAreRefusedWhenTheirConditionFails() async throws {
    let server = try await MotoServer()
    defer { server.stop() }
    let s3 = try server.client(bucket: server.plainBucket)
    let first = try LocalFile.holding(Array("first".utf8))
    let second = try LocalFile.holding(Array("second".utf8))
    defer {
      first.remove()
      second.remove()
    }
    let key = Array("conditional.txt".utf8)
    let created = try await s3.putObject(
      key, fromFile: first.path, size: first.size, sha256: first.sha256, condition: .ifNoneMatch)

    let again = await #expect(throws: S3Error.self) {
      try await s3.putObject(
        key, fromFile: second.path, size: second.size, sha256: second.sha256, condition: .ifNoneMatch)
    }
    #expect(again?.code == .preconditionFailed)
    #expect(again?.httpStatus == 412)
    let wrongBase = await #expect(throws: S3Error.self) {
      try await s3.putObject(
        key, fromFile: second.path, size: second.size, sha256: second.sha256, condition: .ifMatch("\"bogus\""))
    }
    #expect(wrongBase?.code == .preconditionFailed)
    let target = try DownloadTarget()
    _ = try await s3.getObject(key, to: target.fd)
    #expect(target.bytes == Array("first".utf8))

    let replaced = try await s3.putObject(
      key, fromFile: second.path, size: second.size, sha256: second.sha256, condition: .ifMatch(created.etag))
    #expect(replaced.etag != created.etag)
  }

  @Test func aMultipartUploadOfThreePartsIsListedThenCompleted() async throws {
    let server = try await MotoServer()
    defer { server.stop() }
    let s3 = try server.client(bucket: server.plainBucket, prefix: "uploads")
    let file = try LocalFile.random(size: 11 << 20, seed: 3)
    defer { file.remove() }
    let key = Array("three parts é.bin".utf8)
    let ranges: [(Int64, Int64)] = [(0, 5 << 20), (5 << 20, 5 << 20), (10 << 20, 1 << 20)]

    let id = try await s3.createMultipartUpload(key, metadata: ["folio-sha256": file.sha256])
    var sent: [S3UploadedPart] = []
    for (index, (offset, length)) in ranges.enumerated() {
      let etag = try await s3.uploadPart(
        key, uploadID: id, partNumber: index + 1, fromFile: file.path, offset: offset, length: length,
        sha256: try file.sha256(offset: offset, length: length))
      sent.append(S3UploadedPart(partNumber: index + 1, etag: etag, size: length))
    }
    let pending = try await s3.listMultipartUploads()
    #expect(pending.contains { $0.key == key && $0.uploadID == id })

    // What a resumed upload would read back after a crash: every part, its ETag and size.
    let held = try await s3.listParts(key, uploadID: id)
    #expect(held.map(\.partNumber) == [1, 2, 3])
    #expect(held.map(\.etag) == sent.map(\.etag))
    #expect(held.map(\.size) == ranges.map(\.1))

    let done = try await s3.completeMultipartUpload(key, uploadID: id, parts: held.reversed())
    #expect(done.etag.hasSuffix("-3\""))
    let target = try DownloadTarget()
    let download = try await s3.getObject(key, to: target.fd, computeSHA256: true)
    #expect(download.sha256 == file.sha256)
    #expect(download.info.metadata["folio-sha256"] == file.sha256)
    #expect(try await s3.listMultipartUploads().isEmpty)
  }

  @Test func anAbortedUploadIsGoneAndItsPartsWithIt() async throws {
    let server = try await MotoServer()
    defer { server.stop() }
    let s3 = try server.client(bucket: server.plainBucket)
    let file = try LocalFile.random(size: 5 << 20, seed: 4)
    defer { file.remove() }
    let key = Array("abandoned".utf8)
    let id = try await s3.createMultipartUpload(key)
    _ = try await s3.uploadPart(
      key, uploadID: id, partNumber: 1, fromFile: file.path, offset: 0, length: file.size, sha256: file.sha256)
    try await s3.abortMultipartUpload(key, uploadID: id)

    let parts = await #expect(throws: S3Error.self) { try await s3.listParts(key, uploadID: id) }
    #expect(parts?.code == .noSuchUpload)
    // Completing it fails too (AWS: NoSuchUpload; moto 5.2.1 answers 500 from a KeyError).
    await #expect(throws: S3Error.self) {
      try await s3.completeMultipartUpload(key, uploadID: id, parts: [S3UploadedPart(partNumber: 1, etag: "\"x\"")])
    }
    #expect(try await s3.listMultipartUploads().isEmpty)
    let head = await #expect(throws: S3Error.self) { try await s3.headObject(key) }
    #expect(head?.code == .noSuchKey)
  }

  @Test func aPartSmallerThanTheMinimumIsRefusedAtCompletion() async throws {
    let server = try await MotoServer()
    defer { server.stop() }
    let s3 = try server.client(bucket: server.plainBucket)
    let file = try LocalFile.random(size: 2 << 20, seed: 5)
    defer { file.remove() }
    let key = Array("small parts".utf8)
    let id = try await s3.createMultipartUpload(key)
    var parts: [S3UploadedPart] = []
    for number in 1...2 {
      let offset = Int64(number - 1) << 20
      let etag = try await s3.uploadPart(
        key, uploadID: id, partNumber: number, fromFile: file.path, offset: offset, length: 1 << 20,
        sha256: try file.sha256(offset: offset, length: 1 << 20))
      parts.append(S3UploadedPart(partNumber: number, etag: etag))
    }
    let error = await #expect(throws: S3Error.self) {
      try await s3.completeMultipartUpload(key, uploadID: id, parts: parts)
    }
    #expect(error?.code == .invalidPart)
  }
}
