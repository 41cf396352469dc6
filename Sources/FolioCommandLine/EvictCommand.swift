import ArgumentParser
import ProviderAPI
import ProviderCore

/// `folio evict ITEM...`: Remove Download. The items stay on the server and in every listing;
/// only the copy here goes (and comes back when opened).
struct EvictCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "evict",
    abstract: "Remove the downloaded copy of remote items (they stay on the server).",
    discussion: """
      A folder evicts every downloaded file inside. Refused for files with changes not uploaded \
      yet (run `folio sync`), kept downloaded (`folio pin --off` first) or open in a program.
      Items on this computer have no download to remove.
      """)

  @Argument(help: "The items: NAME:/path in a remote location.") var items: [String]

  func validate() throws {
    if items.isEmpty { throw ValidationError("give at least one item") }
  }

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let resolved = try await resolveAll(items, context: context)
      let engine = context.makeSyncEngine()
      var tally = FailureTally(total: resolved.count)
      for (domain, item) in resolved {
        do throws(ProviderError) { try await engine.evict(item, in: domain) } catch { tally.report(error) }
      }
      try tally.finish("some downloads were not removed")
    }
  }
}

/// `folio pin ITEM [--off]`: Keep Downloaded. A pinned item (every file of a pinned folder) is
/// downloaded now, never evicted, and downloaded again whenever the server's version changes.
struct PinCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pin",
    abstract: "Keep a remote item downloaded (--off: let it be evicted again).",
    discussion: "Pinning a folder keeps every file inside downloaded, also files added later.")

  @Argument(help: "The item: NAME:/path in a remote location.") var item: String
  @Flag(help: "Unpin.") var off = false

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let (domain, it) = try await context.resolve(item)
      let engine = context.makeSyncEngine()
      let queued = try await engine.pin(it, in: domain, !off)
      guard !queued.isEmpty else { return }
      let progress = ProgressLine(engine.events)
      var failures: [ProviderError] = []
      for id in queued {
        do throws(ProviderError) { _ = try await engine.queue.wait(for: id) } catch { failures.append(error) }
      }
      await progress.finish()
      for e in failures.dropLast() { Console.err(FolioContext.explain(e)) }
      if let last = failures.last {
        throw ProviderError(
          last.code, "\(FolioContext.explain(last)) (\(queued.count - failures.count) of \(queued.count) downloaded; the rest are retried by `folio sync`)")
      }
    }
  }
}
