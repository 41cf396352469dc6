import CPreviewTools
import Foundation
import ProviderAPI
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Starts one helper and watches it on a thread of its own until it is gone: reads its pipes,
/// enforces the caps and the deadline, turns a cancellation into SIGTERM then SIGKILL to its
/// process group, and reaps it. See ``HelperProcess``.
///
/// A dedicated thread, not the cooperative pool: the fork waits for the exec, and the loop
/// sleeps in poll(2) for up to the deadline. One such thread lives per running helper, and the
/// preview service runs at most one helper at a time.
final class HelperSupervisor: Sendable {
  private let command: HelperCommand
  private let sandbox: HelperSandbox
  private let limits: HelperLimits
  /// A pipe whose read end polls readable once the task is cancelled (both ends closed in deinit,
  /// so `cancel` never writes to a descriptor that was closed and reused).
  private let wakeRead: Int32
  private let wakeWrite: Int32
  private let cancelled = Atomic<Bool>(false)

  init(command: HelperCommand, sandbox: HelperSandbox, limits: HelperLimits) throws(HelperError) {
    guard command.executable.hasPrefix("/") else {
      throw HelperError(.notFound, "\(TerminalText.escape(command.executable)) is not an absolute path")
    }
    if command.executable.utf8.contains(0) || command.arguments.contains(where: { $0.contains(0) }) {
      throw HelperError(.invalidArgument, "an argument of \(TerminalText.escape(command.executable)) holds a NUL byte")
    }
    var fds: [Int32] = [-1, -1]
    guard folio_output_pipe(&fds) == 0 else {
      throw HelperError(.spawnFailed, "cannot make a pipe: \(HelperSandbox.errnoText())")
    }
    (wakeRead, wakeWrite) = (fds[0], fds[1])
    self.command = command
    self.sandbox = sandbox
    self.limits = limits
  }

  deinit {
    close(wakeRead)
    close(wakeWrite)
  }

  /// Called from the task's cancellation handler, on any thread, possibly before `start`.
  func cancel() {
    guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
  }

  func start(_ continuation: CheckedContinuation<HelperResult, any Error>) {
    let thread = Thread { self.supervise(continuation) }
    thread.name = "folio.preview-helper"
    thread.start()
  }

  // MARK: - The thread

  private func supervise(_ continuation: CheckedContinuation<HelperResult, any Error>) {
    if cancelled.load(ordering: .acquiring) { return continuation.resume(throwing: CancellationError()) }
    let pid: pid_t
    let outFD: Int32
    let errFD: Int32
    switch spawn() {
    case .failure(let error): return continuation.resume(throwing: error)
    case .success(let started): (pid, outFD, errFD) = started
    }
    var watch = HelperWatch(pid: pid, outFD: outFD, errFD: errFD, wakeFD: wakeRead, limits: limits)
    watch.run()
    close(outFD)
    close(errFD)
    if watch.abandoned {
      // Answer now; reap when it finally dies (this thread has nothing else to do).
      answer(continuation, watch, termination: .abandoned)
      var code: Int32 = 0
      var signal: Int32 = 0
      _ = folio_reap(pid, &code, &signal)
      return
    }
    // The leader is a zombie (its pid, hence its group id, cannot be reused yet): whatever is left
    // of its group was started by it and goes too.
    kill(-pid, SIGKILL)
    var code: Int32 = 0
    var signal: Int32 = 0
    let termination: HelperResult.Termination =
      folio_reap(pid, &code, &signal) != 0 ? .abandoned : signal != 0 ? .signaled(signal) : .exited(code)
    answer(continuation, watch, termination: termination)
  }

  private func answer(
    _ continuation: CheckedContinuation<HelperResult, any Error>, _ watch: HelperWatch,
    termination: HelperResult.Termination
  ) {
    if watch.wasCancelled { return continuation.resume(throwing: CancellationError()) }
    continuation.resume(
      returning: HelperResult(
        pid: watch.pid, output: watch.output, errorOutput: watch.errorOutput, stop: watch.stop,
        termination: termination))
  }

  /// Forks and execs the helper with its stdout and stderr on pipes.
  private func spawn() -> Result<(pid_t, Int32, Int32), HelperError> {
    var out: [Int32] = [-1, -1]
    var err: [Int32] = [-1, -1]
    guard folio_output_pipe(&out) == 0 else {
      return .failure(HelperError(.spawnFailed, "cannot make a pipe: \(HelperSandbox.errnoText())"))
    }
    guard folio_output_pipe(&err) == 0 else {
      let reason = HelperSandbox.errnoText()
      close(out[0])
      close(out[1])
      return .failure(HelperError(.spawnFailed, "cannot make a pipe: \(reason)"))
    }
    let argv = CStringArray([Array(command.executable.utf8)] + command.arguments)
    let envp = CStringArray(sandbox.environment.map { Array($0.utf8) })
    var limits = folio_helper_limits(
      cpu_seconds: self.limits.cpuSeconds, address_space_bytes: self.limits.addressSpaceBytes,
      file_size_bytes: self.limits.fileSizeBytes, core_bytes: 0)
    var pid: pid_t = 0
    let rc = folio_spawn_helper(
      command.executable, argv.pointers, envp.pointers, sandbox.directory, out[1], err[1], &limits, &pid)
    close(out[1])
    close(err[1])
    guard rc == 0 else {
      close(out[0])
      close(err[0])
      let name = TerminalText.escape(command.executable)
      return .failure(
        HelperError(rc == ENOENT ? .notFound : .spawnFailed, "cannot run \(name): \(HelperSandbox.errnoText(rc))"))
    }
    return .success((pid, out[0], err[0]))
  }
}

/// NUL-terminated copies of byte strings and the NULL-terminated array exec wants, freed on deinit.
private final class CStringArray {
  let pointers: [UnsafeMutablePointer<CChar>?]

  init(_ strings: [[UInt8]]) {
    pointers =
      strings.map { bytes in
        let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (i, byte) in bytes.enumerated() { p[i] = CChar(bitPattern: byte) }
        p[bytes.count] = 0
        return p
      } + [nil]
  }

  deinit { for p in pointers { p?.deallocate() } }
}
