import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore

extension BrowserApp {
  /// Rename in Editor: the batch's names go one a line into a private file, `$EDITOR` edits it
  /// with the screen suspended (an argv, never a shell), and the saved lines become a
  /// ``BulkRenamePlan`` that ``BulkRenamer`` performs through ItemService — the path a single
  /// Rename takes, on local and remote locations alike. Ends with one `bulkRenameEnded`.
  func bulkRename(_ marked: [Item]?, in folder: FolderLocation, sort: ItemSort, includeHidden: Bool) {
    let id = nextBackground
    nextBackground += 1
    backgroundJobs.insert(id)
    Task {
      let end: (StatusMessage, Bool)
      do throws(ProviderError) {
        end = try await self.runBulkRename(marked, in: folder, sort: sort, includeHidden: includeHidden)
      } catch {
        end = (StatusMessage(TerminalText.escapeMessage(error.message), isError: true), false)
      }
      self.backgroundJobs.remove(id)
      self.send(.bulkRenameEnded(end.0, renamedAny: end.1))
    }
  }

  private func runBulkRename(
    _ marked: [Item]?, in folder: FolderLocation, sort: ItemSort, includeHidden: Bool
  ) async throws(ProviderError) -> (StatusMessage, Bool) {
    let domain = try services.registry.require(folder.domain)
    // The whole folder, hidden items included: a line may not take any name in it.
    let listing = try await Self.listWhole(folder, sort: sort, in: domain)
    let batch = marked ?? listing.filter { includeHidden || !$0.filename.isHidden }
    guard !batch.isEmpty else { return (StatusMessage("Nothing to rename here"), false) }
    let names = batch.map(\.filename)
    let inBatch = Set(names)
    let outside = listing.map(\.filename).filter { !inBatch.contains($0) }

    let text: [UInt8]
    do throws(BulkRenameRefusal) { text = try BulkRenameText.text(for: names) } catch { throw error.providerError }
    let file = try BulkRenameFile(writing: text)
    defer { file.remove() }
    let argv = try services.openers.editorArgv(for: file.path)

    terminal.suspend()
    let outcome: ProgramRunner.Outcome
    do throws(ProviderError) {
      outcome = try await ProgramRunner.run(argv)
    } catch {
      terminal.resume()
      dirty = true
      throw error
    }
    terminal.resume()
    dirty = true

    let editor = TerminalText.escape(bytes: argv[0])
    guard outcome.succeeded else {
      let how = outcome.exitStatus.map { "exited with status \($0)" } ?? "was ended by signal \(outcome.signal ?? 0)"
      return (StatusMessage("\(editor) \(how): nothing was renamed", isError: true), false)
    }
    let edited = try file.read()
    if edited == text { return (StatusMessage("No names changed"), false) }
    let plan: BulkRenamePlan
    do throws(BulkRenameRefusal) {
      plan = try BulkRenamePlan.make(names: names, text: edited, outside: outside)
    } catch {
      return (StatusMessage(TerminalText.escapeMessage(error.message), isError: true), false)
    }
    if plan.isEmpty { return (StatusMessage("No names changed"), false) }
    let result = await BulkRenamer.run(plan, items: batch, service: services.items, domain: domain)
    // One step for Undo, the whole batch: each renamed item where it is now and where it was.
    let steps: [UndoStep] = result.renamed.map { .moved(result.items[$0], from: batch[$0].path) }
    await record("the rename of \(UndoRecord.what(result.renamed.map { batch[$0] }))", steps, in: domain.identifier)
    let message = TerminalText.escapeMessage(result.message(names: names))
    return (StatusMessage(message, isError: result.failure != nil), !result.renamed.isEmpty)
  }

  /// Every item of the folder, in the browser's order (`sort`), hidden ones included.
  nonisolated static func listWhole(_ folder: FolderLocation, sort: ItemSort, in domain: Domain) async throws(ProviderError) -> [Item] {
    let provider = domain.provider
    let container: ItemIdentifier
    if let id = folder.identifier {
      container = id
      if domain.traits.needsPathHint { _ = try await provider.item(for: id, pathHint: folder.path) }
    } else {
      container = try await provider.item(at: folder.path).identifier
    }
    var items: [Item] = []
    var page: Page? = nil
    repeat {
      let result = try await provider.enumerate(
        EnumerationRequest(container: container, sort: sort, includeHidden: true, suggestedPageSize: 1000),
        page: page, progress: { _ in })
      items += result.items
      page = result.nextPage
    } while page != nil
    return items
  }
}
