import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether a process id names a live process: how a transfer or an open marker left by a process
/// that crashed (or was `kill -9`ed) is told from one a running process still owns.
public enum ProcessLiveness {
  /// `kill(pid, 0)` probes without signalling; EPERM means alive but someone else's.
  public static func isAlive(_ pid: Int32) -> Bool {
    guard pid > 0 else { return false }
    if let simulated = simulated.withLock({ $0 }) { return simulated.contains(pid) }
    if pid == getpid() { return true }
    return kill(pid, 0) == 0 || errno == EPERM
  }

  /// The processes `folio-sim` plays inside one real process (each machine's current run), when
  /// it runs: a crashed run's id must read as dead and a restarted one's as alive, which `kill`
  /// cannot tell. Nil (the real probe) everywhere else.
  public static let simulated = Mutex<Set<Int32>?>(nil)

  /// This process's id.
  public static var current: Int32 { getpid() }
}
