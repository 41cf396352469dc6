import BrowserUI
import FolioConfig
import Foundation
import ProviderAPI
import ProviderCore
import WorkingSetIndex

/// Remote items: opening through the sync engine, programs on downloaded copies, and the menu's
/// Download, Remove Download, Keep Downloaded, Retry and Resolve Conflict….
///
/// A remote item's path names a place on the server: `/notes.txt` there is not this machine's
/// `/notes.txt`. Openers and `[[action]]` programs are only ever given the materialized copy in
/// the content cache; the engine downloads it first (the `↓ n%` badge) and, once the program
/// returns, notices edits and queues their upload (`↑ n%`).
extension BrowserApp {
  /// Opens a remote file: materialize (download when needed), then the opener (or `program`) on
  /// the local copy, then edits go up.
  func openRemote(_ item: Item, in domain: Domain, program: String? = nil) {
    guard let engine = services.sync else {
      send(.operationFailed(ProviderError(.featureUnsupported, "\(domain.displayName) has no sync engine to download from")))
      return
    }
    guard !item.isFolder else { return }
    let key = ItemKey(domain.identifier, item.identifier)
    let retry: Effect = program.map { .openWith(item, program: $0, domain.identifier) } ?? .open(item, domain.identifier)
    // A file with no copy here, on a server known to be unreachable: said now. Its download
    // would wait in the queue for the server, and the editor would then take the screen by
    // itself, minutes later, on a file the person had moved on from.
    if !item.isDownloaded, case .offline(let why)? = state.sidebar.locations.first(where: { $0.domain == domain.identifier })?.status {
      send(
        .operationFailed(
          ProviderError(
            .serverUnreachable,
            "\(item.filename.lossyString) is not downloaded and \(domain.displayName) cannot be reached (\(why)): open it again once the server is back"
          )))
      return
    }
    send(.opening(Opening(key: key, name: item.filename.displayString)))
    if let reason = Self.readOnlyReason(item) {
      // Said before the opener starts, not discovered when the upload fails.
      send(.notice(StatusMessage("Opening \(item.filename.displayString) read-only: it is \(reason)")))
    }
    Task.detached {
      let result: Result<URL, ProviderError>
      do throws(ProviderError) {
        result = .success(try await engine.materialize(item, in: domain, forOpen: true))
      } catch {
        result = .failure(error)
      }
      await MainActor.run {
        switch result {
        case .success(let url):
          self.runOpener(item, at: url, in: domain, program: program, engine: engine)
        case .failure(let error):
          self.send(.opening(nil))
          self.send(Self.failure(error, domain: domain.identifier, retry: retry))
        }
      }
    }
  }

  /// The action for a failed remote operation: the sign-in prompt (and `retry` once signed in)
  /// for notAuthenticated, else the error on the status line.
  nonisolated static func failure(_ error: ProviderError, domain: DomainIdentifier, retry: Effect) -> Action {
    error.code == .notAuthenticated
      ? .authenticationRequired(domain, retry: [retry], reason: error.message) : .operationFailed(error)
  }

  /// Runs the opener on the materialized copy, then queues the upload of any edit.
  func runOpener(_ item: Item, at url: URL, in domain: Domain, program: String?, engine: SyncEngine) {
    // The opener gets the file under its own name (vim picks the type from it): OpenedCopy.swift.
    let opened = engine.openedCopy(of: url, for: item)
    var local = item
    local.path = ItemPath(opened.url.path)
    let argv: [[UInt8]]
    do throws(ProviderError) {
      // The opener is chosen by the item's name and type; it is given the copy's path.
      if let program {
        argv = try Self.openWithArgv(program, path: local.path.bytes)
      } else {
        argv = try services.openers.argv(for: local)
      }
    } catch {
      send(.opening(nil))
      send(.operationFailed(error))
      Task.detached { _ = try? await engine.noticeEdits(item, in: domain) }
      return
    }
    guard running else {
      Task.detached { _ = try? await engine.noticeEdits(item, in: domain) }
      return
    }
    // A file the server will not take edits of (locked by someone else): the opener gets the
    // copy read-only, so the editor itself says so before anyone types, and the status line says
    // why once it returns. Edits forced through anyway are kept and queued; their upload fails
    // with the lock's own advice.
    let readOnly = Self.readOnlyReason(item)
    let mode = readOnly.flatMap { _ in Self.makeReadOnly(url) }
    terminal.suspend()
    let services = self.services
    Task {
      let started = ContinuousClock.now
      let outcome: Result<ProgramRunner.Outcome, ProviderError>
      do throws(ProviderError) { outcome = .success(try await ProgramRunner.run(argv)) } catch { outcome = .failure(error) }
      if program != nil, case .success(let o) = outcome { await self.pauseIfQuick(o, since: started) }
      if let mode { _ = chmod(url.path, mode) }
      self.terminal.resume()
      self.dirty = true
      self.send(.opening(nil))
      // Only what was opened belongs in Recents: a program that failed did not open it. Its
      // edits, if any, are kept all the same.
      if case .success(let o) = outcome, o.succeeded { try? services.items.recordOpen(item, in: domain) }
      // An editor that saved by renaming over the name: its file becomes the stored one first.
      opened.settle()
      self.noticeEdits([item], in: domain, engine: engine)
      switch outcome {
      case .success(let o):
        let program = TerminalText.escape(bytes: argv[0])
        self.send(
          .operationSucceeded(
            message: o.succeeded ? nil : "\(program) exited with status \(o.exitStatus.map(String.init) ?? "?")", reload: false,
            select: nil))
        if o.succeeded, let readOnly {
          self.send(.notice(StatusMessage("\(item.filename.displayString) is \(readOnly): it was opened read-only")))
        }
      case .failure(let e): self.send(.operationFailed(e))
      }
    }
  }

  /// Why the server will not take edits of `item`, when it will not: "locked by ben" (the
  /// provider's `lockedBy`), else "read-only on the server". Nil for a writable item.
  nonisolated static func readOnlyReason(_ item: Item) -> String? {
    guard !item.capabilities.contains(.writing) else { return nil }
    if case .string(let who)? = item.userInfo["lockedBy"] { return "locked by " + TerminalText.escape(who) }
    return "read-only on the server"
  }

  /// Takes the write permission away from a cached copy; returns the mode to put back.
  nonisolated static func makeReadOnly(_ url: URL) -> mode_t? {
    var info = stat()
    guard stat(url.path, &info) == 0 else { return nil }
    let mode = info.st_mode & 0o7777
    guard chmod(url.path, mode & ~0o222) == 0 else { return nil }
    return mode
  }

  /// After a program had the copies: edits are staged and their uploads journaled (the queue
  /// sends them and its events draw `↑ n%`).
  func noticeEdits(_ items: [Item], in domain: Domain, engine: SyncEngine) {
    Task.detached {
      for item in items {
        do throws(ProviderError) {
          _ = try await engine.noticeEdits(item, in: domain)
        } catch {
          await MainActor.run { self.send(.operationFailed(error)) }
        }
      }
    }
  }

  /// A user `[[action]]` on remote items: the program gets the downloaded copies, never the
  /// server's paths; folders are refused (this computer has no copy of a remote folder).
  func runRemoteProgram(_ action: CustomAction, _ config: CustomActionConfig, on items: [Item], in domain: Domain) {
    guard let engine = services.sync else {
      send(.operationFailed(ProviderError(.featureUnsupported, "\(domain.displayName) has no sync engine to download from")))
      return
    }
    let name = TerminalText.escape(action.name)
    if let folder = items.first(where: \.isFolder) {
      send(
        .operationFailed(
          ProviderError(
            .featureUnsupported,
            "\(name) runs a program on files here: \(folder.filename.displayString) is a folder on the server, and only files are downloaded for programs")))
      return
    }
    guard action.rule.matches(ActivationContext(selection: items)) else {
      send(.operationFailed(ProviderError(.invalidArgument, "\(name) does not apply to this selection")))
      return
    }
    send(.notice(StatusMessage("Downloading \(items.count == 1 ? items[0].filename.displayString : "\(items.count) files") for \(name)…")))
    let effect = Effect.runAction(action.identifier, items, domain.identifier)
    Task.detached {
      var urls: [URL] = []
      var failure: ProviderError?
      for item in items {
        do throws(ProviderError) {
          urls.append(try await engine.materialize(item, in: domain, forOpen: true))
        } catch {
          failure = error
          break
        }
      }
      let paths = urls.map { ItemPath($0.path) }
      await MainActor.run {
        if let failure {
          self.noticeEdits(Array(items.prefix(urls.count)), in: domain, engine: engine)
          self.send(Self.failure(failure, domain: domain.identifier, retry: effect))
          return
        }
        guard self.running, let focused = paths.first else { return }
        let argv = config.arguments(focused: focused, selection: paths)
        self.terminal.suspend()
        Task {
          let outcome: Result<ProgramRunner.Outcome, ProviderError>
          do throws(ProviderError) { outcome = .success(try await ProgramRunner.run(argv)) } catch { outcome = .failure(error) }
          self.terminal.resume()
          self.dirty = true
          self.noticeEdits(items, in: domain, engine: engine)
          switch outcome {
          case .success(let o):
            self.send(.operationSucceeded(message: o.succeeded ? "\(name) done" : "\(name) failed", reload: true, select: nil))
          case .failure(let e): self.send(.operationFailed(e))
          }
        }
      }
    }
  }

  /// Download, Remove Download, Keep Downloaded, Retry and Resolve Conflict… — off the loop,
  /// each answering with a message (or the sign-in prompt, then the same work again).
  func performRemote(_ effect: Effect) {
    switch effect {
    case .download(let items, let d):
      background(retry: (d, effect)) { s throws(ProviderError) in
        let (engine, domain) = try Self.engine(s, d)
        do throws(ProviderError) {
          for item in items { _ = try await engine.materialize(item, in: domain) }
        } catch where error.code == .cancelled {
          // Cancel Download stopped it: that answer says so.
          return .operationSucceeded(message: nil, reload: false, select: nil)
        }
        return .operationSucceeded(message: "Downloaded \(Self.what(items))", reload: false, select: nil)
      }
    case .removeDownload(let items, let d):
      background(retry: (d, effect)) { s throws(ProviderError) in
        let (engine, domain) = try Self.engine(s, d)
        var n = 0
        for item in items { n += try await engine.evict(item, in: domain) }
        return .operationSucceeded(
          message: n == 0 ? "Nothing of \(Self.what(items)) was downloaded" : "Removed the download of \(Self.what(items))",
          reload: true, select: nil)
      }
    case .keepDownloaded(let items, let on, let d):
      background(retry: (d, effect)) { s throws(ProviderError) in
        let (engine, domain) = try Self.engine(s, d)
        for item in items { try await engine.pin(item, in: domain, on) }
        return .operationSucceeded(
          message: on ? "Keeping \(Self.what(items)) downloaded" : "\(Self.what(items)) no longer kept downloaded", reload: true,
          select: nil)
      }
    case .retryTransfers(let items, let d):
      background(retry: (d, effect)) { s throws(ProviderError) in
        let (engine, _) = try Self.engine(s, d)
        let wanted = Set(items.map(\.identifier))
        let stuck = try s.index.pendingTransfers(domain: d).filter {
          wanted.contains($0.identifier) && ($0.state == .failed || $0.state == .throttled || $0.nextAttemptAt != nil)
        }
        for t in stuck { try await engine.queue.retry(t.id) }
        return .operationSucceeded(
          message: stuck.isEmpty ? "Nothing of \(Self.what(items)) is waiting" : "Trying \(Self.what(items)) again", reload: false,
          select: nil)
      }
    case .cancelDownload(let items, let d):
      background(retry: (d, effect)) { s throws(ProviderError) in
        let (engine, _) = try Self.engine(s, d)
        let wanted = Set(items.map(\.identifier))
        let downloads = try s.index.pendingTransfers(domain: d).filter { wanted.contains($0.identifier) && $0.direction == .download }
        var n = 0
        for t in downloads {
          if try await engine.queue.cancelDownload(t.id) { n += 1 }
        }
        return .operationSucceeded(
          message: n == 0 ? "Nothing of \(Self.what(items)) is downloading" : "Cancelled the download of \(Self.what(items))",
          reload: true, select: nil)
      }
    case .resolveConflict(let item, let copy, let choice, let d):
      background(retry: (d, effect)) { s throws(ProviderError) in
        let (engine, domain) = try Self.engine(s, d)
        let recorded = try engine.conflict(involving: item, in: domain)
        let original = recorded?.original ?? item.userInfo["conflictOf"].map { ItemIdentifier($0.description) } ?? item.identifier
        guard let copyID = recorded?.copy ?? (item.userInfo["conflictOf"] != nil ? item.identifier : copy) else {
          throw ProviderError(
            .noSuchItem,
            "the conflict copy of \(item.filename.displayString) is not in this folder: resolve it from the copy (its name says “conflict”)")
        }
        // One path with `folio resolve`: the engine (which lets a server that settles conflicts
        // itself do it).
        let conflict =
          recorded ?? SyncConflict(domain: d, original: original, copy: copyID, reason: .staleBase, detected: Date())
        // Where there is no trash the menu said the other version goes for good: choosing is consent.
        try await engine.resolve(conflict, choice, permanently: !domain.traits.hasTrash)
        let kept: [ConflictChoice: String] = [.keepMine: "your version", .keepTheirs: "the server's version", .keepBoth: "both versions"]
        return .operationSucceeded(message: "Kept \(kept[choice] ?? "it")", reload: true, select: nil)
      }
    case .checkLocations(let domains):
      checkLocations(domains)
    case .listKnownItems(let ticket, let folder, let sort, let hidden):
      // Off the loop: the index, then what the content store says of each file.
      let services = self.services
      Task.detached {
        guard let domain = services.registry.domain(folder.domain) else { return }
        var items = (try? services.items.knownChildren(
          of: folder.identifier, at: folder.path, in: domain, sort: sort, includeHidden: hidden)) ?? []
        if let engine = services.sync { items = RemoteAnnotation.annotate(items, domain: folder.domain, engine: engine) }
        await MainActor.run { self.send(.knownItemsListed(ticket: ticket, items: items)) }
      }
    case .checkUploads(let d, let ids):
      // Off the loop; a journal that cannot be read says nothing is gone.
      let index = services.index
      Task.detached {
        guard let pending = try? index.pendingTransfers(domain: d) else { return }
        let held = Set(pending.map(\.id))
        let gone = ids.filter { !held.contains($0) }
        guard !gone.isEmpty else { return }
        await MainActor.run { self.send(.uploadsGone(d, transferIDs: gone)) }
      }
    default:
      break
    }
  }

  nonisolated static func engine(_ s: AppServices, _ d: DomainIdentifier) throws(ProviderError) -> (SyncEngine, Domain) {
    let domain = try s.registry.require(d)
    guard let engine = s.sync, domain.isSynced else {
      throw ProviderError(.featureUnsupported, "\(domain.displayName) is on this computer: its files are always here")
    }
    return (engine, domain)
  }

  nonisolated static func what(_ items: [Item]) -> String {
    items.count == 1 ? items[0].filename.displayString : "\(items.count) items"
  }
}

