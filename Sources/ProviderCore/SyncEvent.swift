import Foundation
import ProviderAPI
import WorkingSetIndex

/// What the sync engine tells whoever listens (the browser's badges and status line, `folio sync`
/// and `folio get` progress): plain values, one stream per listener (``SyncEventHub``).
public enum SyncEvent: Sendable, Equatable {
  /// A transfer was journaled ("queued" may be said from now on).
  case queued(TransferActivity)
  /// Bytes moved: drives the `↓ 42%` / `↑ 42%` badges. Sent at most once per percent.
  case progress(TransferActivity)
  /// Done and verified; `item` is the provider's item afterwards.
  case completed(TransferActivity, item: Item)
  /// A transient failure: tried again at `next`.
  case retrying(TransferActivity, error: ProviderError, next: Date)
  /// A resolvable failure: the transfer waits until ``TransferQueue/resolve(domain:)``.
  case throttled(TransferActivity, error: ProviderError)
  /// Trying again cannot help until a person acts (``TransferQueue/retry(_:)``).
  case failed(TransferActivity, error: ProviderError)
  /// A domain's transfers are held by a resolvable error (the status line, the sign-in prompt).
  case domainThrottled(DomainIdentifier, error: ProviderError)
  /// The condition was resolved: the domain's transfers run again.
  case domainResumed(DomainIdentifier)
  /// Both versions of an item were kept; the item shows the conflict badge.
  case conflict(SyncConflict)
  /// Remote changes reached the index (Recents and visible folders refresh).
  case itemsChanged(DomainIdentifier, updated: [ItemIdentifier], deleted: [ItemIdentifier])
  /// A materialized file's server version moved on: the next open downloads it again.
  case contentStale(DomainIdentifier, ItemIdentifier)
  /// Remote changes could not be read (the domain keeps its anchor and tries again).
  case syncFailed(DomainIdentifier, error: ProviderError)
  /// Remote changes could be read again after ``syncFailed(_:error:)``: the server is back (the
  /// browser says so in the sidebar and reads the folder on screen again).
  case syncResumed(DomainIdentifier)
}

/// One transfer as events describe it.
public struct TransferActivity: Sendable, Equatable {
  public var transferID: Int64
  public var domain: DomainIdentifier
  /// The item (for a create, the placeholder until the item exists; see ``Transfer/identifier``).
  public var identifier: ItemIdentifier
  public var direction: Transfer.Direction
  /// The file's name when known (creates; downloads of indexed items), for messages.
  public var name: ItemName?
  /// For a create: the folder the new file goes into, so a browser showing that folder can list
  /// it before the server has it. Nil for content uploads and downloads.
  public var parentIdentifier: ItemIdentifier?
  public var completedBytes: Int64
  public var totalBytes: Int64?
  /// For a create the server already answered: the item it made, known a moment before the upload
  /// is finished here (a listing may show it first; a browser then drops the pending row).
  public var createdAs: ItemIdentifier?

  public init(
    transferID: Int64, domain: DomainIdentifier, identifier: ItemIdentifier, direction: Transfer.Direction,
    name: ItemName? = nil, completedBytes: Int64 = 0, totalBytes: Int64? = nil, parentIdentifier: ItemIdentifier? = nil
  ) {
    self.transferID = transferID
    self.domain = domain
    self.identifier = identifier
    self.direction = direction
    self.name = name
    self.parentIdentifier = parentIdentifier
    self.completedBytes = completedBytes
    self.totalBytes = totalBytes
  }

  init(_ t: Transfer) {
    self.init(
      transferID: t.id, domain: t.domain, identifier: t.identifier, direction: t.direction, name: t.name,
      completedBytes: t.bytesDone, totalBytes: t.bytesTotal, parentIdentifier: t.isCreate ? t.parentIdentifier : nil)
    createdAs = t.isCreate ? t.resultIdentifier : nil
  }

  /// 0…100, or nil when the size is unknown.
  public var percent: Int? {
    TransferProgress(completedBytes: completedBytes, totalBytes: totalBytes).percent
  }
}
