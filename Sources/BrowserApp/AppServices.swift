import BrowserUI
import Foundation
import FolioConfig
import ProviderAPI
import ProviderCore
import WorkingSetIndex

/// The engine the app loop talks to, chosen by the composition root.
public struct AppServices: Sendable {
  public let registry: DomainRegistry
  public let items: ItemService
  public let index: WorkingSetIndex
  public let actions: ActionRunner
  public let openers: OpenerResolver
  /// The sync engine of the remote locations (nil when there are none): opening, downloads,
  /// uploads of edits, pins, conflicts, and the events behind the badges.
  public let sync: SyncEngine?
  /// What only the composition root knows about remote locations.
  public let remote: RemoteHooks
  /// Where the locations' connections send their questions (ssh's password, host key), if any
  /// location asks: the loop shows them in the question box.
  public let signIn: SignInBroker?
  /// What the preview pane may use (config.toml's `[preview]` and `[[previewer]]`).
  public let preview: PreviewServices
  /// Where the sort and hidden-files choice is kept (`$XDG_STATE_HOME/folio/view`); nil: not
  /// kept (tests, unless they ask).
  public var viewChoicesFile: URL?
  /// Where the Open With… prompt's commands are kept (`$XDG_STATE_HOME/folio/open-with`); nil:
  /// not kept.
  public var openWithHistoryFile: URL?

  public init(
    registry: DomainRegistry, items: ItemService, index: WorkingSetIndex, actions: ActionRunner, openers: OpenerResolver,
    sync: SyncEngine? = nil, remote: RemoteHooks = .none, signIn: SignInBroker? = nil,
    preview: PreviewServices = PreviewServices(scratch: FolioPaths.current.previewCache)
  ) {
    self.signIn = signIn
    self.preview = preview
    self.registry = registry
    self.items = items
    self.index = index
    self.actions = actions
    self.openers = openers
    self.sync = sync
    self.remote = remote
  }
}

extension AppServices {
  /// Each domain as the sidebar lists it under Locations; a remote one shows its state once its
  /// first status check answers.
  public func locationEntries() -> [LocationEntry] { Self.locationEntries(of: registry) }

  /// The same from the registry alone: the launch draws the sidebar before the index is open.
  public static func locationEntries(of registry: DomainRegistry) -> [LocationEntry] {
    registry.domains.map { d in
      var entry = LocationEntry(
        domain: d.identifier, name: d.displayName,
        root: FolderLocation(domain: d.identifier, identifier: .root, path: d.localRoot ?? .root, name: d.displayName),
        isRemote: d.isSynced, hasTrash: d.traits.hasTrash)
      entry.detectsConflictingEdits = d.traits.conditionalWrites != .ignored
      return entry
    }
  }

  /// The custom actions the context menu may offer: each domain's provider-declared ones (bound
  /// to that domain) and the user's (any domain), each identifier once.
  public func customActionEntries() -> [CustomActionEntry] {
    var seen = Set<ActionIdentifier>()
    return registry.domains.flatMap { d in
      actions.declaredActions(for: d).map { a -> CustomActionEntry in
        let isProvider: Bool = { if case .provider = a.source { return true } else { return false } }()
        return CustomActionEntry(identifier: a.identifier, name: a.name, rule: a.rule, domain: isProvider ? d.identifier : nil)
      }
    }.filter { seen.insert($0.identifier).inserted }
  }
}
