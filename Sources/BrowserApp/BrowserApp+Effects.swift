import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore
import WorkingSetIndex

extension BrowserApp {
  /// One task forwards the enumeration service's events, mapped to UI tickets; pages are
  /// annotated with what the index owns (favorites, index-only tags) on the way.
  func startEnumerationEvents() {
    let events = enumerations.events
    let services = self.services
    eventsTask = Task { [weak self] in
      for await event in events {
        guard let self else { return }
        guard let ui = self.uiTickets[event.ticket] else { continue }
        switch event {
        case .progress(_, let p): self.send(.loadProgress(ticket: ui, p))
        case .page(_, let offset, let items, let total, let complete):
          let domain = self.domainOfTicket[ui] ?? .local
          let remote = services.registry.domain(domain).map { $0.isSynced } ?? false
          let annotated = await Task.detached { () -> [Item] in
            let known = services.items.annotate(items, domain: domain)
            guard remote, let engine = services.sync else { return known }
            services.items.rememberFolders(items, domain: domain)
            // The server answered: uploads held because it could not be reached go now.
            await engine.queue.serverAnswered(domain)
            return RemoteAnnotation.annotate(known, domain: domain, engine: engine)
          }.value
          self.send(.pageLoaded(ticket: ui, offset: offset, items: annotated, total: total, isComplete: complete))
          if !remote { self.resolveLinks(in: annotated) }
        case .restarted: self.send(.loadRestarted(ticket: ui))
        case .containerChanged: self.send(.folderChanged(ticket: ui))
        case .containerRead(_, let container, let total):
          // The folder as its listing found it: the poller's next look compares with it instead
          // of listing the folder again, and reloads nothing when it is the same.
          if let domain = self.domainOfTicket[ui], ui == self.state.browse.ticket {
            services.sync?.listingPoller(for: domain)?.shownListing(container, entries: total)
          }
        case .failed(_, let error): self.send(.loadFailed(ticket: ui, error))
        }
      }
    }
  }

  func startEnumeration(ticket: UInt64, location: BrowseLocation, sort: ItemSort, hidden: Bool, pageSize: Int) {
    guard let domain = services.registry.domain(location.domain) else {
      send(.loadFailed(ticket: ticket, ProviderError(.noSuchItem, "no location named \(location.domain)")))
      return
    }
    domainOfTicket[ticket] = domain.identifier
    // The start folder's first page, asked for at launch: used once, by the first enumeration of it.
    let launchPage = prefetched
    prefetched = nil
    Task {
      do throws(ProviderError) {
        let container: ItemIdentifier
        switch location {
        case .trash: container = .trash
        case .folder(let f):
          if let id = f.identifier {
            container = id
            // A local folder's identifier is an inode: the provider finds it from its path, which
            // it may not have seen in this run (a favorite or a Recents folder after a restart;
            // history after a huge listing flushed its table). One lstat with the path as hint.
            if domain.traits.needsPathHint { _ = try await domain.provider.item(for: id, pathHint: f.path) }
          } else {
            container = try await domain.provider.item(at: f.path).identifier
            // The state names its folders by identifier where it can (uploads go into one).
            self.send(.folderResolved(ticket: ticket, container))
          }
        }
        guard self.state.browse.ticket == ticket else {
          launchPage?.page.cancel()
          return
        }
        let request = EnumerationRequest(container: container, sort: sort, includeHidden: hidden, suggestedPageSize: pageSize)
        let page = launchPage.flatMap { $0.domain == domain.identifier && $0.page.request == request ? $0.page : nil }
        if page == nil { launchPage?.page.cancel() }
        // File the service's ticket before the enumeration exists: its first event cannot find it
        // missing, whatever order the main actor runs things in.
        let t = await self.enumerations.reserveTicket()
        guard self.state.browse.ticket == ticket else {
          await self.enumerations.close(t)
          return
        }
        self.serviceTickets[ticket] = t
        self.uiTickets[t] = ticket
        self.showInPoller(domain.identifier, container)
        await self.enumerations.open(request, on: domain.provider, slot: "browse", watch: true, prefetched: page, ticket: t)
      } catch {
        self.send(.loadFailed(ticket: ticket, error))
      }
    }
  }

  /// Opens a file: suspends the terminal, runs the opener (or `program`) with an argv, resumes,
  /// and records the use when the program succeeded. A remote file is downloaded first and its copy
  /// opened (`openRemote`).
  ///
  /// A local item is first checked off the loop (`OpenCheck`): found again by identifier (a rename
  /// behind Folio's back is followed; a vanished item is offered for removal, never handed to an
  /// editor that would create it anew), and what a link points to or a special file is looked at —
  /// a link to a folder is entered, a broken link, a loop of links, a FIFO or a device is refused
  /// with its reason, and none of them enters Recents.
  func openItem(_ item: Item, domain domainID: DomainIdentifier, program: String? = nil, checked: Bool = false) {
    guard let domain = services.registry.domain(domainID) else { return }
    guard domain.hasDirectContent else {
      openRemote(item, in: domain, program: program)
      return
    }
    guard checked else {
      let services = self.services
      Task.detached {
        let check = await OpenCheck.run(item, in: domain, services: services.items, withProgram: program != nil)
        await MainActor.run {
          switch check {
          case .open(let fresh, let movedFrom):
            if movedFrom != nil {
              self.send(
                .notice(StatusMessage(AppState.followed(item, to: fresh))))
            }
            self.openItem(fresh, domain: domainID, program: program, checked: true)
          case .enterFolder(let link):
            self.send(
              .showFolder(
                FolderLocation(domain: domainID, identifier: nil, path: link.path, name: link.filename.displayString),
                select: nil))
          case .gone(let error):
            self.send(.entryGone(IndexedRow(item: item, domain: domainID, isDeleted: false), error))
          case .refused(let error):
            self.send(.operationFailed(error))
          }
        }
      }
      return
    }
    let argv: [[UInt8]]
    if let program {
      do throws(ProviderError) { argv = try Self.openWithArgv(program, path: item.path.bytes) } catch {
        send(.operationFailed(error))
        return
      }
    } else {
      do throws(ProviderError) { argv = try services.openers.argv(for: item) } catch {
        send(.operationFailed(error))
        return
      }
    }
    terminal.suspend()
    let services = self.services
    Task {
      let started = ContinuousClock.now
      let outcome: Result<ProgramRunner.Outcome, ProviderError>
      do throws(ProviderError) { outcome = .success(try await ProgramRunner.run(argv)) } catch { outcome = .failure(error) }
      if program != nil, case .success(let o) = outcome { await self.pauseIfQuick(o, since: started) }
      self.terminal.resume()
      self.dirty = true
      switch outcome {
      case .success(let o):
        // Only what was opened belongs in Recents: a program that failed did not open it.
        if o.succeeded { try? services.items.recordOpen(item, in: domain) }
        let program = TerminalText.escape(bytes: argv[0])
        self.send(
          .operationSucceeded(
            message: o.succeeded ? nil : "\(program) exited with status \(o.exitStatus.map(String.init) ?? "?")", reload: false,
            select: nil))
      case .failure(let e): self.send(.operationFailed(e))
      }
    }
  }

  /// Finds whether the symbolic links of a page point to folders, for their `/`: on a dispatch
  /// queue of its own, never on the loop nor on Swift's cooperative pool (two threads here),
  /// since `stat` through a link into a dead network mount hangs; the page is shown meanwhile.
  func resolveLinks(in items: [Item]) {
    let links = items.compactMap { $0.symlinkTargetPath == nil ? nil : ($0.identifier, $0.path) }
    guard !links.isEmpty else { return }
    Self.linkQueue.async {
      var kinds: [ItemIdentifier: LinkTarget] = [:]
      for (id, path) in links { kinds[id] = Self.linkTarget(following: path) }
      Task { @MainActor [weak self] in self?.send(.linkTargetsResolved(kinds)) }
    }
  }

  /// Where a link leads (`stat`, which follows it).
  nonisolated static func linkTarget(following path: ItemPath) -> LinkTarget {
    var st = stat()
    guard path.withCString({ stat($0, &st) }) == 0 else { return errno == ELOOP ? .loop : errno == ENOENT ? .broken : .other }
    return (st.st_mode & S_IFMT) == S_IFDIR ? .folder : .other
  }

  nonisolated static let linkQueue = DispatchQueue(label: "folio.link-targets", qos: .userInitiated, attributes: .concurrent)

  func observeRecents(tag: String?) {
    recentsTask?.cancel()
    let index = services.index
    recentsTask = Task { [weak self] in
      do {
        for try await rows in index.recentsStream(limit: 500, tag: tag) {
          guard let self, !Task.isCancelled else { return }
          self.send(.recentsChanged(rows.map(IndexedRow.init)))
        }
      } catch {
        guard let self else { return }
        self.send(.operationFailed(ProviderError(.ioError, "Recents: \(error)")))
      }
    }
  }

  /// Favorites and Tags follow the index from now on, whatever this process writes to it: the
  /// sync engine applying another machine's favorite or tag, an operation in the UI. (Another
  /// process's writes, a `folio tag` in another terminal, are read at the next refresh, which
  /// `watchOtherWriters` asks for: GRDB observes its own connection's commits.) Every refresh
  /// starts a new observation, whose first
  /// value is read then: a one-shot read next to a live one could land after a newer value and
  /// stay, as equal values are not repeated. A failure is said as a notice, which asks for no
  /// refresh, so a broken index is not read again in a loop; the next refresh (Ctrl-R) tries again.
  func observeSidebar() {
    sidebarTask?.cancel()
    let index = services.index
    sidebarTask = Task { [weak self] in
      do {
        for try await contents in index.sidebarStream() {
          guard let self, !Task.isCancelled else { return }
          self.send(
            .sidebarChanged(
              favorites: contents.favorites.map(IndexedRow.init), tags: contents.tags.map { (name: $0.name, count: $0.count) }))
        }
      } catch {
        guard let self, !Task.isCancelled else { return }
        self.send(.notice(StatusMessage(TerminalText.escape("Favorites and Tags cannot be read: \(error)"), isError: true)))
      }
    }
  }

  /// Item operations go through ItemService (provider first, then the index).
  func performOperation(_ effect: Effect) {
    switch effect {
    case .rename(let item, let name, let d):
      let key = ItemKey(d, item.identifier)
      let progress = relocationProgress(key, name: item.filename.displayString)
      background(retry: (d, effect)) { [weak self] s throws(ProviderError) in
        defer { self?.relocationDone(key) }
        let renamed = try await s.items.rename(item, to: name, in: try s.registry.require(d), progress: progress)
        await self?.record("the rename of “\(item.filename.displayString)”", [.moved(renamed, from: item.path)], in: d)
        return .operationSucceeded(message: "Renamed to \(renamed.filename.displayString)", reload: true, select: renamed.identifier)
      }
    case .setTags(let items, let add, let remove, let d):
      background(retry: (d, effect)) { s throws(ProviderError) in
        for item in items {
          var tags = item.tags.filter { tag in !remove.contains { TagName.same($0, tag) } }
          for t in add where !tags.contains(where: { TagName.same($0, t) }) { tags.append(t) }
          _ = try await s.items.setTags(tags, of: item, in: try s.registry.require(d))
        }
        return .operationSucceeded(message: nil, reload: true, select: nil)
      }
    case .setFavorite(let item, let on, let d):
      background(retry: (d, effect)) { s throws(ProviderError) in
        _ = try await s.items.setFavorite(on, item: item, in: try s.registry.require(d))
        return .operationSucceeded(message: on ? "Added to Favorites" : "Removed from Favorites", reload: true, select: item.identifier)
      }
    case .trash(let items, let d):
      background(retry: (d, effect)) { s throws(ProviderError) in
        var steps: [UndoStep] = []
        do throws(ProviderError) {
          for item in items { steps.append(.trashed(try await s.items.trash(item, in: try s.registry.require(d)), from: item.path)) }
        } catch {
          await self.record("the deletion of \(UndoRecord.what(items))", steps, in: d)
          throw error
        }
        await self.record("the deletion of \(UndoRecord.what(items))", steps, in: d)
        let what = items.count == 1 ? items[0].filename.displayString : "\(items.count) items"
        return .operationSucceeded(message: "Moved \(what) to Recently Deleted", reload: true, select: nil)
      }
    case .restore(let items, let d):
      background(retry: (d, effect)) { s throws(ProviderError) in
        // A name taken where an item was: the others go back, and the person is asked about it.
        var taken: [Item] = []
        for item in items {
          do throws(ProviderError) {
            _ = try await s.items.restore(item, in: try s.registry.require(d))
          } catch where error.code == .filenameCollision {
            taken.append(item)
          }
        }
        if !taken.isEmpty { return .restoreNameTaken(taken, restored: items.count - taken.count, d) }
        return .operationSucceeded(message: "Restored \(items.count == 1 ? items[0].filename.displayString : "\(items.count) items")", reload: true, select: nil)
      }
    case .restoreTaken(let items, let choice, let d):
      background(retry: (d, effect)) { s throws(ProviderError) in
        var names: [String] = []
        for item in items {
          let restored = try await s.items.restore(item, in: try s.registry.require(d), ifTaken: choice == .keepBoth ? .keepBoth : .replace)
          names.append(restored.filename.displayString)
        }
        let what = names.count == 1 ? "as \(names[0])" : "\(names.count) items"
        return .operationSucceeded(
          message: choice == .keepBoth ? "Restored \(what) (both kept)" : "Restored \(what); the other went to Recently Deleted",
          reload: true, select: nil)
      }
    case .deleteForever(let items, let d):
      background(retry: (d, effect)) { s throws(ProviderError) in
        for item in items { try await s.items.deleteForever(item, in: try s.registry.require(d)) }
        return .operationSucceeded(message: "Deleted forever", reload: true, select: nil)
      }
    case .emptyTrash(let d):
      background(retry: (d, effect)) { s throws(ProviderError) in
        let n = try await s.items.emptyTrash(in: try s.registry.require(d))
        return .operationSucceeded(message: "Deleted \(n) item\(n == 1 ? "" : "s") forever", reload: true, select: nil)
      }
    case .move(let items, let folder, let d):
      let reports: [@Sendable (TransferProgress) -> Void] = items.map {
        relocationProgress(ItemKey(d, $0.identifier), name: $0.filename.displayString)
      }
      background(retry: (d, effect)) { [weak self] s throws(ProviderError) in
        let dom = try s.registry.require(d)
        let target = try await dom.provider.item(at: folder.path)
        var steps: [UndoStep] = []
        do throws(ProviderError) {
          for (item, report) in zip(items, reports) {
            defer { self?.relocationDone(ItemKey(d, item.identifier)) }
            steps.append(.moved(try await s.items.move(item, to: target, in: dom, progress: report), from: item.path))
          }
        } catch {
          await self?.record("the move of \(UndoRecord.what(items))", steps, in: d)
          throw error
        }
        await self?.record("the move of \(UndoRecord.what(items))", steps, in: d)
        let what = items.count == 1 ? items[0].filename.displayString : "\(items.count) items"
        return .operationSucceeded(message: "Moved \(what) to \(folder.path.displayString)", reload: true, select: nil)
      }
    case .paste(let items, let source, let folder):
      paste(items, from: source, into: folder)
    case .movePasted(let items, let source, let folder):
      movePasted(items, from: source, into: folder)
    case .undo(let record, let redo):
      performUndo(record, redo: redo)
    case .countFolder(let ticket, let item, let d):
      countFolder(ticket: ticket, item, in: d)
    case .cancelFolderCount(let ticket):
      folderCounts.removeValue(forKey: ticket)?.cancel()
    case .enumerateFolders(let ticket, let folder):
      enumerateFolders(ticket: ticket, folder: folder)
    case .openWith(let item, let program, let d):
      if let domain = services.registry.domain(d), domain.isSynced {
        openRemote(item, in: domain, program: program)
      } else {
        openItem(item, domain: d, program: program)
      }
    case .makeFolder(let name, let folder):
      background(retry: (folder.domain, effect)) { s throws(ProviderError) in
        let dom = try s.registry.require(folder.domain)
        let parent = try await dom.provider.item(at: folder.path)
        let made = try await s.items.makeFolder(named: name, in: parent, in: dom)
        return .operationSucceeded(message: nil, reload: true, select: made.identifier)
      }
    case .runAction(let id, let items, let d):
      let dom: Domain
      do throws(ProviderError) { dom = try services.registry.require(d) } catch {
        send(.operationFailed(error))
        return
      }
      guard let action = services.actions.action(named: id.rawValue, in: dom) else { return }
      if case .user(let config) = action.source, dom.isSynced {
        runRemoteProgram(action, config, on: items, in: dom)
        return
      }
      let isUser: Bool = { if case .user = action.source { return true } else { return false } }()
      let runner = services.actions
      let itemService = services.items
      Task {
        var suspended = false
        do throws(ProviderError) {
          // A program is given paths: those of Recents or a tag's list are checked first, so a
          // file renamed elsewhere is followed and a vanished one is said, not passed on.
          let current = dom.hasDirectContent ? try await Self.resolved(items, in: dom, itemService) : items
          if isUser {
            self.terminal.suspend()
            suspended = true
          }
          let outcome = try await runner.run(action, on: current, in: dom)
          if suspended { self.terminal.resume() }
          self.dirty = true
          let failed = outcome.map { !$0.succeeded } ?? false
          self.send(.operationSucceeded(message: failed ? "\(TerminalText.escape(action.name)) failed" : "\(TerminalText.escape(action.name)) done", reload: true, select: nil))
        } catch {
          if suspended { self.terminal.resume() }
          self.send(.operationFailed(error))
        }
      }
    case .download, .removeDownload, .keepDownloaded, .retryTransfers, .cancelDownload, .resolveConflict, .checkLocations, .checkUploads, .listKnownItems:
      performRemote(effect)
    default:
      break
    }
  }

  /// Storage without a change feed lists the folder on screen every 15–30 s (`ListingPoller`):
  /// it is told which folder that is, and the one before is let go.
  func showInPoller(_ domain: DomainIdentifier, _ folder: ItemIdentifier) {
    guard let engine = services.sync else { return }
    if let shown = polledFolder, shown != (domain, folder) {
      engine.listingPoller(for: shown.domain)?.hide(shown.folder)
    }
    let reloaded = polledFolder.map { $0 == (domain, folder) } ?? false
    polledFolder = (domain, folder)
    guard let poller = engine.listingPoller(for: domain) else { return }
    poller.show(folder)
    // A second visit may have painted from the last reading: read it behind, now. Not when the
    // folder on screen is only listed again (an event said it changed, an operation ended):
    // that listing is the news, and reading it behind as well listed a 20,000-entry folder
    // twice after every change.
    if !polledBefore.insert(ItemKey(domain, folder)).inserted && !reloaded { poller.refresh(folder) }
  }

  /// The items as they are now (`ItemService.resolve`); a gone one is an error naming it.
  nonisolated static func resolved(
    _ items: [Item], in domain: Domain, _ service: ItemService
  ) async throws(ProviderError) -> [Item] {
    var out: [Item] = []
    for item in items {
      switch try await service.resolve(item, in: domain) {
      case .current(let i), .moved(let i, _): out.append(i)
      case .gone:
        throw ProviderError(
          .noSuchItem, "“\(item.filename.displayString)” can no longer be found at \(item.path.parent.displayString): it was moved or deleted")
      }
    }
    return out
  }

  /// The folders of a folder for Move To…: listed folders first, so listing stops at the first file
  /// however large the folder.
  func enumerateFolders(ticket: UInt64, folder: FolderLocation) {
    guard let domain = services.registry.domain(folder.domain) else { return }
    let provider = domain.provider
    Task.detached {
      do throws(ProviderError) {
        let container: ItemIdentifier
        if let id = folder.identifier {
          container = id
        } else {
          container = try await provider.item(at: folder.path).identifier
        }
        var page: Page? = nil
        repeat {
          let result = try await provider.enumerate(
            EnumerationRequest(container: container, sort: ItemSort(key: .name, ascending: true, foldersFirst: true), suggestedPageSize: 200),
            page: page, progress: { _ in })
          let folders = result.items.filter(\.isFolder)
          let done = result.nextPage == nil || folders.count < result.items.count
          await MainActor.run { self.send(.foldersLoaded(ticket: ticket, folders: folders, isComplete: done)) }
          if done { break }
          page = result.nextPage
        } while page != nil
      } catch {
        await MainActor.run { self.send(.foldersFailed(ticket: ticket, error)) }
      }
    }
  }
}
