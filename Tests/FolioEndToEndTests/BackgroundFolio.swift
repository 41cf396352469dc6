import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The built `folio` running while the test acts on the world around it (kills it mid-upload,
/// cuts its link): started with the sandbox's environment, stdin from /dev/null, stdout and
/// stderr into files (nothing to drain while it runs). Killed with SIGKILL when dropped unwaited.
final class BackgroundFolio {
  let pid: pid_t
  let arguments: [Arg]
  private let outPath: String
  private let errPath: String
  private var finished: RunResult?

  init(_ sandbox: Sandbox, _ arguments: [Arg]) throws {
    let binary = try FolioRunner.binary()
    let tag = UUID().uuidString
    outPath = sandbox.root + "/bg-\(tag).out"
    errPath = sandbox.root + "/bg-\(tag).err"
    self.arguments = arguments
    guard let addChdir = FolioRunner.addChdir else { throw RunnerError("posix_spawn_file_actions_addchdir_np is missing") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    _ = sandbox.work.withCString { addChdir(&actions, $0) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv = ([Arg(binary)] + arguments).map { arg in strdup(String(decoding: arg.bytes, as: UTF8.self)) } + [nil]
    let env = sandbox.environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for p in argv { free(p) }
      for p in env { free(p) }
    }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, binary, &actions, nil, argv, env)
    guard spawned == 0 else { throw RunnerError("cannot start folio: \(String(cString: strerror(spawned)))") }
    self.pid = pid
  }

  deinit {
    if finished == nil {
      kill(pid, SIGKILL)
      _ = reap()
    }
    unlink(outPath)
    unlink(errPath)
  }

  /// True until it exits (it is not reaped here).
  var isRunning: Bool {
    var info = siginfo_t()
    return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == 0
  }

  /// `kill -9`, then waits for it.
  @discardableResult
  func kill9() -> RunResult {
    kill(pid, SIGKILL)
    return waitForExit()
  }

  /// Waits for it to end on its own (killed after `timeout`, then `timedOut` is set).
  @discardableResult
  func waitForExit(timeout: TimeInterval = 120) -> RunResult {
    if let finished { return finished }
    let deadline = Date(timeIntervalSinceNow: timeout)
    var timedOut = false
    while isRunning {
      if Date() > deadline {
        kill(pid, SIGKILL)
        timedOut = true
        break
      }
      usleep(20_000)
    }
    let status = reap()
    var result = RunResult(
      arguments: arguments, status: nil, signal: nil, timedOut: timedOut,
      stdout: Array(FileManager.default.contents(atPath: outPath) ?? Data()),
      stderr: Array(FileManager.default.contents(atPath: errPath) ?? Data()))
    if status & 0x7F == 0 { result.status = (status >> 8) & 0xFF } else { result.signal = status & 0x7F }
    finished = result
    return result
  }

  private func reap() -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
  }
}

/// Polls `condition` every 20 ms until it holds or `seconds` pass; whether it held.
func eventually(within seconds: TimeInterval = 120, _ condition: () throws -> Bool) rethrows -> Bool {
  let deadline = Date(timeIntervalSinceNow: seconds)
  while Date() < deadline {
    if try condition() { return true }
    usleep(20_000)
  }
  return try condition()
}
