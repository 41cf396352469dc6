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
    if pid == getpid() { return true }
    return kill(pid, 0) == 0 || errno == EPERM
  }

  /// This process's id.
  public static var current: Int32 { getpid() }
}
