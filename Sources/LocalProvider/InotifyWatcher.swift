import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Change signals for a folder being shown, from inotify.
///
/// One inotify instance per watched folder, read by a dedicated thread that polls with a short
/// timeout so it can stop when the consumer goes away. Each batch of kernel events becomes one
/// signal: the reader re-enumerates rather than applying events one by one.
///
/// The watch is added on that thread too: `inotify_add_watch` walks the folder's cached child
/// dentries (~6 ms at 100k entries, ~68 ms at a million), which must not hold up the caller.
/// Once it is in place, `changedSinceWatchStarted` says whether the folder changed before it
/// (the caller compares the folder's mtime with the listing it shows): if so, one signal.
enum InotifyWatcher {
  static func signals(
    for path: ItemPath, changedSinceWatchStarted: @escaping @Sendable () -> Bool = { false },
    onChange: @escaping @Sendable () -> Void
  ) -> AsyncStream<Void> {
    AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
      let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      guard fd >= 0 else {
        continuation.finish()
        return
      }
      let stop = CancellationFlag()
      continuation.onTermination = { _ in stop.cancel() }
      let thread = Thread {
        defer {
          close(fd)
          continuation.finish()
        }
        let mask: UInt32 =
          UInt32(IN_CREATE) | UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM) | UInt32(IN_MOVED_TO) | UInt32(IN_ATTRIB)
          | UInt32(IN_CLOSE_WRITE) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)
        guard !stop.isCancelled, path.withCString({ inotify_add_watch(fd, $0, mask) }) >= 0 else { return }
        if changedSinceWatchStarted() {
          onChange()
          continuation.yield()
        }
        var buf = [UInt8](repeating: 0, count: 16 * 1024)
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while !stop.isCancelled {
          let r = poll(&pfd, 1, 250)
          if r <= 0 { continue }
          let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
          if n <= 0 { continue }
          var selfGone = false
          var off = 0
          while off + MemoryLayout<inotify_event>.size <= n {
            let ev = buf.withUnsafeBytes { $0.load(fromByteOffset: off, as: inotify_event.self) }
            if ev.mask & (UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_IGNORED)) != 0 { selfGone = true }
            off += MemoryLayout<inotify_event>.size + Int(ev.len)
          }
          onChange()
          continuation.yield()
          if selfGone { break }
        }
      }
      thread.name = "folio.inotify"
      thread.start()
    }
  }
}
