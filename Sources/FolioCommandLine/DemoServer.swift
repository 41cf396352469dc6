import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// `folio demo`'s FolioServer: a `folio-serve` child on a free loopback port, the same server as
/// `folio serve` (``ServeExecutable``), stopped with SIGTERM.
///
/// Its standard input is the read end of a pipe only this process can write to (close-on-exec,
/// so no opener inherits it), and `--stop-at-end-of-input` makes the server stop when that pipe
/// closes: a demo killed with `kill -9` takes its server with it, as it did when the server ran
/// in the demo's own process. Its standard error is the demo's, which `DemoLog` has sent to the
/// log file.
final class DemoServer: @unchecked Sendable {
  let url: URL
  private let process: Process
  private let lifeline: Int32

  private init(url: URL, process: Process, lifeline: Int32) {
    self.url = url
    self.process = process
    self.lifeline = lifeline
  }

  /// Starts serving `root` (created if missing) with the accounts of `users` (lines
  /// `name:password`) and returns once connections are accepted.
  static func start(root: URL, users: URL) async throws(ProviderError) -> DemoServer {
    let executable = try ServeExecutable.locate()
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0, fcntl(fds[1], F_SETFD, FD_CLOEXEC) == 0 else {
      throw ProviderError(.ioError, "cannot make a pipe for the demo's server (errno \(errno))")
    }
    let output = Pipe()
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = [
      "serve", "run", "--root", root.path, "--host", "127.0.0.1", "--port", "0", "--users", users.path,
      "--stop-at-end-of-input",
    ]
    p.standardInput = FileHandle(fileDescriptor: fds[0], closeOnDealloc: false)
    p.standardOutput = output
    do {
      try p.run()
    } catch {
      close(fds[0])
      close(fds[1])
      throw ProviderError(.ioError, "cannot start \(TerminalText.escape(executable)): \(error)")
    }
    close(fds[0])
    let server = output.fileHandleForReading.fileDescriptor
    let line = await Task.detached { Self.listeningLine(server, deadline: Date().addingTimeInterval(60)) }.value
    guard let line, let url = URL(string: line) else {
      close(fds[1])
      p.terminate()
      p.waitUntilExit()
      throw ProviderError(.serverUnreachable, "the demo server did not start (see the log)")
    }
    return DemoServer(url: url, process: p, lifeline: fds[1])
  }

  /// The URL of the server's `folio serve: listening on URL` line, or nil at its exit or the
  /// deadline. Reads byte by byte: nothing after the line is taken from the pipe.
  private static func listeningLine(_ fd: Int32, deadline: Date) -> String? {
    let marker = "folio serve: listening on "
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while Date() < deadline {
      var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let n = poll(&ready, 1, 100)
      if n < 0 && errno != EINTR { return nil }
      if n <= 0 { continue }
      let got = read(fd, &byte, 1)
      if got < 0 && errno == EINTR { continue }
      if got <= 0 { return nil }
      if byte != UInt8(ascii: "\n") {
        line.append(byte)
        continue
      }
      let text = String(decoding: line, as: UTF8.self)
      if text.hasPrefix(marker) { return String(text.dropFirst(marker.count)).trimmingCharacters(in: .whitespaces) }
      line.removeAll()
    }
    return nil
  }

  /// Stops serving and waits until it has.
  func stop() async {
    close(lifeline)
    if process.isRunning { process.terminate() }
    let p = process
    await Task.detached { p.waitUntilExit() }.value
  }
}
