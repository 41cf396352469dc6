import BrowserUI
import CNCursesW
import Dispatch
import PreviewKit
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether the backend may use colors.
public enum ColorMode: Sendable, Equatable {
  /// Colors when the terminal has them and `NO_COLOR` is unset or empty (no-color.org).
  case auto
  /// Never: every role gets the theme's monochrome emphasis (`--no-color`).
  case none
}

/// Why the terminal could not be taken: one line for a person.
public struct TerminalError: Error, Sendable, Equatable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// The terminal as ncursesw drives it: presents ``Screen``s and reads keys.
///
/// The only user of ncurses in Folio. ncurses is not thread-safe — it keeps the screen, the
/// terminfo entry and its input queue in process globals — so the class is `@MainActor` and
/// every ncurses call, from `newterm` to `endwin`, happens on the main actor; the signal handlers
/// in ``TerminalSignals`` never call it.
///
/// Modes: `raw()` rather than `cbreak()`, so Ctrl-C, Ctrl-\ and Ctrl-Z reach Folio as keys and no
/// keystroke kills it mid-write: Ctrl-C is `.control("c")`, which always quits (`KeyMap.alwaysQuits`),
/// and Ctrl-Z is handled here (suspend, stop like a shell job, full redraw after `fg`; see
/// NCursesTerminal+Keys.swift).
/// `noecho`, `nonl` (Enter arrives as \r), `keypad` (arrows as KEY_* codes), a hidden cursor and a
/// 25 ms escape delay, so Esc answers at once and arrow sequences still parse over ssh.
///
/// Drawing: `present` compares the screen with the one presented before and redraws, per row, only
/// the span of cells that changed (ncurses then sends only what differs from the physical screen).
/// After a resize or a resume everything is redrawn onto a cleared screen.
@MainActor
public final class NCursesTerminal: TerminalDevice {
  let window: UnsafeMutablePointer<WINDOW>
  private var appearances: RoleAppearances
  /// The appearance of the last plain cell drawn in this frame (``draw(_:x:y:columns:)``).
  private var lastPlain: (role: StyleRole, background: StyleRole?, appearance: RoleAppearance)?
  /// The run of printable ASCII cells being gathered for one `mvwadd_wchnstr` (``present(_:)``).
  private var run = ASCIIRun()
  private let mouseEnabled: Bool
  /// What the terminal shows (after the last `present`); nil forces a full redraw.
  private var presented: Screen?
  private var isSuspended = false
  private var isShutDown = false
  /// Keys read ahead (an escape followed by another key) or made up (a resize found on resume).
  var pendingKeys: [KeyEvent] = []
  /// Input read ahead after an Esc that is a key of its own (see `escape()`), read again first.
  var pushedBack: [Input] = []
  /// Tells the loop that standard input has something (see `wakeWhenInputArrives`).
  private let inputWatch = InputWatch()

  /// Takes the terminal.
  ///
  /// - Parameters:
  ///   - theme: the colors of every role, allocated as color pairs once, here.
  ///   - colorMode: `.none` for attributes only (also what `NO_COLOR` and colorless terminals get).
  ///   - mouse: report clicks, right clicks and the wheel (`.mouseClick`, `.scrollUp`, …).
  /// - Throws: ``TerminalError`` when standard input or output is not a terminal, `TERM` is unset
  ///   or unknown; the terminal is left untouched then.
  public init(theme: Theme, colorMode: ColorMode, mouse: Bool) throws(TerminalError) {
    let term = try Self.checkTerminal()
    // setlocale(LC_ALL, "") (and a UTF-8 LC_CTYPE) before newterm: ncursesw decides then whether
    // it speaks UTF-8, and wcwidth must agree with DisplayWidth.
    DisplayWidth.setUp()
    TerminalSignals.install()
    guard let screen = newterm(nil, folio_stdout(), folio_stdin()), let window = folio_stdscr() else {
      TerminalSignals.uninstall()
      throw TerminalError("cannot use the terminal type \"\(term)\" (no terminfo entry?): try TERM=xterm-256color")
    }
    _ = screen  // the one SCREEN stays current until endwin; it is never deleted (see shutdown())
    self.window = window
    raw()
    noecho()
    nonl()
    keypad(window, true)
    intrflush(window, false)
    leaveok(window, true)
    scrollok(window, false)
    curs_set(0)
    // How long ncurses waits after an Esc for the rest of a sequence (an arrow): 25 ms as ranger
    // and nnn use, unless ESCDELAY says otherwise (ncurses read it in newterm). Its default, 1 s,
    // made Esc slow and took a key typed within that second as part of the Esc.
    if getenv("ESCDELAY") == nil { set_escdelay(25) }
    // No typeahead check: by default doupdate polls standard input before every few lines it
    // writes and flushes what it has each time (a poll and a write(2) per changed row); a frame is
    // small and drawn after the keys typed so far were taken, so it goes out whole, in one write.
    typeahead(-1)
    appearances = RoleAppearances.allocate(theme: theme, colorMode: colorMode)
    var mouseOn = false
    if mouse {
      // Presses only, with no click interval: a click answers on the press instead of after
      // ncurses waits to tell a click from a drag, and motion events never flood the loop.
      mouseinterval(0)
      let wanted = folio_button1_pressed() | folio_button3_pressed() | folio_button4_pressed() | folio_button5_pressed()
      mouseOn = mousemask(wanted, nil) != 0
    }
    mouseEnabled = mouseOn
    TerminalSignals.activate(restoreSequence: Self.restoreSequence(mouse: mouseOn))
  }

  /// Whether the full-screen browser can run here, asked before anything is written to the
  /// terminal (and before `folio demo` starts its server): standard input and output are a
  /// terminal, and `TERM` names a terminfo entry that can move the cursor and clear the screen.
  /// `TERM=dumb` (Emacs' shell, some CI logs) has neither: ncurses accepted it, and Folio drew a
  /// blank screen with a stuck "loading", then left its bytes on the shell's line.
  ///
  /// - Returns: the terminal type.
  /// - Throws: ``TerminalError`` saying what is wrong and which TERM would work, in one line.
  public static func checkTerminal() throws(TerminalError) -> String {
    guard isatty(STDIN_FILENO) == 1 else {
      throw TerminalError("the full-screen browser needs a terminal, but standard input is not one")
    }
    guard isatty(STDOUT_FILENO) == 1 else {
      throw TerminalError("the full-screen browser needs a terminal, but standard output is not one")
    }
    guard let term = getenv("TERM").map({ String(cString: $0) }), !term.isEmpty else {
      throw TerminalError("TERM is not set: set it to your terminal's type (for example TERM=xterm-256color)")
    }
    let shown = TerminalText.escape(term)
    let others = "(the other commands, such as folio ls, work on any terminal)"
    switch folio_terminfo_usable(term) {
    case 1: return term
    case -1:
      throw TerminalError(
        "no terminfo database was found for TERM=\(shown): install ncurses-base (or set TERMINFO) \(others)")
    case 2, 0 where term == "dumb":
      throw TerminalError(
        "TERM=\(shown) cannot move the cursor, which the full-screen browser needs: run it in a terminal "
          + "such as TERM=xterm-256color \(others)")
    default:
      throw TerminalError(
        "the terminal type \"\(shown)\" is unknown here (no terminfo entry), or too limited for a "
          + "full-screen program: try TERM=xterm-256color \(others)")
    }
  }

  /// How many colors the backend uses: 0 (attributes only), 8, 16, 256 or a direct-color count.
  public var colorCount: Int { appearances.colors }

  public var size: (width: Int, height: Int) { (Int(folio_cols()), Int(folio_lines())) }

  // MARK: Drawing

  public func present(_ screen: Screen) {
    guard !isShutDown, !isSuspended else { return }
    let columns = min(screen.width, Int(folio_cols()))
    let rows = min(screen.height, Int(folio_lines()))
    var previous = presented.flatMap { $0.width == screen.width && $0.height == screen.height ? $0 : nil }
    // A picture needs up to a pair per cell: when the pairs are nearly spent, the preview's are
    // recycled, and the whole frame is drawn again with the new ones.
    lastPlain = nil
    let before = appearances.pairsInUse
    appearances.recycleInkPairs(ifFewerThan: columns * rows)
    if appearances.pairsInUse < before { previous = nil }
    if previous == nil {
      // After a resize or a resume, or the first time: nothing on the terminal can be trusted.
      werase(window)
      clearok(folio_curscr(), true)
    }
    var run = self.run
    run.reserve(columns)
    var plain = lastPlain
    defer { self.run = run }
    for y in 0..<rows {
      var first = 0
      var last = columns - 1
      if let previous {
        // Never starting or ending in the middle of a wide character, old or new.
        guard let span = screen.changedColumns(inRow: y, since: previous, columns: columns) else { continue }
        first = span.lowerBound
        last = span.upperBound
      }
      var x = first
      while x <= last {
        let cell = screen[x, y]
        if cell.width == 1, let byte = cell.asciiByte, byte >= 0x20, byte < 0x7F {
          // Printable ASCII, nearly every cell: gathered into runs of one appearance, each copied
          // into the window with one call (``ASCIIRun``). The run and the last plain role are
          // locals here: a stored property's every access is an exclusivity check, per cell.
          let appearance: RoleAppearance
          if cell.ink == .plain, let known = plain, known.role == cell.role, known.background == cell.background {
            appearance = known.appearance
          } else {
            appearance = self.appearance(of: cell)
            plain = lastPlain
          }
          if !run.continues(at: x, with: appearance) {
            run.flush(to: window, y: y)
            run.start(at: x, with: appearance)
          }
          run.append(byte)
          x += 1
          continue
        }
        run.flush(to: window, y: y)
        if cell.isContinuation {
          // Only an orphan gets here (its wide character is not to its left): a blank keeps the grid.
          if x == 0 || screen[x - 1, y].width != 2 {
            draw(Cell(" ", role: cell.background ?? cell.role), x: x, y: y, columns: columns)
          }
          x += 1
          continue
        }
        draw(cell, x: x, y: y, columns: columns)
        x += max(1, Int(cell.width))
      }
      run.flush(to: window, y: y)
    }
    presented = screen
    wnoutrefresh(window)
    doupdate()
  }

  /// Draws one cell with setcchar + mvwadd_wch: the base character and up to four combining marks,
  /// in the role's attributes and color pair.
  ///
  /// A character ncurses (wcwidth) finds narrower than the cell's width (a regional-indicator flag,
  /// which DisplayWidth counts as 2 and glibc as 1) gets a blank after it, so the grid stays where
  /// the views put it; a control character that slipped through becomes `?`.
  private func draw(_ cell: Cell, x: Int, y: Int, columns: Int) {
    let appearance = self.appearance(of: cell)
    if cell.width == 1, let byte = cell.asciiByte, byte >= 0x20, byte < 0x7F {
      // Printable ASCII, nearly every cell: one column wide for wcwidth too, no Glyph to build.
      Self.addASCII(byte, appearance: appearance, to: window, x: x, y: y)
      return
    }
    var cellWidth = Int(cell.width)
    var glyph = Glyph(cell.text)
    if cellWidth == 2 && x + 1 >= columns {
      // A wide character cannot start in the last column: a blank instead.
      glyph = Glyph(" ")
      cellWidth = 1
    }
    if glyph.width > cellWidth { glyph = Glyph("?") }
    put(glyph, x: x, y: y, appearance: appearance)
    if glyph.width < cellWidth {
      for pad in glyph.width..<cellWidth where x + pad < columns {
        put(Glyph(" "), x: x + pad, y: y, appearance: appearance)
      }
    }
  }

  /// The attributes and color pair a cell is drawn in.
  private func appearance(of cell: Cell) -> RoleAppearance {
    guard cell.ink == .plain else { return appearances.appearance(of: cell.role, ink: cell.ink) }
    // Neighbouring cells nearly always share their role: one dictionary lookup (a String's
    // hash: the roles' raw values) per run of them instead of one per cell.
    if let last = lastPlain, last.role == cell.role, last.background == cell.background { return last.appearance }
    let appearance = appearances.appearance(of: cell.role, on: cell.background)
    lastPlain = (cell.role, cell.background, appearance)
    return appearance
  }

  /// Nonisolated: closures made in a main-actor method get a check of the executor on entry
  /// (two per cell here, ~10 % of a full frame's instructions).
  private nonisolated static func addASCII(
    _ byte: UInt8, appearance: RoleAppearance, to window: UnsafeMutablePointer<WINDOW>, x: Int, y: Int
  ) {
    var cc = cchar_t()
    var pair = appearance.pair
    var chars: (wchar_t, wchar_t) = (wchar_t(byte), 0)
    withUnsafePointer(to: &chars) {
      $0.withMemoryRebound(to: wchar_t.self, capacity: 2) { _ = setcchar(&cc, $0, appearance.attributes, 0, &pair) }
    }
    _ = mvwadd_wch(window, Int32(y), Int32(x), &cc)
  }

  private func put(_ glyph: Glyph, x: Int, y: Int, appearance: RoleAppearance) {
    var cc = cchar_t()
    var pair = appearance.pair
    glyph.scalars.withUnsafeBufferPointer { chars in
      _ = setcchar(&cc, chars.baseAddress, appearance.attributes, 0, &pair)
    }
    _ = mvwadd_wch(window, Int32(y), Int32(x), &cc)
  }

  // MARK: Suspend, resume, shutdown

  public func suspend() {
    guard !isShutDown, !isSuspended else { return }
    isSuspended = true
    TerminalSignals.setSuspended(true)
    endwin()
  }

  public func resume() {
    guard !isShutDown, isSuspended else { return }
    isSuspended = false
    // The first refresh after endwin puts the terminal back in program mode (raw, keypad,
    // alternate screen, mouse); the next present redraws everything on a cleared screen.
    wrefresh(window)
    curs_set(0)
    TerminalSignals.setSuspended(false)
    presented = nil
    noticeSizeChange()
  }

  /// One call of `wake` when standard input becomes readable. Only while Folio has the terminal:
  /// suspended, the keys are the opener's. Keys ncurses already read ahead into its own buffer do
  /// not wake the loop; it reads them at its next turn (at most its tick away).
  public func wakeWhenInputArrives(_ wake: @escaping @Sendable () -> Void) -> Bool {
    guard !isShutDown, !isSuspended else { return false }
    if !pendingKeys.isEmpty || !pushedBack.isEmpty {
      wake()
      return true
    }
    inputWatch.arm(wake)
    return true
  }

  public func stopWakingOnInput() { inputWatch.disarm() }

  public func shutdown() {
    guard !isShutDown else { return }
    isShutDown = true
    inputWatch.stop()
    run.deallocate()
    if !isendwin() { endwin() }
    if !Self.hasAlternateScreen, let clear = folio_tigetstr("clear") {
      // No alternate screen (vt100): the last frame would stay, and the shell's prompt would land
      // on its status line. The screen as it was is gone for good on such a terminal; the best
      // that is left is a clean one, the cursor at the top.
      let bytes = Self.withoutPadding(clear)
      _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, folio_stdout()) }
      fflush(folio_stdout())
    }
    // The SCREEN is not deleted: ncurses' own SIGWINCH/SIGTSTP handlers may still look at it.
    TerminalSignals.uninstall()
  }

  /// After a resume the terminal may have another size (resized while an opener or the shell had
  /// it, when Folio got no SIGWINCH): tell ncurses and queue a `.resize` for the app. The app
  /// redraws after `resume()` anyway; the event carries the new size.
  func noticeSizeChange() {
    var rows: Int32 = 0
    var cols: Int32 = 0
    guard folio_terminal_size(STDOUT_FILENO, &rows, &cols) == 0 else { return }
    guard rows != folio_lines() || cols != folio_cols() else { return }
    resizeterm(rows, cols)
    presented = nil
    TerminalSignals.activate(restoreSequence: Self.restoreSequence(mouse: mouseEnabled))
    pendingKeys.append(.resize(width: Int(cols), height: Int(rows)))
  }

  /// Called on KEY_RESIZE: ncurses has already resized its screens.
  func didResize() {
    presented = nil
    TerminalSignals.activate(restoreSequence: Self.restoreSequence(mouse: mouseEnabled))
  }

  var suspended: Bool { isSuspended }
  var shutDown: Bool { isShutDown }

  /// What `endwin()` would write, for the signal handlers: stop mouse reporting, reset attributes
  /// and colors, show the cursor, leave keypad-transmit mode, move to the bottom line and leave
  /// the alternate screen (on a terminal without one: clear the screen, as `shutdown` does).
  static func restoreSequence(mouse: Bool) -> [UInt8] {
    var bytes: [UInt8] = []
    func append(_ s: UnsafePointer<CChar>?) {
      guard let s else { return }
      bytes += withoutPadding(s)
    }
    if mouse {
      if let xm = folio_tigetstr("XM") {
        append(folio_tiparm1(xm, 0))
      } else if folio_tigetstr("kmous") != nil {
        append("\u{1b}[?1000l")
      }
    }
    append(folio_tigetstr("sgr0"))
    append(folio_tigetstr("op"))
    append(folio_tigetstr("cnorm"))
    append(folio_tigetstr("rmkx"))
    if hasAlternateScreen {
      if let cup = folio_tigetstr("cup") { append(folio_tiparm2(cup, max(0, folio_lines() - 1), 0)) }
      append(folio_tigetstr("rmcup"))
    } else {
      // As `shutdown` does on a terminal without an alternate screen: a clean screen.
      append(folio_tigetstr("clear"))
    }
    return bytes
  }

  /// A terminfo string's bytes without its padding specifications (`$<50>`, `$<2*/>`): those are
  /// delays for tputs to honour, and written raw they show up as text (vt100's `clear` has one).
  /// The strings are written outside ncurses (after endwin, from a signal handler), so drop them.
  static func withoutPadding(_ s: UnsafePointer<CChar>) -> [UInt8] {
    let raw = Array(UnsafeBufferPointer(start: s, count: strlen(s))).map { UInt8(bitPattern: $0) }
    var out: [UInt8] = []
    var i = 0
    while i < raw.count {
      if raw[i] == UInt8(ascii: "$"), i + 1 < raw.count, raw[i + 1] == UInt8(ascii: "<"),
        let close = raw[(i + 2)...].firstIndex(of: UInt8(ascii: ">")),
        raw[(i + 2)..<close].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "/") })
      {
        i = close + 1
        continue
      }
      out.append(raw[i])
      i += 1
    }
    return out
  }

  /// Whether the terminal has an alternate screen to leave (xterm, screen, tmux; not a vt100).
  static var hasAlternateScreen: Bool { folio_tigetstr("rmcup") != nil && folio_tigetstr("smcup") != nil }
}

/// A one-shot "standard input is readable" notification: a dispatch read source on fd 0, resumed
/// when armed and suspended again once it fired, so it never spins on input nobody reads yet.
/// Watching does not read: ncurses still reads every byte.
final class InputWatch: @unchecked Sendable {
  private let lock = PthreadLock()
  private let source: any DispatchSourceRead
  private var armed = false
  private var stopped = false
  private var wake: (@Sendable () -> Void)?

  init() {
    source = DispatchSource.makeReadSource(fileDescriptor: 0, queue: DispatchQueue(label: "folio.input"))
    source.setEventHandler { [weak self] in self?.fire() }
  }

  func arm(_ wake: @escaping @Sendable () -> Void) {
    lock.withLock {
      guard !stopped else { return }
      self.wake = wake
      if !armed {
        armed = true
        source.resume()
      }
    }
  }

  private func fire() {
    let wake: (@Sendable () -> Void)? = lock.withLock {
      guard armed else { return nil }
      armed = false
      source.suspend()
      defer { self.wake = nil }
      return self.wake
    }
    wake?()
  }

  /// Suspends the source if it is armed and has not fired; `arm` resumes it again.
  func disarm() {
    lock.withLock {
      guard armed, !stopped else { return }
      armed = false
      wake = nil
      source.suspend()
    }
  }

  /// libdispatch traps on releasing a suspended source: a terminal whose init threw (standard
  /// input not a terminal) released its watch unstopped, and `folio </dev/null` died of SIGILL.
  deinit { stop() }

  func stop() {
    lock.withLock {
      guard !stopped else { return }
      stopped = true
      wake = nil
      // A source must be resumed to be cancelled for good.
      if !armed { source.resume() }
      armed = false
      source.cancel()
    }
  }
}

/// A pthread mutex (TerminalBackend does not import Foundation), at a stable address.
final class PthreadLock: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
    let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    m.initialize(to: pthread_mutex_t())
    pthread_mutex_init(m, nil)
    return m
  }()

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  func withLock<T>(_ body: () throws -> T) rethrows -> T {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }
}

/// A cell's text as ncurses takes it: one spacing character and up to four combining marks,
/// NUL-terminated, and the width wcwidth gives it.
struct Glyph {
  var scalars: [wchar_t]
  var width: Int

  init(_ text: String) {
    var base: Unicode.Scalar?
    var marks: [Unicode.Scalar] = []
    for scalar in text.unicodeScalars {
      if base == nil {
        base = scalar
        continue
      }
      // Combining marks only: a ZWJ sequence or a flag keeps its first character, variation
      // selectors are dropped (they change the width some terminals give).
      let v = scalar.value
      if v == 0x200D || v == 0xFE0E || v == 0xFE0F { continue }
      if folio_wcwidth(wchar_t(bitPattern: v)) == 0 && marks.count < 4 { marks.append(scalar) }
    }
    guard var first = base else {
      scalars = [wchar_t(0x20), 0]
      width = 1
      return
    }
    var w = Int(folio_wcwidth(wchar_t(bitPattern: first.value)))
    if w < 0 || first.value < 0x20 || (0x7F..<0xA0).contains(first.value) {
      first = "?"
      w = 1
    } else if w == 0 {
      // A lone combining mark: put it on a space.
      marks.insert(first, at: 0)
      if marks.count > 4 { marks.removeLast() }
      first = " "
      w = 1
    }
    scalars = [wchar_t(bitPattern: first.value)] + marks.map { wchar_t(bitPattern: $0.value) } + [0]
    width = w
  }
}
