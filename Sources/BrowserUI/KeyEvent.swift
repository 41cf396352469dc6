/// A key (or mouse event) as the backend reads it, before the key map gives it a meaning.
public enum KeyEvent: Sendable, Hashable, CustomStringConvertible {
  case character(Character)
  case control(Character)  // Ctrl-A … Ctrl-Z as .control("a")
  case enter, escape, tab, backTab, backspace, delete
  case up, down, left, right, home, end, pageUp, pageDown, insert
  case function(Int)
  case menu
  case mouseRightClick(x: Int, y: Int)
  case mouseClick(x: Int, y: Int)
  case scrollUp, scrollDown
  case resize(width: Int, height: Int)

  /// The name used in config.toml's [keys] table and in the help screen.
  public var description: String {
    switch self {
    case .character(" "): return "space"
    case .character(let c): return String(c)
    case .control(let c): return "ctrl-\(c)"
    case .enter: return "enter"
    case .escape: return "esc"
    case .tab: return "tab"
    case .backTab: return "shift-tab"
    case .backspace: return "backspace"
    case .delete: return "delete"
    case .up: return "up"
    case .down: return "down"
    case .left: return "left"
    case .right: return "right"
    case .home: return "home"
    case .end: return "end"
    case .pageUp: return "pgup"
    case .pageDown: return "pgdn"
    case .insert: return "insert"
    case .function(let n): return "f\(n)"
    case .menu: return "menu"
    case .mouseRightClick: return "right-click"
    case .mouseClick: return "click"
    case .scrollUp: return "scroll-up"
    case .scrollDown: return "scroll-down"
    case .resize: return "resize"
    }
  }
}

/// What the app loop needs from a terminal. TerminalBackend implements it with ncursesw; tests use
/// a virtual terminal that records what was presented.
@MainActor
public protocol TerminalDevice: AnyObject {
  /// Columns and rows now.
  var size: (width: Int, height: Int) { get }
  /// Shows a screen (the backend draws only what changed).
  func present(_ screen: Screen)
  /// The next key, waiting at most `timeoutMilliseconds` (0: don't wait); nil when none came.
  func readKey(timeoutMilliseconds: Int) -> KeyEvent?
  /// Gives the terminal back (before running an opener, on Ctrl-Z).
  func suspend()
  /// Takes the terminal again and redraws everything on the next present.
  func resume()
  /// Restores the terminal for good.
  func shutdown()
  /// Calls `wake` once (from any thread) when input arrives, so the loop can wait for keys
  /// without holding its thread — and the tasks it waits for can run meanwhile. Returns false
  /// when the device cannot tell (the loop then waits in `readKey` with a timeout).
  func wakeWhenInputArrives(_ wake: @escaping @Sendable () -> Void) -> Bool
  /// Forgets a `wakeWhenInputArrives` that has not fired: the idle loop blocks in `readKey`.
  func stopWakingOnInput()
  /// True when `readKey` really waits up to its timeout. The idle loop blocks there; a device
  /// that answers at once (a virtual terminal) would turn that into a busy loop on the main actor,
  /// so the loop waits suspended instead.
  var readKeyWaits: Bool { get }
  /// Puts `bytes` on the system clipboard through the terminal (OSC 52): the terminal, or tmux
  /// with `set-clipboard on`, takes it — over SSH too, where no clipboard program could reach
  /// the person's machine.
  func copyToSystemClipboard(_ bytes: [UInt8])
  /// While suspended (a shell command's output on screen): writes `prompt` and waits for one
  /// key, so the output can be read before Folio's screen covers it.
  func waitForKeyWhileSuspended(prompt: String) async
}

extension TerminalDevice {
  public func wakeWhenInputArrives(_ wake: @escaping @Sendable () -> Void) -> Bool { false }
  public var readKeyWaits: Bool { true }
  public func stopWakingOnInput() {}
  public func copyToSystemClipboard(_ bytes: [UInt8]) {}
  public func waitForKeyWhileSuspended(prompt: String) async {}
}
