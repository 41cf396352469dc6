import BrowserUI
import CNCursesW

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension NCursesTerminal {
  /// The next key, waiting at most `timeoutMilliseconds` (0: don't wait; negative: wait for one).
  ///
  /// Ctrl-Z never reaches the app: the terminal is suspended, the process group stopped as a
  /// shell's job, and after `fg` the terminal is taken back and `.resize` (with the size then) comes
  /// back, so the app redraws everything. When Folio was started without job control (SIGTSTP
  /// ignored) Ctrl-Z is ignored. An escape sequence ncurses does not know (ctrl-arrows on some
  /// terminals) is swallowed rather than delivered as Esc followed by letters that are bindings.
  ///
  /// While the terminal is suspended (an opener has it) nothing is read — the keys are the
  /// opener's — but the call still waits up to the timeout, so a loop polling keys does not spin.
  public func readKey(timeoutMilliseconds: Int) -> KeyEvent? {
    guard !shutDown else { return nil }
    guard !suspended else {
      if timeoutMilliseconds > 0 { usleep(UInt32(min(timeoutMilliseconds, 1000)) * 1000) }
      return nil
    }
    if !pendingKeys.isEmpty { return pendingKeys.removeFirst() }
    wtimeout(window, pushedBack.isEmpty ? (timeoutMilliseconds < 0 ? -1 : Int32(clamping: timeoutMilliseconds)) : 0)
    guard let input = nextInput() else { return nil }
    switch input {
    case .function(let code): return functionKey(code)
    case .character(27): return escape()
    case .character(26): return stopForShell()
    case .character(let c): return Self.characterKey(c)
    }
  }

  /// What ncurses returned: a character, or a KEY_* code.
  enum Input {
    case character(UInt32)
    case function(Int32)
  }

  private func nextInput() -> Input? {
    if !pushedBack.isEmpty { return pushedBack.removeFirst() }
    var ch: wint_t = 0
    let result = wget_wch(window, &ch)
    if result == folio_key_code_yes() { return .function(Int32(bitPattern: ch)) }
    if result == folio_err() { return nil }
    return .character(UInt32(ch))
  }

  /// Maps a character ncurses returned as text.
  static func characterKey(_ c: UInt32) -> KeyEvent? {
    switch c {
    case 13, 10: return .enter
    case 9: return .tab
    case 127, 8: return .backspace
    case 0: return .control("@")
    case 1...26: return .control(Character(Unicode.Scalar(c + 96)!))
    case 27: return .escape
    case 28...31: return .control(Character(Unicode.Scalar(c + 64)!))
    case 0x80..<0xA0: return nil  // C1 controls: never a key
    default:
      guard let scalar = Unicode.Scalar(c) else { return nil }
      return .character(Character(scalar))
    }
  }

  /// Esc alone is `.escape`; Esc with input already waiting behind it is an escape sequence ncurses
  /// did not recognize (dropped, except the Menu key's CSI 29 ~) or Alt+key: Esc, then the key,
  /// read again as a key of its own (pushed back, not mapped here). So Esc followed at once by
  /// Ctrl-Z (a fast typist, a paste, tmux sending both in one write) is Esc and then a suspension,
  /// never a Ctrl-Z lost as "Alt-Ctrl-Z" with the keys after it taken as commands; Esc Esc is two
  /// Escs. ncurses itself waits ESCDELAY (25 ms, see `init`) after an Esc for a sequence; what
  /// arrives later is another key anyway.
  private func escape() -> KeyEvent? {
    wtimeout(window, 0)
    guard let next = nextInput() else { return .escape }
    switch next {
    case .function:
      pushedBack.append(next)
      return .escape
    case .character(0x5B):  // "[": CSI parameters, intermediates, then a final byte
      var body = ""
      while case .character(let c)? = nextInput() {
        guard let scalar = Unicode.Scalar(c) else { break }
        if (0x40...0x7E).contains(c) {
          return body == "29" && scalar == "~" ? .menu : nil
        }
        body.unicodeScalars.append(scalar)
      }
      return nil
    case .character(0x4F):  // "O": SS3 and one final byte
      _ = nextInput()
      return nil
    case .character:
      pushedBack.append(next)
      return .escape
    }
  }

  /// Maps a KEY_* code.
  private func functionKey(_ code: Int32) -> KeyEvent? {
    switch code {
    case KEY_UP, KEY_SR: return .up
    case KEY_DOWN, KEY_SF: return .down
    case KEY_LEFT, KEY_SLEFT: return .left
    case KEY_RIGHT, KEY_SRIGHT: return .right
    case KEY_HOME, KEY_FIND, KEY_A1, KEY_SHOME: return .home
    case KEY_END, KEY_SELECT, KEY_LL, KEY_C1, KEY_SEND: return .end
    case KEY_PPAGE, KEY_A3, KEY_SPREVIOUS: return .pageUp
    case KEY_NPAGE, KEY_C3, KEY_SNEXT: return .pageDown
    case KEY_DC, KEY_SDC: return .delete
    case KEY_IC: return .insert
    case KEY_BTAB: return .backTab
    case KEY_ENTER: return .enter
    case KEY_BACKSPACE: return .backspace
    case KEY_RESIZE:
      didResize()
      return .resize(width: size.width, height: size.height)
    case KEY_MOUSE: return mouseEvent()
    case (KEY_F0 + 1)...(KEY_F0 + 63): return .function(Int(code - KEY_F0))
    default: return Self.extendedKey(code)
    }
  }

  /// Keys terminfo knows only by extended names (`kUP5` is Ctrl-Up): the same as their plain key.
  private static func extendedKey(_ code: Int32) -> KeyEvent? {
    guard code > KEY_MAX, let raw = keyname(code) else { return nil }
    let name = String(cString: raw)
    let prefixes: [(String, KeyEvent)] = [
      ("kUP", .up), ("kDN", .down), ("kLFT", .left), ("kRIT", .right), ("kHOM", .home), ("kEND", .end),
      ("kPRV", .pageUp), ("kNXT", .pageDown), ("kDC", .delete), ("kIC", .insert),
    ]
    for (prefix, key) in prefixes where name.hasPrefix(prefix) {
      if name.dropFirst(prefix.count).allSatisfy(\.isNumber) { return key }
    }
    return nil
  }

  private func mouseEvent() -> KeyEvent? {
    var event = MEVENT()
    guard getmouse(&event) != folio_err() else { return nil }
    let x = Int(event.x)
    let y = Int(event.y)
    let state = event.bstate
    if state & folio_button3_pressed() != 0 { return .mouseRightClick(x: x, y: y) }
    if state & folio_button1_pressed() != 0 { return .mouseClick(x: x, y: y) }
    if state & folio_button4_pressed() != 0 { return .scrollUp }
    if state & folio_button5_pressed() != 0 { return .scrollDown }
    return nil
  }

  /// Ctrl-Z: give the terminal back, stop like a shell job, and on SIGCONT take the terminal back
  /// and ask the app for a full redraw.
  ///
  /// SIGTSTP is set to its default for the stop itself, since ncurses' own handler would run
  /// endwin a second time — on whatever thread the kernel picks, concurrently with this one. The
  /// signal is sent with `raise`, which directs it at the calling thread: the kernel stops the
  /// process before `raise` returns, so ncurses' handler is put back only after `fg`. (`kill(0, …)`
  /// makes it a process signal that another thread may take later, after the handler is back.)
  /// Only this process stops, as with ncurses' own handler; `swift run` execs the program, so
  /// Folio is its job's only process.
  private func stopForShell() -> KeyEvent? {
    guard !TerminalSignals.stopIsIgnored else { return nil }
    suspend()
    var stopDefault = sigaction()
    stopDefault.__sigaction_handler.sa_handler = SIG_DFL
    sigemptyset(&stopDefault.sa_mask)
    var saved = sigaction()
    sigaction(SIGTSTP, &stopDefault, &saved)
    var unblock = sigset_t()
    sigemptyset(&unblock)
    sigaddset(&unblock, SIGTSTP)
    pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    raise(SIGTSTP)
    // Execution continues here after `fg` (SIGCONT).
    sigaction(SIGTSTP, &saved, nil)
    resume()
    return pendingKeys.isEmpty ? .resize(width: size.width, height: size.height) : pendingKeys.removeFirst()
  }
}
