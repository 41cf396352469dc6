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

  public init(registry: DomainRegistry, items: ItemService, index: WorkingSetIndex, actions: ActionRunner, openers: OpenerResolver) {
    self.registry = registry
    self.items = items
    self.index = index
    self.actions = actions
    self.openers = openers
  }
}
