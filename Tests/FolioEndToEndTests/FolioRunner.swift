import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// One argv element as exact bytes.
///
/// `Process` takes `String` arguments, so a file name that is not valid UTF-8 could not reach the
/// binary intact; the runner spawns with a byte argv instead. String literals and interpolations
/// become their UTF-8 bytes.
struct Arg: ExpressibleByStringInterpolation, CustomStringConvertible, Sendable {
  let bytes: [UInt8]

  init(_ string: String) { bytes = Array(string.utf8) }
  init(bytes: [UInt8]) { self.bytes = bytes }
  init(stringLiteral value: String) { self.init(value) }

  var description: String { String(decoding: bytes, as: UTF8.self) }
}

/// What a finished run left behind.
struct RunResult: CustomStringConvertible, Sendable {
  var arguments: [Arg]
  /// The exit status, or nil when a signal ended the program.
  var status: Int32?
  var signal: Int32?
  var timedOut: Bool
  var stdout: [UInt8]
  var stderr: [UInt8]

  var out: String { String(decoding: stdout, as: UTF8.self) }
  var err: String { String(decoding: stderr, as: UTF8.self) }
  /// The lines of stdout, without the final empty one.
  var outLines: [String] { lines(out) }
  var errLines: [String] { lines(err) }

  private func lines(_ s: String) -> [String] {
    var parts = s.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if parts.last == "" { parts.removeLast() }
    return parts
  }

  /// Stdout decoded as JSON; records an issue and throws when it isn't JSON.
  func json(sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    do {
      return try JSONDecoder().decode(JSONValue.self, from: Data(stdout))
    } catch {
      Issue.record("stdout of \(commandLine) is not JSON (\(error)):\n\(out)", sourceLocation: sourceLocation)
      throw error
    }
  }

  var commandLine: String { arguments.map(\.description).joined(separator: " ") }

  /// Everything about the run, for failure messages.
  var description: String {
    let how = timedOut ? "timed out" : status.map { "exit \($0)" } ?? "signal \(signal ?? 0)"
    return "`\(commandLine)` → \(how)\n--- stdout ---\n\(out)--- stderr ---\n\(err)"
  }
}

/// Runs programs (the built `folio` first of all) with a byte argv, a given environment and working
/// directory, stdin from /dev/null, and a timeout; captures stdout, stderr and the exit status.
enum FolioRunner {
  /// Where the built `folio` binary is, or nil.
  ///
  /// The test bundle is built into the same directory as the products (`.build/<triple>/debug`),
  /// so the binary is looked for next to the running test executable first; then at
  /// `.build/debug/folio` under the package root, for a runner that lives elsewhere.
  static let binaryPath: String? = candidates.first { access($0, X_OK) == 0 }

  static let candidates: [String] = {
    var out: [String] = []
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      out.append(URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("folio").path)
    }
    let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    out.append(packageRoot.appendingPathComponent(".build/debug/folio").path)
    return out
  }()

  /// The binary's path; records a failure saying how to build it when it is missing.
  static func binary(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    try #require(
      binaryPath,
      "the folio binary is missing (looked at \(candidates.joined(separator: ", "))): run `swift build` before `swift test`",
      sourceLocation: sourceLocation)
  }

  /// The full path of a program found in `PATH`, or nil.
  static func which(_ program: String, path: String = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    -> String?
  {
    for dir in path.split(separator: ":") {
      let candidate = "\(dir)/\(program)"
      if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
  }

  /// A glibc function that Swift's Glibc module does not import (it is declared for `_GNU_SOURCE`).
  private static func libc<F>(_ name: String, as type: F.Type) -> F? {
    guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, name) else { return nil }
    return unsafeBitCast(symbol, to: type)
  }

  /// `posix_spawn_file_actions_addchdir_np`: the child must start in the test's own directory
  /// (relative paths, `./a:b`); changing the test process's directory instead would race with the
  /// tests running in parallel.
  typealias AddChdir = @convention(c) (
    UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?
  ) -> Int32
  nonisolated(unsafe) static let addChdir = libc("posix_spawn_file_actions_addchdir_np", as: AddChdir.self)

  /// `pipe2`: pipes must be close-on-exec from birth, or a program another test starts at the same
  /// moment inherits their write ends and this test waits for that program to end.
  private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
  nonisolated(unsafe) private static let pipe2 = libc("pipe2", as: Pipe2.self)

  /// Runs `executable` with `arguments` (argv[0] is the executable's path) and waits for it.
  ///
  /// - Parameters:
  ///   - environment: the child's whole environment; nothing is inherited.
  ///   - directory: the child's working directory.
  ///   - timeout: after this the child's process group is killed and `timedOut` is set.
  static func run(
    _ executable: String, _ arguments: [Arg], environment: [String: String], directory: String,
    timeout: Duration = .seconds(60)
  ) throws -> RunResult {
    let argv = [Arg(executable)] + arguments
    var cArgv: [UnsafeMutablePointer<CChar>?] = argv.map { cString($0.bytes) }
    cArgv.append(nil)
    var cEnv: [UnsafeMutablePointer<CChar>?] = environment.sorted { $0.key < $1.key }.map {
      cString(Array("\($0.key)=\($0.value)".utf8))
    }
    cEnv.append(nil)
    defer {
      for p in cArgv { p?.deallocate() }
      for p in cEnv { p?.deallocate() }
    }

    var outPipe: [Int32] = [-1, -1]
    var errPipe: [Int32] = [-1, -1]
    guard let pipe2, let addChdir else { throw RunnerError("pipe2 or posix_spawn_file_actions_addchdir_np is missing (glibc < 2.29)") }
    guard pipe2(&outPipe, O_CLOEXEC) == 0, pipe2(&errPipe, O_CLOEXEC) == 0 else {
      throw RunnerError("pipe2 failed: \(String(cString: strerror(errno)))")
    }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    _ = directory.withCString { addChdir(&actions, $0) }
    // Not a terminal: commands that would ask a question must refuse instead.
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // Its own process group, so that a timeout also kills what it started (an opener, an action);
    // SIGPIPE back to default, as a shell would start it (the test runner may ignore it).
    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGPIPE)
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setsigmask(&attributes, &mask)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, &attributes, cArgv, cEnv)
    close(outPipe[1])
    close(errPipe[1])
    guard spawned == 0 else {
      close(outPipe[0])
      close(errPipe[0])
      throw RunnerError("cannot start \(executable): \(String(cString: strerror(spawned)))")
    }

    var result = RunResult(arguments: argv, status: nil, signal: nil, timedOut: false, stdout: [], stderr: [])
    drain(out: outPipe[0], err: errPipe[0], pid: pid, timeout: timeout, into: &result)

    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot import; spelled out.
    if status & 0x7F == 0 {
      result.status = (status >> 8) & 0xFF
    } else {
      result.signal = status & 0x7F
    }
    return result
  }

  /// Reads both pipes until they close, killing the child's group when the time is up.
  private static func drain(out: Int32, err: Int32, pid: pid_t, timeout: Duration, into result: inout RunResult) {
    defer {
      close(out)
      close(err)
    }
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var killedAt: ContinuousClock.Instant?
    var fds = [pollfd(fd: out, events: Int16(POLLIN), revents: 0), pollfd(fd: err, events: Int16(POLLIN), revents: 0)]
    var buffer = [UInt8](repeating: 0, count: 65536)
    while fds.contains(where: { $0.fd >= 0 }) {
      let now = clock.now
      if killedAt == nil && now >= deadline {
        kill(-pid, SIGKILL)
        result.timedOut = true
        killedAt = now
      }
      // Something that escaped the group may still hold the pipes: stop waiting for it.
      if let k = killedAt, now >= k + .seconds(5) { break }
      let ready = poll(&fds, nfds_t(fds.count), 100)
      if ready < 0 && errno != EINTR { break }
      for i in fds.indices where fds[i].fd >= 0 && fds[i].revents != 0 {
        let n = read(fds[i].fd, &buffer, buffer.count)
        if n > 0 {
          if i == 0 { result.stdout += buffer[0..<n] } else { result.stderr += buffer[0..<n] }
        } else if n == 0 || errno != EINTR {
          fds[i].fd = -1
        }
      }
    }
  }

  private static func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar> {
    let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
    for (i, b) in bytes.enumerated() { p[i] = CChar(bitPattern: b) }
    p[bytes.count] = 0
    return p
  }
}

/// The runner could not start or watch a program (not a failure of the program itself).
struct RunnerError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
