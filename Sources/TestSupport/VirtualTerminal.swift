import BrowserUI

/// A terminal for harness tests of the app loop: keys come from a script, every presented screen
/// is kept, and suspend/resume/shutdown are recorded in order.
///
/// `readKey` never waits: it returns the next scripted key or nil at once, so a test drives the
/// loop by typing and then waits on a condition (the state, the screen), never on the clock.
@MainActor
public final class VirtualTerminal: TerminalDevice {
  /// What happened to the terminal, in order.
  public enum Event: Sendable, Equatable {
    case present, suspend, resume, shutdown
    case resize(width: Int, height: Int)
  }

  public private(set) var width: Int
  public private(set) var height: Int
  /// Every screen presented, oldest first.
  public private(set) var screens: [Screen] = []
  public private(set) var events: [Event] = []
  /// Screens presented between a suspend and its resume (an opener owns the terminal then).
  public private(set) var presentedWhileSuspended = 0
  public private(set) var isSuspended = false
  public private(set) var isShutDown = false
  /// How many times the loop asked for a key (answered or not).
  public private(set) var reads = 0
  /// What was put on the system clipboard (OSC 52), oldest first.
  public private(set) var clipboard: [[UInt8]] = []
  /// The prompts a shell command's pause showed (the key is taken at once).
  public private(set) var pausePrompts: [String] = []

  private var queue: [KeyEvent] = []
  private var head = 0
  private var wake: (@Sendable () -> Void)?

  public init(width: Int = 100, height: Int = 30) {
    self.width = width
    self.height = height
  }

  // MARK: - Scripting

  /// Queues keys; the loop reads them in order.
  public func type(_ keys: [KeyEvent]) {
    queue += keys
    wakeIfWaiting()
  }

  private func wakeIfWaiting() {
    guard head < queue.count, !isSuspended, let wake else { return }
    self.wake = nil
    wake()
  }

  public func type(_ keys: KeyEvent...) { type(keys) }

  /// Queues each character of `text` as a `.character` key.
  public func type(text: String) { type(text.map { KeyEvent.character($0) }) }

  /// Changes the size and queues the `.resize` key a real terminal would deliver.
  public func resize(width: Int, height: Int) {
    self.width = width
    self.height = height
    events.append(.resize(width: width, height: height))
    queue.append(.resize(width: width, height: height))
    wakeIfWaiting()
  }

  /// Keys typed but not read yet.
  public var pendingKeys: Int { queue.count - head }

  // MARK: - What was shown

  public var lastScreen: Screen? { screens.last }

  /// The last screen's characters, rows joined by newlines ("" before the first present).
  public var text: String { lastScreen?.textLines().joined(separator: "\n") ?? "" }

  /// The last screen's rows ([] before the first present).
  public var lines: [String] { lastScreen?.textLines() ?? [] }

  /// The status line (the last row).
  public var statusLine: String { lines.last ?? "" }

  public func count(of event: Event) -> Int { events.filter { $0 == event }.count }

  // MARK: - TerminalDevice

  public var size: (width: Int, height: Int) { (width, height) }

  public func present(_ screen: Screen) {
    if isSuspended { presentedWhileSuspended += 1 }
    screens.append(screen)
    events.append(.present)
  }

  /// The next scripted key, or nil at once. While suspended nothing is read (as the real backend:
  /// the keys belong to the program that has the terminal); they stay queued for after resume.
  /// `readKey` answers at once: the app loop waits for keys suspended (`wakeWhenInputArrives`),
  /// never spinning on the main actor, which other tests' loops share.
  public var readKeyWaits: Bool { false }

  public func readKey(timeoutMilliseconds: Int) -> KeyEvent? {
    reads += 1
    guard !isSuspended, head < queue.count else { return nil }
    let key = queue[head]
    head += 1
    if head == queue.count {
      queue.removeAll(keepingCapacity: true)
      head = 0
    }
    return key
  }

  public func copyToSystemClipboard(_ bytes: [UInt8]) { clipboard.append(bytes) }

  public func waitForKeyWhileSuspended(prompt: String) async { pausePrompts.append(prompt) }

  public func suspend() {
    isSuspended = true
    events.append(.suspend)
  }

  public func resume() {
    isSuspended = false
    events.append(.resume)
    wakeIfWaiting()
  }

  /// Wakes the loop when keys are typed (at once if some are queued already).
  public func wakeWhenInputArrives(_ wake: @escaping @Sendable () -> Void) -> Bool {
    self.wake = wake
    wakeIfWaiting()
    return true
  }

  public func shutdown() {
    isShutDown = true
    events.append(.shutdown)
  }
}
