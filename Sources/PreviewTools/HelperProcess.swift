import ProviderAPI

/// One run of an installed tool for a preview, sandboxed and bounded.
///
/// The tool runs with an argv (never a shell), stdin from /dev/null, in a session of its own
/// (setsid: its own process group and no controlling terminal, so `7z` or `bsdtar` can never
/// prompt for a password: vifm #569), with a minimal environment, the private cache folder as its
/// working directory, and limits on CPU (5 s), address space (1 GiB) and file size (64 MiB).
///
/// Folio stops it at the output cap (64 KiB), at a line cap (an archive listing's N entries:
/// bsdtar ignores SIGPIPE and would read on), at the deadline (2 s) or when the calling task is
/// cancelled (the cursor moved): SIGTERM to the whole process group, SIGKILL 200 ms later, and the
/// child reaped. A helper that ends by itself has what is left of its group killed too. When
/// `run` returns, nothing it started is alive: that is what keeps "at most one helper alive" true
/// while the cursor moves.
///
/// Reading happens on a thread of its own (poll over the pipes, a pidfd and a wake-up pipe), so
/// no thread of Swift's cooperative pool ever blocks on a helper.
public enum HelperProcess {
  /// Runs `command` and returns what it printed and how it ended.
  ///
  /// - Parameters:
  ///   - command: the program (an absolute path: see ``HelperSandbox/locate(_:)``) and arguments.
  ///   - sandbox: the cwd, the search path and home passed on.
  ///   - limits: caps, deadline and resource limits.
  /// - Returns: the output (at most `limits.outputCap` bytes) and the ending.
  /// - Throws: `CancellationError` when the task was cancelled (the helper is killed and reaped
  ///   first); a ``HelperError`` when it could not be started.
  public static func run(_ command: HelperCommand, sandbox: HelperSandbox, limits: HelperLimits = HelperLimits())
    async throws -> HelperResult
  {
    try Task.checkCancellation()
    let supervisor = try HelperSupervisor(command: command, sandbox: sandbox, limits: limits)
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in supervisor.start(continuation) }
    } onCancel: {
      supervisor.cancel()
    }
  }
}

/// A program and its arguments. Arguments are bytes: a file name on Linux need not be UTF-8.
public struct HelperCommand: Sendable, Equatable {
  /// The absolute path of the program.
  public var executable: String
  /// `argv[1...]`.
  public var arguments: [[UInt8]]

  public init(executable: String, arguments: [[UInt8]]) {
    self.executable = executable
    self.arguments = arguments
  }

  public init(executable: String, arguments: [String]) {
    self.init(executable: executable, arguments: arguments.map { Array($0.utf8) })
  }
}

/// How long and how much a helper may run and print.
public struct HelperLimits: Sendable, Equatable {
  /// From the start to SIGTERM.
  public var deadline: Duration = .seconds(2)
  /// Bytes of stdout kept; one more and the helper is stopped.
  public var outputCap: Int = 64 * 1024
  /// Lines of stdout kept (an archive's entries), or nil for no line cap.
  public var lineCap: Int? = nil
  /// Bytes of stderr kept (for the reason a tool failed); the rest is read and dropped.
  public var errorCap: Int = 4 * 1024
  /// From SIGTERM to SIGKILL.
  public var terminationGrace: Duration = .milliseconds(200)
  /// From SIGKILL to giving up waiting (a process in uninterruptible sleep on a dead mount cannot
  /// die at once): the caller gets its answer, and the helper's thread reaps the child when it
  /// finally dies.
  public var abandonAfter: Duration = .seconds(1)
  /// RLIMIT_CPU, in seconds.
  public var cpuSeconds: UInt64 = 5
  /// RLIMIT_AS, in bytes.
  public var addressSpaceBytes: UInt64 = 1 << 30
  /// RLIMIT_FSIZE, in bytes: the largest file a helper may write (a picture in the cache folder).
  public var fileSizeBytes: UInt64 = 64 << 20

  public init() {}
}

/// What a helper printed and how it ended.
public struct HelperResult: Sendable, Equatable {
  /// Why Folio stopped a helper before it ended by itself.
  public enum Stop: Sendable, Equatable {
    /// It printed more than `outputCap` bytes.
    case outputCap
    /// It printed `lineCap` lines (the output keeps exactly those).
    case lineCap
    /// It ran past the deadline.
    case deadline
  }

  /// How the process ended.
  public enum Termination: Sendable, Equatable {
    case exited(Int32)
    case signaled(Int32)
    /// It did not die within `abandonAfter` of SIGKILL; it is reaped later.
    case abandoned
  }

  /// The helper's process id (also its process group's and session's id).
  public var pid: Int32
  /// Stdout, at most `outputCap` bytes (or `lineCap` lines).
  public var output: [UInt8]
  /// The first `errorCap` bytes of stderr.
  public var errorOutput: [UInt8]
  /// Nil when the helper ended by itself.
  public var stop: Stop?
  public var termination: Termination

  /// True when it ended by itself with status 0.
  public var succeeded: Bool { stop == nil && termination == .exited(0) }
  /// True when the output is not all the helper had to say.
  public var isTruncated: Bool { stop != nil }
}
