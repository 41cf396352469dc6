import BrowserUI
import Foundation
import PreviewKit
import ProviderAPI

/// Previews made this session, by item, version and pane size, within a memory budget (least
/// recently used go first): moving back over a file shows its preview on the next frame. The key
/// carries what the preview depends on (ranger's lesson: a result must say what it depends on) —
/// a new version, a new size or a new date is another key.
@MainActor
final class PreviewCache {
  struct Key: Hashable {
    var domain: DomainIdentifier
    var item: ItemIdentifier
    var version: ItemVersion
    var size: Int64?
    var modified: Double?
    var columns: Int
    var rows: Int

    init(_ s: PreviewSubject) {
      domain = s.domain
      item = s.item.identifier
      version = s.item.version
      size = s.item.documentSize
      modified = s.item.contentModificationDate?.timeIntervalSince1970
      columns = s.columns
      rows = s.rows
    }
  }

  private var entries: [Key: (preview: Preview, cost: Int, used: UInt64)] = [:]
  private var clock: UInt64 = 0
  private(set) var cost = 0
  let budget: Int

  init(budget: Int) { self.budget = budget }

  func preview(for subject: PreviewSubject) -> Preview? {
    let key = Key(subject)
    guard var entry = entries[key] else { return nil }
    clock += 1
    entry.used = clock
    entries[key] = entry
    return entry.preview
  }

  func store(_ preview: Preview, for subject: PreviewSubject) {
    let key = Key(subject)
    let c = Self.cost(of: preview)
    guard c <= budget / 4 else { return }
    if let old = entries[key] { cost -= old.cost }
    clock += 1
    entries[key] = (preview, c, clock)
    cost += c
    while cost > budget, let oldest = entries.min(by: { $0.value.used < $1.value.used }) {
      cost -= oldest.value.cost
      entries[oldest.key] = nil
    }
  }

  /// Roughly the bytes a preview holds.
  static func cost(of p: Preview) -> Int {
    switch p.body {
    case .lines(let lines): return lines.reduce(64) { $0 + 32 + $1.runs.reduce(0) { $0 + 24 + $1.text.utf8.count } }
    case .folder(let entries, _): return 64 + entries.count * 256
    case .picture(let cells): return 64 + cells.upper.count * 8
    case .message(let m): return 64 + m.utf8.count
    }
  }
}
