/// A gate a test holds closed to stop provider calls at a known point, then opens.
///
/// Tests wait on conditions, never on sleeps: `waitForArrivals(n)` returns once n calls are held.
public actor Gate {
  private var isOpen = false
  private var waiters: [CheckedContinuation<Void, Never>] = []
  private var arrivalWaiters: [(Int, CheckedContinuation<Void, Never>)] = []
  public private(set) var arrivals = 0

  public init(open: Bool = false) { isOpen = open }

  /// Called by the code under test: returns when the gate is open.
  public func pass() async {
    arrivals += 1
    for (i, w) in arrivalWaiters.enumerated().reversed() where arrivals >= w.0 {
      w.1.resume()
      arrivalWaiters.remove(at: i)
    }
    if isOpen { return }
    await withCheckedContinuation { waiters.append($0) }
  }

  public func open() {
    isOpen = true
    let w = waiters
    waiters = []
    for c in w { c.resume() }
  }

  public func close() { isOpen = false }

  /// Returns once at least `n` calls have arrived at the gate.
  public func waitForArrivals(_ n: Int) async {
    if arrivals >= n { return }
    await withCheckedContinuation { arrivalWaiters.append((n, $0)) }
  }
}
