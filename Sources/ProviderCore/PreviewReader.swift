import Foundation
import ProviderAPI
import Synchronization
import WorkingSetIndex

#if canImport(Glibc)
  import Glibc
#endif

/// The first bytes of an item, for its preview: never more than `limit`, never a whole remote
/// file, never a read that can hold the caller.
///
/// - On this computer: `stat` first, and only a regular file is opened (`O_NONBLOCK|O_NOCTTY`) —
///   a FIFO would block the read forever (helix #5210) and a device may do anything on open. The
///   work runs on a queue of its own that the caller can walk away from: a `stat` on a dead NFS or
///   sshfs mount sleeps in the kernel (ranger #2193), and a cancelled preview must not wait for it.
/// - Downloaded remote content is read from the cache, as on this computer.
/// - Anything else is one ranged read through the provider (`fetchPartialContents`, FruitBasket's
///   partial fetch), into a private temporary that is removed at once: the item stays dataless and
///   its badge says so.
public enum PreviewReader {
  /// What was read.
  public struct Head: Sendable {
    public var bytes: [UInt8]
    /// The whole content's size, when known.
    public var totalSize: Int64?
    /// A file on this computer holding the whole content (the item itself, or its download):
    /// pictures are decoded and helpers run on it. nil for a remote file read in part.
    public var localFile: String?
    /// The bytes came over the network (one ranged read).
    public var isRemote: Bool
  }

  public static let headLimit = 64 * 1024

  /// The head of an item of `domain`. `store` is the sync engine's cache (nil: no remote domains).
  public static func head(
    of item: Item, in domain: Domain, store: ContentStore?, scratch: URL, limit: Int = headLimit
  ) async throws(ProviderError) -> Head {
    if domain.hasDirectContent {
      return try await headOfLocalFile(String(decoding: item.path.bytes, as: UTF8.self), rawPath: item.path.bytes, limit: limit)
    }
    // Downloaded content of this version, or edits here not uploaded yet (the newest there is).
    if let store, let local = try? store.localFile(domain: domain.identifier, identifier: item.identifier),
      local.content.version == item.version || item.version == .empty || local.content.state == .dirty
    {
      var head = try await headOfLocalFile(local.url.path, rawPath: Array(local.url.path.utf8), limit: limit)
      head.totalSize = local.content.size
      return head
    }
    return try await headOverNetwork(item, in: domain, scratch: scratch, limit: limit)
  }

  /// One ranged read of the first `limit` bytes through the provider.
  static func headOverNetwork(_ item: Item, in domain: Domain, scratch: URL, limit: Int) async throws(ProviderError) -> Head {
    let (bytes, fresh) = try await bytes(of: item, in: domain, range: 0..<Int64(limit), scratch: scratch)
    return Head(bytes: bytes, totalSize: fresh.documentSize ?? item.documentSize, localFile: nil, isRemote: true)
  }

  /// The bytes of `range` of a remote item, through one ranged read of its provider (a ZIP's end
  /// and directory, read after its head). The provider writes them into a private temporary
  /// (mode 0600 in a 0700 folder), which is removed before returning.
  public static func bytes(
    of item: Item, in domain: Domain, range: Range<Int64>, scratch: URL
  ) async throws(ProviderError) -> (bytes: [UInt8], item: Item) {
    do {
      try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw ProviderError(.ioError, "cannot make \(scratch.path): \(error.localizedDescription)")
    }
    let file = scratch.appendingPathComponent("range-" + UUID().uuidString.lowercased(), isDirectory: false)
    defer { try? FileManager.default.removeItem(at: file) }
    let (fresh, got) = try await domain.provider.fetchPartialContents(
      item.identifier, version: item.version == .empty ? nil : item.version, range: range, to: file)
    try Task.checkCancellation(orThrow: .cancelledError)
    // The provider wrote the bytes at their offsets in the file.
    guard let data = try? Data(contentsOf: file), got.lowerBound >= range.lowerBound else { return ([], fresh) }
    let start = Int(got.lowerBound)
    let end = min(data.count, Int(got.upperBound))
    guard start < end else { return ([], fresh) }
    return (Array(data[start..<end].prefix(range.count)), fresh)
  }

  /// The head of a file on this computer, on a thread the caller can leave behind.
  public static func headOfLocalFile(_ path: String, rawPath: [UInt8], limit: Int) async throws(ProviderError) -> Head {
    let result = await Abandonable.run { () -> Result<Head, ProviderError> in
      readHead(rawPath, displayPath: path, limit: limit).map {
        Head(bytes: $0.bytes, totalSize: $0.size, localFile: path, isRemote: false)
      }
    }
    guard let result else { throw .cancelledError }
    return try result.get()
  }

  /// Blocking: stat, open if regular, read at most `limit` bytes.
  static func readHead(_ rawPath: [UInt8], displayPath: String, limit: Int) -> Result<(bytes: [UInt8], size: Int64), ProviderError> {
    let shown = TerminalText.escape(bytes: rawPath)
    var st = stat()
    let cPath = rawPath + [0]
    let statResult = cPath.withUnsafeBufferPointer { p in p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: cPath.count) { stat($0, &st) } }
    guard statResult == 0 else {
      return .failure(ProviderError(errno == ENOENT ? .noSuchItem : .ioError, "\(shown): \(String(cString: strerror(errno)))"))
    }
    let kind = st.st_mode & S_IFMT
    guard kind == S_IFREG else {
      let what: String
      switch kind {
      case S_IFIFO: what = "a FIFO (named pipe): reading it could wait forever, so it is never read"
      case S_IFCHR, S_IFBLK: what = "a device: it is never read for a preview"
      case S_IFSOCK: what = "a socket: there is nothing to read"
      case S_IFDIR: what = "a folder"
      default: what = "not a regular file"
      }
      return .failure(ProviderError(.invalidArgument, what))
    }
    let fd = cPath.withUnsafeBufferPointer { p in
      p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: cPath.count) { open($0, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
    }
    guard fd >= 0 else {
      return .failure(ProviderError(errno == EACCES ? .noPermission : .ioError, "\(shown): \(String(cString: strerror(errno)))"))
    }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: min(limit, max(0, Int(st.st_size)) + 1))
    var got = 0
    while got < bytes.count {
      let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, $0.count - got, off_t(got)) }
      if n < 0 && errno == EINTR { continue }
      guard n >= 0 else { return .failure(ProviderError(.ioError, "\(shown): \(String(cString: strerror(errno)))")) }
      if n == 0 { break }
      got += n
    }
    bytes.removeSubrange(got...)
    return .success((bytes, Int64(st.st_size)))
  }
}

/// Work on a thread of its own that the awaiting task may leave behind: cancelling the task
/// answers nil at once, and whatever the work returns later is dropped. For calls that can sleep
/// in the kernel for minutes (a `stat` on a dead network mount), where `BlockingWork`'s polling of
/// a flag would never be reached.
enum Abandonable {
  private static let queue = DispatchQueue(label: "folio.preview-io", qos: .userInitiated, attributes: .concurrent)

  static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T? {
    let answered = Mutex<CheckedContinuation<T?, Never>?>(nil)
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
        answered.withLock { $0 = continuation }
        if Task.isCancelled {
          answered.withLock { $0.take() }?.resume(returning: nil)
          return
        }
        queue.async {
          let value = work()
          answered.withLock { $0.take() }?.resume(returning: value)
        }
      }
    } onCancel: {
      answered.withLock { $0.take() }?.resume(returning: nil)
    }
  }
}
