import Foundation
import ProviderAPI

/// An item of one domain: the key of the live per-item state the sync engine reports (transfers),
/// which lives beside the items rather than in them — a page of items is the provider's answer at
/// one moment, and a percent changes a hundred times while that page is on screen.
public struct ItemKey: Sendable, Hashable {
  public var domain: DomainIdentifier
  public var identifier: ItemIdentifier

  public init(_ domain: DomainIdentifier, _ identifier: ItemIdentifier) {
    self.domain = domain
    self.identifier = identifier
  }
}

/// A download or an upload of one item as the UI shows it: the badge (`↓ 42%`, `↑ 7%`, queued,
/// `!`), the Info rows and the status line come from this.
///
/// Fed by the sync engine's events through Actions (`.transfer`), so the reducer stays pure: it
/// never asks the engine, it is told.
public struct TransferState: Sendable, Equatable {
  public enum Direction: Sendable, Equatable {
    case download, upload
  }

  public enum Phase: Sendable, Equatable {
    /// Journaled, waiting for a free slot.
    case queued
    /// Bytes are moving.
    case running
    /// A transient failure (the server busy, the network dropped): tried again at that time.
    case retrying(at: Date)
    /// Held by a condition a person can resolve (sign in, free quota, the network back): the
    /// whole domain waits, and resumes by itself once it is resolved.
    case throttled
    /// Trying again cannot help until someone asks (Retry in the menu).
    case failed
  }

  /// The transfer journal's id (Retry names it).
  public var id: Int64
  public var direction: Direction
  public var phase: Phase
  public var completedBytes: Int64
  public var totalBytes: Int64?
  /// Why it waits or failed (retrying, throttled, failed).
  public var error: ProviderError?
  /// The file's name when the engine knows it (for messages), as shown (sanitised).
  public var name: String?
  /// For the upload of a new file: where it goes, so that folder lists it before the server has it
  /// (AppState+Uploads.swift). Nil for downloads and for new content of an existing item.
  public var newFile: NewFile?

  /// A new file's destination: its folder and its name (bytes, drawn only through `displayString`).
  public struct NewFile: Sendable, Equatable {
    public var parent: ItemIdentifier
    public var name: ItemName
    /// The server's item, once it answered the create (the upload is still finishing here).
    public var createdAs: ItemIdentifier?
    public init(parent: ItemIdentifier, name: ItemName, createdAs: ItemIdentifier? = nil) {
      self.parent = parent
      self.name = name
      self.createdAs = createdAs
    }
  }

  public init(
    id: Int64, direction: Direction, phase: Phase, completedBytes: Int64 = 0, totalBytes: Int64? = nil,
    error: ProviderError? = nil, name: String? = nil, newFile: NewFile? = nil
  ) {
    self.id = id
    self.name = name
    self.newFile = newFile
    self.direction = direction
    self.phase = phase
    self.completedBytes = completedBytes
    self.totalBytes = totalBytes
    self.error = error
  }

  /// 0…100 while running with a known size, else nil.
  public var percent: Int? {
    guard phase == .running, let total = totalBytes, total > 0 else { return nil }
    return Int(min(100, max(0, completedBytes * 100 / total)))
  }

  /// Whether a person can ask for it again now (Retry in the menu).
  public var isStuck: Bool {
    switch phase {
    case .throttled, .failed, .retrying: return true
    case .queued, .running: return false
    }
  }

  /// One line for Info and the status line: "downloading 42%", "waiting to upload", "upload
  /// stopped: …".
  public func describe(_ tz: TimeZone?) -> String {
    let noun = direction == .download ? "download" : "upload"
    switch phase {
    case .queued: return "waiting to \(noun)"
    case .running:
      let verb = direction == .download ? "downloading" : "uploading"
      return percent.map { "\(verb) \($0)%" } ?? verb
    case .retrying(let at):
      return "\(noun) retrying at \(DateText.time(at, tz))"
        + (error.map { ": " + TerminalText.escapeMessage($0.message) } ?? "")
    case .throttled:
      return "\(noun) waiting" + (error.map { ": " + TerminalText.escapeMessage($0.message) } ?? "")
    case .failed:
      return "\(noun) failed" + (error.map { ": " + TerminalText.escapeMessage($0.message) } ?? "")
    }
  }
}

/// What "Resolve Conflict…" offers, as the menu names it.
extension ConflictChoice {
  /// The menu's words; where the location has no trash, the version not kept is said to go for
  /// good (choosing the entry is the confirmation, as "Delete Now…" there asks first).
  public func title(hasTrash: Bool) -> String {
    guard !hasTrash else { return title }
    switch self {
    case .keepMine: return "Keep Mine (theirs is deleted for good: no trash here)"
    case .keepTheirs: return "Keep Theirs (yours is deleted for good: no trash here)"
    case .keepBoth: return "Keep Both"
    }
  }

  public var title: String {
    switch self {
    case .keepMine: return "Keep Mine (the conflict copy)"
    case .keepTheirs: return "Keep Theirs (the server's version)"
    case .keepBoth: return "Keep Both"
    }
  }
}
