import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Starts the kernel writing a growing file to disk while it is still being written, so that the
/// `fsync` that makes it durable at the end has little left to do (FolioServerProvider's
/// `ContentDownload`, WebDAVClient's `FileSink`: shared here, the one module both depend on).
///
/// Why: a 1 GiB download ended with an `fsync` of the whole file, +0.25 s on the transfer's clock
/// (docs/BENCHMARKS.md, "Remote storage"). Every `step` bytes the range just written is handed to
/// `sync_file_range(SYNC_FILE_RANGE_WRITE)` on a serial queue of its own (it can block while the
/// device queue is full; the receive loop must not). Glibc's Swift module does not export
/// `sync_file_range` (it is behind `_GNU_SOURCE`), so it is looked up with `dlsym`; where it is
/// missing this does nothing and the final `fsync` does all the work, as before. This never
/// replaces that `fsync`: `sync_file_range` neither waits for the disk's cache nor writes the
/// metadata.
public final class FileWriteback: @unchecked Sendable {
  private let fd: Int32
  private let step: Int64
  private let queue = DispatchQueue(label: "folio.download.writeback")
  // Touched only by the owner (the receive loop).
  private var scheduled: Int64
  private var ended = false

  /// - Parameters:
  ///   - fd: The file; it must stay open until ``finish()`` returned.
  ///   - start: The offset the writes start at.
  public init(fd: Int32, start: Int64, step: Int64 = 32 << 20) {
    self.fd = fd
    self.scheduled = start
    self.step = step
  }

  /// The bytes before `end` are written: starts writeback of the last `step` or more of them.
  public func written(upTo end: Int64) {
    guard let syncFileRange = Self.syncFileRange, end - scheduled >= step else { return }
    let (fd, from) = (self.fd, scheduled)
    scheduled = end
    queue.async {
      _ = syncFileRange(fd, from, end - from, Self.syncFileRangeWrite)
    }
  }

  /// Waits for writeback already started to have been handed to the kernel; after this the file
  /// may be closed (no call on `fd` is pending, so no other file that reuses the number is hit).
  public func finish() {
    if ended { return }
    ended = true
    queue.sync {}
  }

  /// `SYNC_FILE_RANGE_WRITE` (linux/fs.h): start writeback of dirty pages in the range, don't wait.
  private static let syncFileRangeWrite: UInt32 = 2

  private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32

  /// glibc's `sync_file_range`, when this libc has it.
  private static let syncFileRange: SyncFileRange? = {
    #if os(Linux)
      guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "sync_file_range") else { return nil }
      return unsafeBitCast(symbol, to: SyncFileRange.self)
    #else
      return nil
    #endif
  }()
}
