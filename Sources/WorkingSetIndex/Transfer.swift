import Foundation
import ProviderAPI

/// One upload or download in the durable journal.
///
/// A transfer row is committed before the UI says "queued", and stays until the transfer is done
/// and removed, so a crash, `kill -9` or quit loses nothing: the queue resumes from the journal.
public struct Transfer: Sendable, Equatable, Identifiable {
  public enum Direction: String, Sendable, Codable, CaseIterable {
    case upload, download
  }

  /// `queued` waits for its turn (or for `nextAttemptAt`); `running` was being worked on (after a
  /// crash it is resumed); `throttled` waits for a resolvable error to be resolved; `failed` needs
  /// the user; `done` is finished and may be removed.
  public enum State: String, Sendable, Codable, CaseIterable {
    case queued, running, throttled, failed, done
  }

  /// The identifier a new file's upload carries until the provider has created the item.
  public static let placeholderPrefix = "#upload-"

  /// A new placeholder identifier, for one pending new file.
  public static func newPlaceholder() -> ItemIdentifier {
    ItemIdentifier(placeholderPrefix + UUID().uuidString.lowercased())
  }

  public let id: Int64
  public var domain: DomainIdentifier
  public var identifier: ItemIdentifier
  public var direction: Direction
  /// For an upload, the staged copy in the content store; for a download, where it is written.
  public var stagedPath: ItemPath?
  /// The version the transfer started from (the conflict check of an upload).
  public var baseVersion: ItemVersion?
  public var state: State
  public var attempt: Int
  public var nextAttemptAt: Date?
  /// The `ProviderError.Code` raw value that throttles it, for `throttled`.
  public var throttledByCode: Int?
  public var lastError: String?
  public var bytesTotal: Int64?
  public var bytesDone: Int64
  public var created: Date
  public var updated: Date
  /// For an upload that creates a new file: the folder it goes into and its name. Nil for a
  /// content modify (the item exists: `identifier`) and for downloads.
  public var parentIdentifier: ItemIdentifier?
  public var name: ItemName?
  /// Lowercase hex SHA-256 of the staged bytes (uploads): what the provider must end up holding.
  public var sha256: String?
  /// The item a create produced, recorded before the staged copy is handed to the content store,
  /// so a crash between the provider's answer and the last commit never creates the file twice.
  public var resultIdentifier: ItemIdentifier?
  /// The process working on it (`running`): another live process's transfer is not resumed.
  public var ownerPID: Int32?

  public init(
    id: Int64, domain: DomainIdentifier, identifier: ItemIdentifier, direction: Direction,
    stagedPath: ItemPath? = nil, baseVersion: ItemVersion? = nil, state: State = .queued, attempt: Int = 0,
    nextAttemptAt: Date? = nil, throttledByCode: Int? = nil, lastError: String? = nil, bytesTotal: Int64? = nil,
    bytesDone: Int64 = 0, created: Date, updated: Date, parentIdentifier: ItemIdentifier? = nil,
    name: ItemName? = nil, sha256: String? = nil, resultIdentifier: ItemIdentifier? = nil, ownerPID: Int32? = nil
  ) {
    self.id = id
    self.domain = domain
    self.identifier = identifier
    self.direction = direction
    self.stagedPath = stagedPath
    self.baseVersion = baseVersion
    self.state = state
    self.attempt = attempt
    self.nextAttemptAt = nextAttemptAt
    self.throttledByCode = throttledByCode
    self.lastError = lastError
    self.bytesTotal = bytesTotal
    self.bytesDone = bytesDone
    self.created = created
    self.updated = updated
    self.parentIdentifier = parentIdentifier
    self.name = name
    self.sha256 = sha256
    self.resultIdentifier = resultIdentifier
    self.ownerPID = ownerPID
  }

  /// True until the transfer is done.
  public var isPending: Bool { state != .done }

  /// An upload that creates a new file (rather than replacing the content of `identifier`).
  public var isCreate: Bool { direction == .upload && parentIdentifier != nil && name != nil }
}
