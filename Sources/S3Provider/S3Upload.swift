import Crypto
import Foundation
import ProviderAPI
import S3Client

#if canImport(Glibc)
  import Glibc
#endif

/// One upload of a local file to a key: a single PUT up to the provider's threshold, a multipart
/// upload above it. A multipart upload resumes: a pending upload of the same key whose parts hold
/// exactly this file's bytes (each part's ETag is its MD5 on a store that does not encrypt with
/// its own keys) is completed with those parts, and only the rest is sent — so an upload killed
/// with `kill -9` and sent again by `folio sync` does not send again what the store has.
struct S3Upload {
  let client: S3Client
  let key: [UInt8]
  let localPath: String
  let size: Int64
  let sha256: String
  let condition: S3WriteCondition
  let threshold: Int64
  let partSize: Int64
  let progress: @Sendable (TransferProgress) -> Void

  func run() async throws -> S3WriteResult {
    let metadata = [S3Provider.sha256Key: sha256]
    if size <= threshold {
      return try await client.putObject(
        key, fromFile: localPath, size: size, sha256: sha256, metadata: metadata, condition: condition
      ) { done, total in progress(TransferProgress(completedBytes: done, totalBytes: total)) }
    }
    let ranges = stride(from: Int64(0), to: size, by: Int(partSize)).map { $0..<min(size, $0 + partSize) }
    var (uploadID, kept) = try await resumable(ranges)
    if uploadID == nil { uploadID = try await client.createMultipartUpload(key, metadata: metadata) }
    guard let uploadID else { throw S3Error(.malformed, "no upload id") }
    let done = Progress(total: size, report: progress)
    done.add(kept.values.reduce(0) { $0 + $1.size })
    var parts = Array(kept.values)
    // A few parts in flight, as the AWS CLI sends them (one at a time left the link idle while
    // each part was hashed and acknowledged); each is hashed and streamed from the file by its task.
    var pending = ranges.enumerated().filter { kept[$0.offset + 1] == nil }[...]
    try await withThrowingTaskGroup(of: S3UploadedPart.self) { group in
      func start() {
        guard let (i, range) = pending.popFirst() else { return }
        group.addTask { [client, key, localPath] in
          try Task.checkCancellation()
          let digest = try Self.sha256(localPath, range)
          let sent = Progress.Part(done)
          let etag = try await client.uploadPart(
            key, uploadID: uploadID, partNumber: i + 1, fromFile: localPath, offset: range.lowerBound,
            length: Int64(range.count), sha256: digest
          ) { n, _ in sent.set(n) }
          sent.set(Int64(range.count))
          return S3UploadedPart(partNumber: i + 1, etag: etag, size: Int64(range.count))
        }
      }
      for _ in 0..<Self.partsInFlight { start() }
      while let part = try await group.next() {
        parts.append(part)
        start()
      }
    }
    return try await client.completeMultipartUpload(key, uploadID: uploadID, parts: parts, condition: condition)
  }

  /// A pending upload of this key whose parts (all of them that are there) are this file's bytes,
  /// and those parts by number.
  private func resumable(_ ranges: [Range<Int64>]) async throws -> (String?, [Int: S3UploadedPart]) {
    let pending = (try? await client.listMultipartUploads(prefix: key))?.filter { $0.key == key } ?? []
    for upload in pending {
      guard let parts = try? await client.listParts(key, uploadID: upload.uploadID), !parts.isEmpty else { continue }
      var kept: [Int: S3UploadedPart] = [:]
      var matches = true
      for part in parts {
        let i = part.partNumber - 1
        guard ranges.indices.contains(i), part.size == Int64(ranges[i].count),
          let md5 = try? Self.md5(localPath, ranges[i]),
          part.etag.trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased() == md5
        else {
          matches = false
          break
        }
        kept[part.partNumber] = part
      }
      if matches { return (upload.uploadID, kept) }
    }
    return (nil, [:])
  }

  /// The SHA-256 of a range of a file, lower-case hex: what signs a part (or a whole PUT).
  static func sha256(_ path: String, _ range: Range<Int64>) throws -> String {
    try digest(SHA256.self, path, range)
  }

  /// The MD5 of a range of a file, lower-case hex: to recognise a part the store already has (its
  /// ETag). Only a resume needs it, so a plain upload never computes it (it cost more CPU than
  /// the SHA-256, which runs on the processor's SHA instructions: docs/BENCHMARKS.md, S3).
  static func md5(_ path: String, _ range: Range<Int64>) throws -> String {
    try digest(Insecure.MD5.self, path, range)
  }

  private static func digest<H: HashFunction>(_: H.Type, _ path: String, _ range: Range<Int64>) throws -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw S3Error(.localIO, "cannot read \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var hasher = H()
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var position = range.lowerBound
    while position < range.upperBound {
      let want = Int(min(Int64(buffer.count), range.upperBound - position))
      let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, want, off_t(position)) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { throw S3Error(.localIO, "\(path) became shorter while it was uploaded") }
      buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
      position += Int64(n)
    }
    return SigV4Signer.hex(hasher.finalize())
  }

  /// The SHA-256 of a whole file (when the caller did not give one).
  static func sha256(of path: String) throws -> (size: Int64, sha256: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { throw S3Error(.localIO, "cannot read \(path)") }
    let size = Int64(info.st_size)
    return (size, try sha256(path, 0..<size))
  }

  /// Parts sent at once: enough to keep the link busy while a part is hashed or acknowledged,
  /// few enough to stay well inside the HTTP client's connections per host.
  static let partsInFlight = 4

  /// Bytes sent so far, reported as they grow.
  final class Progress: @unchecked Sendable {
    /// One part's bytes, added to the whole as they grow.
    final class Part: @unchecked Sendable {
      private let lock = NSLock()
      private var counted: Int64 = 0
      let whole: Progress
      init(_ whole: Progress) { self.whole = whole }
      func set(_ n: Int64) {
        let delta = lock.withLock { () -> Int64 in
          let d = max(0, n - counted)
          counted += d
          return d
        }
        if delta > 0 { whole.add(delta) }
      }
    }

    private let lock = NSLock()
    private var done: Int64 = 0
    let total: Int64
    let report: @Sendable (TransferProgress) -> Void
    init(total: Int64, report: @escaping @Sendable (TransferProgress) -> Void) {
      self.total = total
      self.report = report
    }
    var value: Int64 { lock.withLock { done } }
    func add(_ n: Int64) {
      let now = lock.withLock { () -> Int64 in
        done += n
        return done
      }
      report(TransferProgress(completedBytes: now, totalBytes: total))
    }
    func set(_ n: Int64) {
      let now = lock.withLock { () -> Int64 in
        done = max(done, n)
        return done
      }
      report(TransferProgress(completedBytes: now, totalBytes: total))
    }
  }
}
