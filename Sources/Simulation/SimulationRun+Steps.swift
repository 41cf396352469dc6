import Foundation
import ProviderAPI
import ProviderCore
import TestSupport
import WorkingSetIndex

/// The steps: each does what a person does through the real engine — `folio put`, opening a file
/// in an editor, rename, move, Recently Deleted, tags, favorites, Keep Downloaded, Remove Download,
/// `folio sync` — or what a remote actor or the network does.
extension SimulationRun {
  static let names: [String] = [
    "notes.txt", "a.txt", "Report.pdf", "todo.md", "data.csv", "photo.jpg", "caf\u{e9}.txt", "cafe\u{301}.txt",
    "Notes.TXT", "x", "long name with spaces.txt", "-rf", "\u{1b}[31mred.txt",
  ]
  static let folderNames = ["docs", "Archive", "projects", "tmp", "\u{1F4C1} emoji"]
  static let tagNames = ["Red", "red", "Work", "Home", "Green"]

  func perform(_ step: SimulationStep, number: Int) async {
    var random = SimulationRandom(seed: step.salt)
    if settings.echo { print("  … #\(number) \(step)") }
    if step.isRemote {
      log("#\(number) \(step): \(await remote(step.action, &random))")
      return
    }
    let m = machines[step.machine]
    let link = m.link
    let gate = StepGate()
    link.whenCrashed { gate.open(nil) }
    link.setCrashChance(step.crashChance)
    let r = random
    SimulatedMachine.$process.withValue(m.pid) {
      _ = Task { gate.open(await self.act(step.action, on: m, r)) }
    }
    // A step still going after a simulated day waits for something that never comes (a liveness
    // bug: a person would look at a spinner for ever). Its machine is stopped (its calls hang).
    let watchdog = Task {
      try? await Task.sleep(for: .seconds(SimulationRun.stepDeadline))
      // Waiting for a sign-in the location asked for is no liveness bug: the person signs in
      // (the browser's prompt), and the step must then end by itself.
      if !Task.isCancelled, !link.crashed, link.signedOut {
        link.setSignedOut(false)
        if settings.echo { print("      · \(m.name) waits for a sign-in: the person signs in") }
        await SimulatedMachine.$process.withValue(m.pid) { await m.engine.queue.resolve(domain: m.domain.identifier) }
        try? await Task.sleep(for: .seconds(SimulationRun.stepDeadline))
      }
      if !Task.isCancelled { gate.open(SimulationRun.stuck) }
    }
    let result = await gate.wait()
    watchdog.cancel()
    if result == SimulationRun.stuck {
      ledger.violation("step #\(number) \(step) did not end within a simulated day")
      link.crash()
    }
    link.setCrashChance(0)
    link.allowDeletes([])
    if link.crashed {
      crashes += 1
      let what = result == SimulationRun.stuck ? "stuck" : result ?? "its process died mid-step"
      log("#\(number) \(step): \(what); restarted")
      await restart(m)
    } else {
      log("#\(number) \(step): \(result ?? "?")")
    }
  }

  func restart(_ m: SimulatedMachine) async {
    do { try await m.restart() } catch {
      ledger.violation("\(m.name) could not start again after a crash: \(error)")
      return
    }
    checkIntegrity(m, when: "after restart \(m.incarnation)")
  }

  func checkIntegrity(_ m: SimulatedMachine, when: String) {
    do {
      let report = try m.index.integrityCheck()
      if report != ["ok"] { ledger.violation("\(m.name)'s index failed integrity_check \(when): \(report.prefix(3))") }
    } catch {
      ledger.violation("\(m.name)'s index could not be checked \(when): \(error.message)")
    }
  }

  // MARK: - Choosing

  func live() async -> [SimulatedServer.Entry] { await server.entries().filter { !$0.trashed } }

  func content(_ origin: String, _ random: inout SimulationRandom) -> Data {
    counter += 1
    var bytes = Array("\(origin) v\(counter)\n".utf8)
    let n = Int(random.next() % 1800)
    for _ in 0..<n { bytes.append(UInt8(32 + random.next() % 95)) }
    return Data(bytes)
  }

  func resolve(_ m: SimulatedMachine, _ path: ItemPath) async throws(ProviderError) -> Item {
    try await m.items.itemAllowingOffline(at: path, in: m.domain)
  }

  func pickFile(_ random: inout SimulationRandom) async -> SimulatedServer.Entry? {
    let files = await live().filter { !$0.item.isFolder }
    return files.isEmpty ? nil : random.pick(files)
  }

  func pickAny(_ random: inout SimulationRandom) async -> SimulatedServer.Entry? {
    let all = await live()
    return all.isEmpty ? nil : random.pick(all)
  }

  func pickFolder(_ random: inout SimulationRandom) async -> ItemPath {
    let folders = await live().filter { $0.item.isFolder }.map(\.item.path)
    return random.chance(0.4) || folders.isEmpty ? .root : random.pick(folders)
  }

  // MARK: - A person at a machine

  func act(_ action: SimulationStep.Action, on m: SimulatedMachine, _ r: SimulationRandom) async -> String {
    var random = r
    do throws(ProviderError) {
      switch action {
      case .create:
        let folder = try await resolve(m, await pickFolder(&random))
        let name = ItemName(random.pick(Self.names))
        let data = content("\(m.name) create \(name.displayString)", &random)
        let source = m.folder.appendingPathComponent("src-\(counter)")
        try? data.write(to: source)
        let id = try await m.engine.put(ItemPath(source.path), as: name, into: folder, in: m.domain)
        ledger.saved(data, origin: "\(m.name) saved new file \(folder.path.appending(name).displayString)")
        try? FileManager.default.removeItem(at: source)
        return "put \(folder.path.appending(name).displayString) (\(data.count) B), transfer \(id)"
      case .makeFolder:
        let folder = try await resolve(m, await pickFolder(&random))
        let made = try await m.items.makeFolder(named: ItemName(random.pick(Self.folderNames)), in: folder, in: m.domain)
        return "made \(made.path.displayString)"
      case .edit, .editThenCrash:
        guard let target = await pickFile(&random) else { return "nothing to edit" }
        let item = try await resolve(m, target.item.path)
        let url = try await m.engine.materialize(item, in: m.domain, forOpen: true)
        let old = (try? Data(contentsOf: url)) ?? Data()
        var new = content("\(m.name) edit \(item.path.displayString)", &random)
        if random.chance(0.5) { new = old + new }
        // Editors save in place or write a new file and rename it over the old one.
        let atomically = random.chance(0.5)
        do { try new.write(to: url, options: atomically ? .atomic : []) } catch {
          return "the editor could not save: \(error)"
        }
        ledger.saved(new, origin: "\(m.name) edited \(item.path.displayString)")
        ledger.release(old, because: "\(m.name) edited it")
        if action == .editThenCrash {
          m.link.crash()
          return "saved \(item.path.displayString) (\(new.count) B), then Folio died before it noticed"
        }
        let id = try await m.engine.noticeEdits(item, in: m.domain)
        return "edited \(item.path.displayString) (\(new.count) B\(atomically ? ", saved by rename" : "")), upload \(id.map(String.init) ?? "none")"
      case .rename:
        guard let target = await pickAny(&random) else { return "nothing to rename" }
        let item = try await resolve(m, target.item.path)
        let name = ItemName(random.pick(target.item.isFolder ? Self.folderNames : Self.names))
        // Noted before: a rename whose answer is lost may have been done all the same, and then
        // the machine's index did not follow it (-2: as if someone else had).
        let below = await descendants(of: target)
        noteMoved(below, by: m.number)
        let renamed: Item
        do throws(ProviderError) { renamed = try await m.items.rename(item, to: name, in: m.domain) } catch {
          noteMoved(below, by: -2)
          throw error
        }
        return "renamed \(target.item.path.displayString) to \(renamed.path.displayString)"
      case .move:
        guard let target = await pickAny(&random) else { return "nothing to move" }
        let destination = await pickFolder(&random)
        let item = try await resolve(m, target.item.path)
        let folder = try await resolve(m, destination)
        let below = await descendants(of: target)
        noteMoved(below, by: m.number)
        let moved: Item
        do throws(ProviderError) { moved = try await m.items.move(item, to: folder, in: m.domain) } catch {
          noteMoved(below, by: -2)
          throw error
        }
        return "moved \(target.item.path.displayString) to \(moved.path.displayString)"
      case .delete:
        guard let target = await pickAny(&random) else { return "nothing to delete" }
        let item = try await resolve(m, target.item.path)
        m.link.allowDeletes([item.identifier])
        if kind.hasTrash {
          _ = try await m.items.trash(item, in: m.domain)
          return "moved \(target.item.path.displayString) to Recently Deleted"
        }
        try await m.items.deleteForever(item, in: m.domain)
        return "deleted \(target.item.path.displayString)"
      case .restore:
        guard kind.hasTrash else { return "no trash here" }
        let trashed = try await m.items.trashedItems(in: m.domain)
        guard !trashed.isEmpty else { return "Recently Deleted is empty" }
        let item = random.pick(trashed)
        let restored = try await m.items.restore(item, in: m.domain, ifTaken: .keepBoth)
        return "put back \(restored.path.displayString)"
      case .tag:
        guard let target = await pickAny(&random) else { return "nothing to tag" }
        let item = try await resolve(m, target.item.path)
        let tags = random.chance(0.2) ? [] : [random.pick(Self.tagNames)]
        // Unknown until answered: a lost answer may hide a change that was made.
        lastTagger[target.item.identifier] = -2
        let tagged = try await m.items.setTags(tags, of: item, in: m.domain)
        if await server.inner(item.identifier) == target.item.identifier {
          expectedTags[m.number, default: [:]][target.item.identifier] = tagged.tags
          lastTagger[target.item.identifier] = m.number
        }
        return "tagged \(target.item.path.displayString) \(tagged.tags)"
      case .favorite:
        guard let target = await pickAny(&random) else { return "nothing to favorite" }
        let item = try await resolve(m, target.item.path)
        let on = random.chance(0.7)
        lastFavoriter[target.item.identifier] = -2
        _ = try await m.items.setFavorite(on, item: item, in: m.domain)
        if await server.inner(item.identifier) == target.item.identifier {
          expectedFavorites[m.number, default: [:]][target.item.identifier] = on
          lastFavoriter[target.item.identifier] = m.number
        }
        return "\(on ? "favorited" : "unfavorited") \(target.item.path.displayString)"
      case .open:
        guard let target = await pickFile(&random) else { return "nothing to open" }
        let item = try await resolve(m, target.item.path)
        try m.items.recordOpen(item, in: m.domain, at: SimulationClock.now)
        // What the machine opened is the item it knows (offline: its index's, maybe one deleted
        // elsewhere meanwhile), which must be the server's at that path to be expected later.
        if await server.inner(item.identifier) == target.item.identifier {
          opened[m.number, default: []].insert(target.item.identifier)
        }
        return "opened \(target.item.path.displayString) (Recents)"
      case .pin:
        guard let target = await pickAny(&random) else { return "nothing to keep downloaded" }
        let item = try await resolve(m, target.item.path)
        let ids = try await m.engine.pin(item, in: m.domain)
        return "keep downloaded \(target.item.path.displayString) (\(ids.count) download(s))"
      case .evict:
        guard let target = await pickAny(&random) else { return "nothing to remove" }
        let item = try await resolve(m, target.item.path)
        let n = try await m.engine.evict(item, in: m.domain)
        return "removed the download of \(target.item.path.displayString) (\(n))"
      case .sync:
        let report = await m.engine.queue.drain()
        let summary = try await m.engine.syncChanges(of: m.domain.identifier)
        let left = report.unfinished.map { "\($0.state) \($0.code.map(String.init) ?? "")" }.joined(separator: ", ")
        return "sync: \(report.completed.count) transfer(s) done, \(report.unfinished.count) left\(left.isEmpty ? "" : " (\(left))"); \(summary.updated) updated, \(summary.deleted) deleted, \(summary.heldDeletions.count) held"
      case .goOffline:
        m.link.setOffline(true)
        return "offline"
      case .comeBack:
        m.link.setOffline(false)
        await m.engine.queue.serverAnswered(m.domain.identifier)
        return "online"
      case .passwordChanged:
        m.link.setSignedOut(true)
        return "the password was changed elsewhere"
      case .signIn:
        m.link.setSignedOut(false)
        await m.engine.queue.resolve(domain: m.domain.identifier)
        return "signed in again"
      case .quotaFull:
        m.link.setQuotaFull(true)
        return "the account is full"
      case .quotaFreed:
        m.link.setQuotaFull(false)
        await m.engine.queue.resolve(domain: m.domain.identifier)
        return "space freed, retry"
      case .crash:
        m.link.crash()
        return "killed (kill -9)"
      case .remoteCreate, .remoteEdit, .remoteRename, .remoteDelete:
        return "not a machine's step"
      }
    } catch {
      return "refused: \(error.message)"
    }
  }

  // MARK: - A remote actor

  func remote(_ action: SimulationStep.Action, _ random: inout SimulationRandom) async -> String {
    let memory = server.memory
    do throws(ProviderError) {
      switch action {
      case .remoteCreate:
        let folderPath = await pickFolder(&random)
        let folder = try await memory.item(at: folderPath)
        let name = ItemName(random.pick(Self.names))
        let data = content("web create \(name.displayString)", &random)
        let url = folderURL("web-\(counter)")
        try? data.write(to: url)
        let made = try await memory.createItem(
          ItemTemplate(parentIdentifier: folder.identifier, filename: name, contentType: .data), fields: [.contents],
          contents: url, options: [])
        ledger.saved(data, origin: "web saved \(made.path.displayString)")
        return "created \(made.path.displayString)"
      case .remoteEdit:
        guard let target = await pickFile(&random) else { return "nothing to edit" }
        let data = content("web edit \(target.item.path.displayString)", &random)
        let url = folderURL("web-\(counter)")
        try? data.write(to: url)
        _ = try await memory.modifyItem(
          ItemTemplate(target.item), baseVersion: target.item.version, changedFields: .contents, contents: url)
        ledger.saved(data, origin: "web edited \(target.item.path.displayString)")
        if let old = target.content { ledger.release(old, because: "edited on the web") }
        return "edited \(target.item.path.displayString)"
      case .remoteRename:
        guard let target = await pickAny(&random) else { return "nothing to rename" }
        var t = ItemTemplate(target.item)
        t.filename = ItemName(random.pick(target.item.isFolder ? Self.folderNames : Self.names))
        let below = await descendants(of: target)
        let renamed = try await memory.modifyItem(t, baseVersion: target.item.version, changedFields: .filename, contents: nil)
        noteMoved(below, by: -1)
        return "renamed \(target.item.path.displayString) to \(renamed.path.displayString)"
      case .remoteDelete:
        guard let target = await pickAny(&random) else { return "nothing to delete" }
        if kind.hasTrash {
          var t = ItemTemplate(target.item)
          t.parentIdentifier = .trash
          _ = try await memory.modifyItem(t, baseVersion: target.item.version, changedFields: .parentItemIdentifier, contents: nil)
          return "moved \(target.item.path.displayString) to the trash"
        }
        for data in await server.contents(under: target.item.identifier) {
          ledger.release(data, because: "deleted on the web")
        }
        try await memory.deleteItem(target.item.identifier, baseVersion: nil, options: .recursive)
        return "deleted \(target.item.path.displayString)"
      default:
        return "not a remote step"
      }
    } catch {
      return "refused: \(error.message)"
    }
  }

  func folderURL(_ name: String) -> URL { folder.appendingPathComponent(name) }

  /// The server's identifiers of an item and everything below it now (taken before it moves).
  func descendants(of target: SimulatedServer.Entry) async -> [ItemIdentifier] {
    var out = [target.item.identifier]
    guard target.item.isFolder else { return out }
    for e in await live() where e.item.path.bytes.starts(with: target.item.path.bytes + [0x2F]) {
      out.append(e.item.identifier)
    }
    return out
  }

  /// Notes who moved these items (see ``movers``).
  func noteMoved(_ items: [ItemIdentifier], by actor: Int) {
    for id in items { movers[id, default: []].insert(actor) }
  }
}
/// Where a step's task and a crash meet: the first to arrive decides how the step ended.
final class StepGate: @unchecked Sendable {
  private let lock = NSLock()
  private var result: String??
  private var waiter: CheckedContinuation<String?, Never>?

  func open(_ value: String?) {
    lock.lock()
    guard result == nil else {
      lock.unlock()
      return
    }
    result = .some(value)
    let w = waiter
    waiter = nil
    lock.unlock()
    w?.resume(returning: value)
  }

  func wait() async -> String? {
    await withCheckedContinuation { (c: CheckedContinuation<String?, Never>) in
      lock.lock()
      if let r = result {
        lock.unlock()
        c.resume(returning: r)
      } else {
        waiter = c
        lock.unlock()
      }
    }
  }
}
