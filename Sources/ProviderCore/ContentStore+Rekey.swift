import Foundation
import ProviderAPI
import WorkingSetIndex

extension ContentStore {
  /// After a rename on path-keyed storage: the cached files of the item and of everything below
  /// it take their new identifiers' keys, and the index follows (`WorkingSetIndex.rekey`: rows,
  /// tags, favorites, last use, content rows, transfers, conflicts, anchors) in one transaction.
  ///
  /// Crash-safe in the store's usual way: each new key is a hard link made (and its folder
  /// fsynced) before the index commits, and the old keys are removed after. A crash before the
  /// commit leaves the old rows on the old files and unreferenced new links; one after leaves the
  /// new rows on the new files and unreferenced old names; a start removes whatever nothing
  /// references. A cached file holding edits not yet staged is never without a name a row points at.
  ///
  /// - Returns: Every identifier replaced.
  @discardableResult
  public func rekey(
    domain: DomainIdentifier, from old: ItemPath, to new: ItemPath, provider: any PathKeyedProvider
  ) throws(ProviderError) -> [RekeyedIdentifier] {
    var linked: [(old: URL, new: URL)] = []
    for content in try index.allContent(domain: domain) {
      guard let path = provider.path(for: content.identifier), let moved = path.relocated(from: old, to: new) else {
        continue
      }
      let now = provider.identifier(for: moved)
      let from = fileURL(domain: domain, identifier: content.identifier)
      guard now != content.identifier, DurableFile.exists(from) else { continue }
      let to = fileURL(domain: domain, identifier: now)
      do throws(ProviderError) {
        try DurableFile.link(from, as: to)
      } catch {
        for l in linked { DurableFile.remove(l.new) }
        throw error
      }
      linked.append((from, to))
    }
    let replaced: [RekeyedIdentifier]
    do throws(ProviderError) {
      replaced = try index.rekey(
        domain: domain, from: old, to: new, identifier: { provider.identifier(for: $0) }, path: { provider.path(for: $0) })
    } catch {
      for l in linked { DurableFile.remove(l.new) }
      throw error
    }
    for l in linked { DurableFile.remove(l.old) }
    return replaced
  }
}
