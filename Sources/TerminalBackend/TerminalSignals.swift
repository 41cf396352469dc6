// `termios` is Glibc's, but in a release build from a clean scratch directory the compiler takes
// CNCursesW's header (which includes <termios.h>) as its defining module, and MemberImportVisibility
// then refuses `termios()` without this import (`scripts/install` failed so).
import CNCursesW

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Gives the terminal back when the process ends without reaching `shutdown()`.
///
/// - SIGTERM, SIGHUP (an SSH connection dropping), SIGINT and SIGQUIT: restore the terminal and exit
///   with 128 + the signal. In raw mode Ctrl-C and Ctrl-\ are keys, so SIGINT and SIGQUIT only come
///   from `kill` — or from the terminal while it is suspended for an opener, where they belong to
///   the opener (the foreground process group includes Folio) and are ignored here, as `system(3)`
///   ignores them while it waits.
/// - SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP (a crash, a Swift trap): restore the terminal,
///   then hand the signal to whoever had it before (the Swift runtime's backtracer, or the default
///   core dump), so the crash report lands on the normal screen instead of vanishing with the
///   alternate one.
/// - `exit()` without `shutdown()` (an error path that skipped the app's `defer`): an `atexit`
///   handler restores the terminal.
/// - SIGTSTP and SIGWINCH stay with ncurses, which installs its own handlers when it finds the
///   defaults (see NCursesTerminal+Keys.swift for Ctrl-Z).
///
/// A signal handler may call only async-signal-safe functions, and `endwin()` is not one, so the
/// handlers never call ncurses: `activate(restoreSequence:)` precomputes the bytes `endwin()` would
/// write (leave the alternate screen, show the cursor, reset attributes, stop mouse reporting) and
/// the handler `write(2)`s them and puts back the termios saved before `newterm` with
/// `tcsetattr(3)`, both async-signal-safe. The state the handlers read lives in memory allocated
/// once, written only from the main actor.
enum TerminalSignals {
  /// What the handlers find: whether Folio owns the terminal right now.
  struct State {
    /// `inactive`, `active` or `suspended`.
    var mode: Int32 = TerminalSignals.inactive
    var hasTermios: Int32 = 0
    var savedModes = termios()
    var restoreLength = 0
  }
  static let inactive: Int32 = 0
  static let active: Int32 = 1
  static let suspended: Int32 = 2
  static let restoreCapacity = 256

  nonisolated(unsafe) static let state: UnsafeMutablePointer<State> = {
    let p = UnsafeMutablePointer<State>.allocate(capacity: 1)
    p.initialize(to: State())
    return p
  }()
  /// The bytes that give the terminal back (`restoreLength` of them).
  nonisolated(unsafe) static let restoreBytes: UnsafeMutablePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: restoreCapacity)
    p.initialize(repeating: 0, count: restoreCapacity)
    return p
  }()
  /// The actions in place before `install()`, indexed by signal number.
  nonisolated(unsafe) static let previous: UnsafeMutablePointer<sigaction> = {
    let p = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    p.initialize(repeating: sigaction(), count: 65)
    return p
  }()
  static let endingSignals: [Int32] = [SIGTERM, SIGHUP, SIGINT, SIGQUIT]
  static let fatalSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP]

  @MainActor private static var installed = false
  @MainActor private static var atexitRegistered = false
  /// Whether SIGTSTP was ignored when Folio started (no job control): Ctrl-Z must not stop then.
  @MainActor private(set) static var stopIsIgnored = false

  /// Saves the terminal's modes and installs the handlers; call before `newterm`, so that ncurses
  /// finds SIGINT and SIGTERM taken and leaves them alone.
  @MainActor static func install() {
    guard !installed else { return }
    installed = true
    _ = restoreBytes  // initialize every global the handlers read now, not inside a handler
    _ = previous
    let s = state
    if tcgetattr(STDIN_FILENO, &s.pointee.savedModes) == 0 { s.pointee.hasTermios = 1 }
    s.pointee.mode = inactive
    s.pointee.restoreLength = 0

    var current = sigaction()
    sigaction(SIGTSTP, nil, &current)
    stopIsIgnored = isIgnored(current)

    var blocked = sigset_t()
    sigemptyset(&blocked)
    for sig in endingSignals { sigaddset(&blocked, sig) }

    var ending = sigaction()
    ending.__sigaction_handler.sa_handler = endingSignalHandler
    ending.sa_mask = blocked
    ending.sa_flags = 0
    for sig in endingSignals {
      var old = sigaction()
      sigaction(sig, nil, &old)
      // A signal ignored by whoever started Folio (nohup) stays ignored.
      if isIgnored(old) {
        previous[Int(sig)] = old
        continue
      }
      sigaction(sig, &ending, previous + Int(sig))
    }

    var fatal = sigaction()
    fatal.__sigaction_handler.sa_sigaction = fatalSignalHandler
    sigemptyset(&fatal.sa_mask)
    fatal.sa_flags = SA_SIGINFO | SA_ONSTACK
    for sig in fatalSignals { sigaction(sig, &fatal, previous + Int(sig)) }

    if !atexitRegistered {
      atexitRegistered = true
      atexit(exitHandler)
    }
  }

  /// Folio owns the terminal now; `restoreSequence` is what gives it back (at most 256 bytes).
  @MainActor static func activate(restoreSequence: [UInt8]) {
    let s = state
    let count = min(restoreSequence.count, restoreCapacity)
    s.pointee.restoreLength = 0
    for i in 0..<count { restoreBytes[i] = restoreSequence[i] }
    s.pointee.restoreLength = count
    s.pointee.mode = active
  }

  /// The terminal was given to someone else (an opener) or taken back.
  @MainActor static func setSuspended(_ suspended: Bool) {
    state.pointee.mode = suspended ? Self.suspended : active
  }

  /// Folio gave the terminal back for good: the handlers go back to what they were.
  @MainActor static func uninstall() {
    state.pointee.mode = inactive
    guard installed else { return }
    installed = false
    for sig in endingSignals + fatalSignals { sigaction(sig, previous + Int(sig), nil) }
  }

  private static func isIgnored(_ action: sigaction) -> Bool {
    unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
  }

  /// Writes the restore bytes and puts the saved termios back. Async-signal-safe.
  static func restoreTerminal() {
    let s = state
    let length = s.pointee.restoreLength
    var offset = 0
    while offset < length {
      let n = write(STDOUT_FILENO, restoreBytes + offset, length - offset)
      if n > 0 {
        offset += n
      } else if n < 0 && errno == EINTR {
        continue
      } else {
        break
      }
    }
    if s.pointee.hasTermios == 1 { tcsetattr(STDIN_FILENO, TCSADRAIN, &s.pointee.savedModes) }
  }
}

/// SIGTERM, SIGHUP, SIGINT, SIGQUIT.
private let endingSignalHandler: @convention(c) (Int32) -> Void = { sig in
  let s = TerminalSignals.state
  let mode = s.pointee.mode
  if mode == TerminalSignals.suspended && (sig == SIGINT || sig == SIGQUIT) { return }
  if mode == TerminalSignals.active {
    s.pointee.mode = TerminalSignals.inactive
    TerminalSignals.restoreTerminal()
  }
  _exit(128 + sig)
}

/// A crash: restore, then let the previous handler (or the default action) have the signal.
private typealias InfoHandler = @convention(c) (
  Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?
) -> Void
private let fatalSignalHandler: InfoHandler = { sig, info, _ in
  let s = TerminalSignals.state
  if s.pointee.mode == TerminalSignals.active {
    s.pointee.mode = TerminalSignals.inactive
    TerminalSignals.restoreTerminal()
  }
  sigaction(sig, TerminalSignals.previous + Int(sig), nil)
  // A fault returns to the faulting instruction, which faults again into the previous handler with
  // its original context; a signal that was sent (kill, abort, raise) has to be sent again.
  if sig == SIGTRAP || (info?.pointee.si_code ?? 0) <= 0 { raise(sig) }
}

/// `exit()` while Folio still owns the terminal.
private let exitHandler: @convention(c) () -> Void = {
  let s = TerminalSignals.state
  if s.pointee.mode == TerminalSignals.active {
    s.pointee.mode = TerminalSignals.inactive
    TerminalSignals.restoreTerminal()
  }
}
