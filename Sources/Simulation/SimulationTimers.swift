/// The executor's pending timers: a binary min-heap on (due, order), so the next one is found in
/// O(log n). A linear scan was fine for one run, but a batch of thousands leaves timers of
/// cancelled sleeps (each step's watchdog) behind until their virtual time comes, and the scan
/// took 80 % of a long batch's time.
struct SimulationTimers {
  struct Timer {
    var due: UInt64
    var order: UInt64
    var job: UnownedJob
    func precedes(_ other: Timer) -> Bool { (due, order) < (other.due, other.order) }
  }

  private var heap: [Timer] = []

  var isEmpty: Bool { heap.isEmpty }

  mutating func insert(_ timer: Timer) {
    heap.append(timer)
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].precedes(heap[parent]) else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  /// The earliest timer, removed.
  mutating func popFirst() -> Timer? {
    guard !heap.isEmpty else { return nil }
    heap.swapAt(0, heap.count - 1)
    let first = heap.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < heap.count && heap[left].precedes(heap[smallest]) { smallest = left }
      if right < heap.count && heap[right].precedes(heap[smallest]) { smallest = right }
      if smallest == parent { break }
      heap.swapAt(parent, smallest)
      parent = smallest
    }
    return first
  }
}
