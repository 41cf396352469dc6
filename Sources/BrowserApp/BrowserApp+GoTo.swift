import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore

/// Go to's lookups, its completion listings, and keeping the view choices (AppState+GoTo.swift,
/// ViewChoices.swift): each runs off the loop and answers with an Action.
extension BrowserApp {
  /// Folder names listed at most for one completion: a folder of 100,000 subfolders completes
  /// from the first of them (in name order) rather than holding them all.
  nonisolated static let completionLimit = 20_000

  func performNavigation(_ effect: Effect) {
    switch effect {
    case .resolveGoTo(let request):
      guard let domain = services.registry.domain(request.domain) else {
        send(.goToResolved(request, .failure(ProviderError(.noSuchItem, "no location named \(request.domain.rawValue)"))))
        return
      }
      let provider = domain.provider
      Task.detached { [weak self] in
        let result: Result<Item, ProviderError>
        do throws(ProviderError) { result = .success(try await provider.item(at: request.path)) } catch { result = .failure(error) }
        await self?.send(.goToResolved(request, result))
      }
    case .listCompletions(let ticket, let domainID, let folder):
      guard let domain = services.registry.domain(domainID) else {
        send(.completionsListed(ticket: ticket, domain: domainID, folder: folder, .failure(ProviderError(.noSuchItem, "no location named \(domainID.rawValue)"))))
        return
      }
      let provider = domain.provider
      Task.detached { [weak self] in
        let result: Result<[ItemName], ProviderError>
        do throws(ProviderError) {
          result = .success(try await Self.folderNames(in: folder, provider: provider))
        } catch {
          result = .failure(error)
        }
        await self?.send(.completionsListed(ticket: ticket, domain: domainID, folder: folder, result))
      }
    case .saveViewChoices(let choices):
      guard let file = services.viewChoicesFile else { return }
      viewChoicesGeneration += 1
      let generation = viewChoicesGeneration
      let writer = viewChoicesWriter
      viewChoicesTask = Task.detached { await writer.save(choices, generation: generation, to: file) }
    case .saveOpenWithHistory(let history):
      // The same writer, the newest only, as for the view choices: a file of its own.
      guard let file = services.openWithHistoryFile else { return }
      viewChoicesGeneration += 1
      let generation = viewChoicesGeneration
      let writer = viewChoicesWriter
      let previous = viewChoicesTask
      viewChoicesTask = Task.detached {
        await previous?.value
        await writer.save(text: history.text, generation: generation, to: file)
      }
    default:
      break
    }
  }

  /// The names of `folder`'s subfolders, folders first in name order so the listing stops at
  /// the first file.
  nonisolated static func folderNames(in folder: ItemPath, provider: any Provider) async throws(ProviderError) -> [ItemName] {
    let container = try await provider.item(at: folder).identifier
    var names: [ItemName] = []
    var page: Page? = nil
    repeat {
      let result = try await provider.enumerate(
        EnumerationRequest(
          container: container, sort: ItemSort(key: .name, ascending: true, foldersFirst: true), includeHidden: true,
          suggestedPageSize: 500),
        page: page, progress: { _ in })
      let folders = result.items.filter(\.isFolder)
      names += folders.map(\.filename)
      if folders.count < result.items.count || names.count >= completionLimit { break }
      page = result.nextPage
    } while page != nil
    return names
  }
}

/// Writes the view choices (and the Open With… history), the newest of each file only: two
/// changes in a row never leave the older one in the file, and the loop never waits on the disk.
actor ViewChoicesWriter {
  private var written: [URL: Int] = [:]

  func save(_ choices: ViewChoices, generation: Int, to file: URL) {
    save(text: choices.text, generation: generation, to: file)
  }

  func save(text: String, generation: Int, to file: URL) {
    guard generation > written[file, default: 0] else { return }
    written[file] = generation
    let fm = FileManager.default
    let folder = file.deletingLastPathComponent()
    // Best effort: a state folder that cannot be written costs the next run its choices, not
    // this one anything.
    try? fm.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    try? Data(text.utf8).write(to: file, options: .atomic)
  }
}

extension ViewChoices {
  /// The choices kept in `file`; the defaults when it is missing or cannot be read.
  public static func load(from file: URL) -> ViewChoices {
    guard let data = try? Data(contentsOf: file), data.count < 4096 else { return ViewChoices() }
    return ViewChoices(text: String(decoding: data, as: UTF8.self))
  }
}

extension OpenWithHistory {
  /// The commands kept in `file`; none when it is missing, unreadable or implausibly large.
  public static func load(from file: URL) -> OpenWithHistory {
    guard let data = try? Data(contentsOf: file), data.count < 64 * 1024 else { return OpenWithHistory() }
    return OpenWithHistory(text: String(decoding: data, as: UTF8.self))
  }
}
