import Foundation
import ProviderAPI
import ProviderCore
import TestSupport
import WorkingSetIndex

/// The oracle (issue 15 §2; test-plan.md §1.5): checked after every step, and at quiescence once
/// every machine is back, online, signed in and synced.
extension SimulationRun {
  /// Every version not released still exists somewhere: on the server (live or in its trash) or on
  /// a machine's disk (its content cache or a staged upload), byte for byte (I2, I3).
  func checkAfterStep(_ number: Int) async {
    var found = Set<String>()
    for e in await server.entries() { if let c = e.content { found.insert(SimulationLedger.hash(c)) } }
    for m in machines {
      for url in localCopies(of: m) {
        if let data = try? Data(contentsOf: url) { found.insert(SimulationLedger.hash(data)) }
      }
    }
    for v in ledger.heads where !found.contains(v.hash) {
      ledger.violation("after step #\(number): a version is nowhere, not on the server nor on any machine: \(v.origin)")
    }
  }

  /// The files on a machine's disk that hold versions: every file of its content cache (cached,
  /// edited and staged uploads).
  func localCopies(of m: SimulatedMachine) -> [URL] {
    let folder = m.engine.store.folder(for: SimulatedServer.domain)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.sorted().map { folder.appendingPathComponent($0) }.filter {
      var dir: ObjCBool = false
      return FileManager.default.fileExists(atPath: $0.path, isDirectory: &dir) && !dir.boolValue
    }
  }

  /// Faults off, every machine restarted if it died, online and signed in; then sync rounds until
  /// a round changes nothing (at most 8).
  func quiesce() async {
    log("quiescence: faults off, every machine online, signed in, with space")
    for m in machines {
      if m.link.crashed {
        crashes += 1
        await restart(m)
      }
      m.link.setFaults(SimulatedLink.Faults())
      m.link.setOffline(false)
      m.link.setSignedOut(false)
      m.link.setQuotaFull(false)
      await SimulatedMachine.$process.withValue(m.pid) { await m.engine.queue.resolve(domain: m.domain.identifier) }
    }
    var lastState = ""
    for round in 1...8 {
      for m in machines {
        let (report, summary) = await SimulatedMachine.$process.withValue(m.pid) {
          let report = await m.engine.queue.drain()
          do throws(ProviderError) {
            let s = try await m.engine.syncChanges(of: m.domain.identifier, allowMassDeletion: false)
            ambiguousMoves[m.number] = Set(s.ambiguousMoves)
            return (report, "\(s.updated) updated, \(s.deleted) deleted, \(s.heldDeletions) held")
          } catch {
            return (report, "sync failed: \(error.message)")
          }
        }
        log("round \(round) \(m.name): \(report.completed.count) done, \(report.unfinished.count) left; \(summary)")
      }
      let state = await stateStamp()
      if state == lastState && round >= 3 { break }
      lastState = state
    }
  }

  /// The server's contents and every machine's pending transfers, to tell when a round changed
  /// nothing.
  func stateStamp() async -> String {
    var s = ""
    for e in await server.entries() {
      s += "\(e.trashed) \(e.item.path.displayString) \(e.item.version.displayString)\n"
    }
    for m in machines { s += "\(m.name) \((try? m.index.pendingTransfers().count) ?? -1)\n" }
    return s
  }

  func checkAtQuiescence() async {
    let entries = await server.entries()
    let onServer = Set(entries.compactMap { $0.content.map(SimulationLedger.hash) })
    for v in ledger.heads where !onServer.contains(v.hash) {
      ledger.violation("at quiescence: a saved version is not on the server (nor in its trash): \(v.origin) (\(v.hash.prefix(8)))")
    }
    let byInner = Dictionary(entries.map { ($0.item.identifier, $0) }, uniquingKeysWith: { a, _ in a })
    for m in machines {
      checkIntegrity(m, when: "at quiescence")
      await checkTransfers(m)
      await checkContent(m, byInner)
      await checkAnnotations(m, byInner)
    }
  }

  /// No transfer waits for ever without a visible reason: at quiescence each is done, or failed
  /// with a message the person sees.
  func checkTransfers(_ m: SimulatedMachine) async {
    for t in (try? m.index.pendingTransfers()) ?? [] {
      if t.state == .failed && !(t.lastError ?? "").isEmpty {
        log("\(m.name): transfer \(t.id) failed, visibly: \(t.lastError ?? "")")
        continue
      }
      ledger.violation(
        "\(m.name): transfer \(t.id) (\(t.direction), \(t.name?.displayString ?? t.identifier.rawValue)) is still \(t.state) at quiescence: \(t.lastError ?? "no reason given")"
      )
    }
  }

  /// The server's identifier of an identifier a machine holds.
  func inner(_ id: ItemIdentifier) async -> ItemIdentifier? { await server.inner(id) }

  /// The identifier a machine should hold for the server's item now.
  func outer(_ entry: SimulatedServer.Entry) -> ItemIdentifier {
    kind.changes == .feed ? entry.item.identifier : PathKeyedMemoryProvider(base: server.memory).identifier(for: entry.item.path)
  }

  /// What the machine cached agrees with the server (I1, I12): nothing is left edited and not sent,
  /// and clean content of the server's current version holds the server's bytes.
  func checkContent(_ m: SimulatedMachine, _ byInner: [ItemIdentifier: SimulatedServer.Entry]) async {
    for c in (try? m.index.allContent(domain: SimulatedServer.domain)) ?? [] {
      let entry = await inner(c.identifier).flatMap { byInner[$0] }
      if c.state == .dirty {
        ledger.violation("\(m.name): \(entry?.item.path.displayString ?? c.identifier.rawValue) has edits never sent at quiescence")
        continue
      }
      guard c.state == .clean, let entry, let data = entry.content, entry.item.version.content == c.version.content else {
        continue
      }
      if SimulationLedger.hash(data) != c.sha256 {
        ledger.violation("\(m.name): the cached copy of \(entry.item.path.displayString) is not the server's bytes of its version")
      }
      let file = m.engine.store.fileURL(domain: SimulatedServer.domain, identifier: c.identifier)
      if let bytes = try? Data(contentsOf: file), SimulationLedger.hash(bytes) != c.sha256 {
        ledger.violation("\(m.name): the cached file of \(entry.item.path.displayString) does not hold what the index says")
      }
    }
    // Working-set items the index shows as live are live on the server, at the same version.
    for id in (try? m.index.itemIdentifiers(domain: SimulatedServer.domain)) ?? [] {
      guard let row = try? m.index.item(domain: SimulatedServer.domain, identifier: id), row.isInWorkingSet,
        !row.isTrashed, !row.isInsideTrash, row.kind != .folder
      else { continue }
      guard let entry = await inner(id).flatMap({ byInner[$0] }), !entry.trashed else {
        // A file gone from its folder while two new ones there are alike is held, not deleted:
        // one of them may be it renamed (the sync says so; `--allow-deletions` confirms).
        if ambiguousMoves[m.number]?.contains(id) == true { continue }
        ledger.violation("\(m.name) shows \(row.path.displayString) though the server no longer has it")
        continue
      }
      if entry.item.version.content != row.version.content {
        ledger.violation(
          "\(m.name) shows \(row.path.displayString) at version \(row.version.displayString), the server has \(entry.item.version.displayString)")
      }
    }
  }

  /// Tags, favorites and Recents survive renames and moves (issue 15 §2).
  func checkAnnotations(_ m: SimulatedMachine, _ byInner: [ItemIdentifier: SimulatedServer.Entry]) async {
    let recents = Set(((try? m.index.recents(limit: 10_000)) ?? []).map(\.identifier))
    for innerID in (opened[m.number] ?? []).sorted(by: { $0.rawValue < $1.rawValue }) {
      guard let entry = byInner[innerID], !entry.trashed, survivesHere(innerID, m.number) else { continue }
      if !recents.contains(outer(entry)) {
        ledger.violation("\(m.name) opened \(entry.item.path.displayString) but it is not in its Recents")
      }
    }
    for (innerID, tags) in (expectedTags[m.number] ?? [:]).sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
      guard lastTagger[innerID] == m.number, let entry = byInner[innerID], !entry.trashed, survivesHere(innerID, m.number) else {
        continue
      }
      let row = try? m.index.item(domain: SimulatedServer.domain, identifier: outer(entry))
      if Set((row?.tags ?? []).map { $0.lowercased() }) != Set(tags.map { $0.lowercased() }) {
        ledger.violation("\(m.name) tagged \(entry.item.path.displayString) \(tags), its index says \(row?.tags ?? [])")
      }
    }
    for (innerID, on) in (expectedFavorites[m.number] ?? [:]).sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
      guard lastFavoriter[innerID] == m.number, let entry = byInner[innerID], !entry.trashed, survivesHere(innerID, m.number) else {
        continue
      }
      let row = try? m.index.item(domain: SimulatedServer.domain, identifier: outer(entry))
      if (row?.isFavorite ?? false) != on {
        ledger.violation("\(m.name) \(on ? "favorited" : "unfavorited") \(entry.item.path.displayString), its index disagrees")
      }
    }
  }

  /// Whether what a machine noted about an item must have followed it: always with a feed; on
  /// path-keyed storage only through its own renames and moves (``movers``).
  func survivesHere(_ innerID: ItemIdentifier, _ machine: Int) -> Bool {
    kind.changes == .feed || (movers[innerID] ?? []).subtracting([machine]).isEmpty
  }
}
