import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Removes `folio demo`'s folder however the demo ends: quit, SIGTERM, SIGHUP when an SSH
/// connection drops, even `kill -9`.
///
/// A signal handler may only call async-signal-safe functions, so it cannot walk and remove a
/// folder tree, and nothing at all runs after SIGKILL. The demo therefore starts a small process
/// of its own (`folio demo --janitor DIR`, in a session of its own so the terminal's hangup does
/// not reach it) holding the read end of a pipe whose write end only the demo has (close-on-exec,
/// so no opener inherits it). When the demo ends, by any means, the kernel closes the write end;
/// the janitor reads end-of-file and removes the folder. A demo that ends normally has removed it
/// already, and the janitor finds nothing to do.
enum DemoJanitor {
  /// The prefix of the demo's folder name: the janitor removes nothing else.
  static let prefix = "folio-demo-"

  /// Starts the janitor for `folder`. Keep the returned descriptor open for as long as the demo
  /// lives; closing it (or exiting) sets the janitor off.
  static func start(for folder: URL) throws(ProviderError) -> Int32 {
    var fds: [Int32] = [0, 0]
    // pipe2 is not exported by Glibc's Swift module: pipe, then close-on-exec on both ends
    // (nothing else starts a program between the two calls in the demo).
    guard pipe(&fds) == 0, fcntl(fds[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(fds[1], F_SETFD, FD_CLOEXEC) == 0 else {
      throw ProviderError(.ioError, "cannot make a pipe for the demo's cleanup (errno \(errno))")
    }
    let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = ["demo", "--janitor", folder.path]
    p.standardInput = FileHandle(fileDescriptor: fds[0], closeOnDealloc: false)
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    do {
      try p.run()
    } catch {
      close(fds[0])
      close(fds[1])
      throw ProviderError(.ioError, "cannot start the demo's cleanup process: \(error)")
    }
    close(fds[0])
    return fds[1]
  }

  /// The janitor itself: waits for end-of-file on standard input, then removes `folder` if it
  /// is a demo folder in the temporary directory.
  static func run(_ folder: String) -> Never {
    _ = setsid()
    signal(SIGHUP, SIG_IGN)
    signal(SIGINT, SIG_IGN)
    signal(SIGQUIT, SIG_IGN)
    var buffer = [UInt8](repeating: 0, count: 64)
    while true {
      let n = read(0, &buffer, buffer.count)
      if n == 0 || (n < 0 && errno != EINTR) { break }
    }
    let url = URL(fileURLWithPath: folder).standardizedFileURL
    let temp = URL(fileURLWithPath: NSTemporaryDirectory()).standardizedFileURL.resolvingSymlinksInPath()
    if url.lastPathComponent.hasPrefix(prefix), url.deletingLastPathComponent().resolvingSymlinksInPath() == temp {
      try? FileManager.default.removeItem(at: url)
    }
    exit(0)
  }
}
