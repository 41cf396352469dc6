import Dispatch

#if canImport(Glibc)
  import CFolioSystem
  import Glibc
#endif

/// The main thread drains the main queue itself, for the life of the process.
///
/// An `async` top-level `main` ends in `dispatch_main()`, which calls `pthread_exit` on the main
/// thread (libdispatch then serves the main queue from its pool). That exit is a forced unwind
/// of the main thread's stack through libgcc's unwinder, which looks every frame up in the
/// binary's `.eh_frame_hdr` and `.eh_frame`: ~1.1 MiB of them paged in at every launch, and
/// resident for its whole life, for a thread that had nothing to clean up (docs/BENCHMARKS.md,
/// issue 13, fourth pass). Here the main thread waits on the main queue's eventfd and runs its
/// work with libdispatch's own run-loop hook, as CoreFoundation's run loop does on Linux: the
/// main actor's jobs run on the main thread, and nothing is unwound.
public enum MainQueueLoop {
  /// Runs `body` on the main actor and drains the main queue until it ends; then exits with 0
  /// (`body` exits itself with any other status).
  public static func run(_ body: @escaping @MainActor @Sendable () async -> Void) -> Never {
    Task { @MainActor in
      await body()
      exit(0)
    }
    #if canImport(Glibc)
      let handle = _dispatch_get_main_queue_handle_4CF()
      var counter: UInt64 = 0
      while true {
        var ready = pollfd(fd: handle, events: Int16(POLLIN), revents: 0)
        // EINTR (a signal: SIGWINCH, SIGCHLD) only means look again.
        guard poll(&ready, 1, -1) > 0 else { continue }
        // The eventfd is non-blocking: reset its count, then run what was queued; work queued
        // meanwhile writes it again.
        _ = read(handle, &counter, MemoryLayout<UInt64>.size)
        _dispatch_main_queue_callback_4CF(nil)
      }
    #else
      dispatchMain()
    #endif
  }
}
