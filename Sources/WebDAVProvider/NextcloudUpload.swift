import Foundation
import ProviderAPI
import WebDAVClient

/// When Nextcloud uploads go in chunks (chunked upload v2), and how big the chunks are.
public struct NextcloudChunking: Sendable, Equatable {
  /// Files above this size are sent in chunks; at or below it, one PUT.
  public var threshold: Int64
  /// The size of every chunk but the last, grown where a file would need more than 10,000.
  public var chunkSize: Int64

  /// 10 MiB chunks above 10 MiB, as Nextcloud's desktop client starts and rclone sends
  /// (`nextcloud_chunk_size`, remote-providers.md §4.3): a chunk is what a dropped connection
  /// costs again, and what a proxy in front of the server (100 MB on some) must let through.
  public static let standard = NextcloudChunking(threshold: 10 << 20, chunkSize: 10 << 20)

  public init(threshold: Int64, chunkSize: Int64) {
    self.threshold = max(0, threshold)
    self.chunkSize = max(1, chunkSize)
  }

  /// The chunks of a file of `size` bytes: `chunkSize` each but the last, grown so that there
  /// are at most 10,000 (Nextcloud names chunks 1 … 10000).
  public func ranges(size: Int64) -> [Range<Int64>] {
    let each = max(chunkSize, (size + 9_999) / 10_000)
    return stride(from: Int64(0), to: size, by: Int(each)).map { $0..<min(size, $0 + each) }
  }
}

/// One upload of a local file to Nextcloud in chunks (chunked upload v2), resumable: the upload
/// folder is named from the upload's journal token (``ItemTemplate/uploadToken``, the same for
/// every attempt of one journaled upload, in any process), so an attempt after a crash or a
/// `kill -9` finds the folder the killed one made, lists it (one PROPFIND) and sends only the
/// chunks that are not there at their size. The staged snapshot a token names never changes, so
/// a chunk there at its size holds this file's bytes.
///
/// A refused assembly (the destination moved on from the base version, or a create found the
/// name taken) gives the upload up (DELETE of its folder): the provider then keeps the bytes
/// under a conflict name. Any other failure leaves the folder for the next attempt; Nextcloud
/// expires an untouched one after 24 hours.
struct NextcloudUpload {
  let uploads: WebDAVClient
  /// The upload folder, below `uploads`.
  let folder: WebDAVPath
  /// The absolute URL of the file in the account's files.
  let destination: String
  let localPath: String
  let size: Int64
  let chunking: NextcloudChunking
  let condition: WebDAVWriteCondition
  let progress: @Sendable (Int64) -> Void

  /// The upload folder of a token (`folio-TOKEN`), or of a fresh random one without a token.
  static func folderName(_ token: String?) -> String {
    let tag = token.map { String($0.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }.prefix(40)) }
    return "folio-" + (tag.flatMap { $0.isEmpty ? nil : $0 } ?? UUID().uuidString.lowercased())
  }

  func run() async throws -> WebDAVUpload {
    let ranges = chunking.ranges(size: size)
    var there = try await uploads.uploadedChunks(in: folder)
    if let found = there, found.keys.contains(where: { $0 < 1 || $0 > ranges.count }) {
      // Chunks this file does not have (another chunk size): they would be assembled too.
      try await uploads.abortChunkedUpload(folder)
      there = nil
    }
    if there == nil { try await uploads.startChunkedUpload(folder, destination: destination) }
    var done: Int64 = 0
    for (i, range) in ranges.enumerated() {
      let number = i + 1
      if there?[number] == Int64(range.count) {
        done += Int64(range.count)
        progress(done)
        continue
      }
      try Task.checkCancellation()
      let before = done
      try await uploads.uploadChunk(
        of: localPath, range: range, number: number, in: folder, destination: destination, totalLength: size
      ) { sent in progress(before + sent) }
      done += Int64(range.count)
    }
    let assembled: Result<WebDAVUpload, WebDAVError>
    do {
      assembled = .success(
        try await uploads.assembleChunks(in: folder, destination: destination, totalLength: size, condition: condition))
    } catch {
      assembled = .failure(error)
    }
    if case .failure(let refused) = assembled, refused.code == .preconditionFailed {
      try? await uploads.abortChunkedUpload(folder)
    }
    return try assembled.get()
  }
}
