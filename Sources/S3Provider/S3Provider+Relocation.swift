import Foundation
import ProviderAPI
import S3Client
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Rename and move as a journaled job (``S3RelocationJob``): the plan written down, a copy per key,
/// then a delete per source key, each step marked. A process killed anywhere in it leaves a job
/// that ``resumeUnfinishedRelocations(progress:)`` finishes — forward, since once one source is
/// deleted only finishing keeps every key — and the core then re-keys tags, favorites and Recents.
extension S3Provider: ResumableRelocations {
  /// Moves the item at `from` (one object, or every key below a folder) to `to`.
  ///
  /// A refusal while copying that trying again cannot fix (a name taken meanwhile, access denied)
  /// removes the copies made and forgets the job: nothing moved, and the error says why. Anything
  /// else (the network, the server busy, the process killed) leaves the job in the journal, to be
  /// finished by the next `folio sync` or browse.
  func relocate(_ from: ItemPath, to: ItemPath, progress: @escaping @Sendable (TransferProgress) -> Void)
    async throws(ProviderError)
  {
    try await withClient { c in
      if try await self.exists(to, c) { throw self.collision(to) }
      let objects = try await self.objects(of: from, c)
      guard !objects.isEmpty else { throw ProviderError.noSuchItem(from.displayString) }
      let job = S3RelocationJob(
        id: "\(Int64(Date().timeIntervalSince1970 * 1000))-\(UUID().uuidString.lowercased())",
        from: Data(from.bytes), to: Data(to.bytes), fromKey: Data(Self.key(from)), toKey: Data(Self.key(to)),
        objects: objects.map { S3RelocationJob.Object(key: Data($0.key), size: $0.size) }, phase: .copying, done: 0,
        resumed: false)
      let lock = try self.relocations?.claim(job.id)
      defer { if let lock { close(lock) } }
      try self.relocations?.save(job)
      try await self.run(job, c, progress)
    }
  }

  public func resumeUnfinishedRelocations(progress: @escaping @Sendable (TransferProgress) -> Void)
    async throws(ProviderError) -> [FinishedRelocation]
  {
    guard let journal = relocations else { return [] }
    var finished: [FinishedRelocation] = []
    for candidate in journal.jobs() {
      let lock: Int32?
      do { lock = try journal.claim(candidate.id) } catch { throw error as? ProviderError ?? ProviderError(.ioError, "\(error)") }
      guard let lock else { continue }  // another live process is running it
      defer { close(lock) }
      // Finished by another process between the listing and the claim: its file is gone.
      guard var job = journal.job(candidate.id) else { continue }
      job.resumed = true
      let running = job
      try await withClient { c in try await self.run(running, c, progress) }
      let (old, new) = (ItemPath(bytes: [UInt8](job.from)), ItemPath(bytes: [UInt8](job.to)))
      listings.forget(old.parent)
      listings.forget(new.parent)
      finished.append(FinishedRelocation(from: old, to: new))
    }
    return finished
  }

  /// Runs a job from where its journal says, to the end (its file removed).
  private func run(_ start: S3RelocationJob, _ c: S3Client, _ progress: @escaping @Sendable (TransferProgress) -> Void)
    async throws
  {
    var job = start
    let journal = relocations
    func report() { progress(TransferProgress(completedBytes: job.doneUnits, totalBytes: job.totalUnits)) }
    report()
    if job.phase == .copying {
      while job.done < job.objects.count {
        let object = job.objects[job.done]
        do {
          try await copyForRelocation(object, to: job.target(of: object), resumed: job.resumed, c)
        } catch let error as S3Error where !job.resumed && !error.isRetryable {
          // Refused for good on the first run: undo the copies, as if nothing had been asked.
          for made in job.objects.prefix(job.done) { _ = try? await c.deleteObject(job.target(of: made)) }
          journal?.remove(job.id)
          throw error
        }
        job.done += 1
        try relocationFault.withLock { $0 }?(.copying, job.done)
        try journal?.save(job)
        report()
      }
      job.phase = .deleting
      job.done = 0
      try journal?.save(job)
    }
    while job.done < job.objects.count {
      _ = try await c.deleteObject([UInt8](job.objects[job.done].key))
      job.done += 1
      try relocationFault.withLock { $0 }?(.deleting, job.done)
      try journal?.save(job)
      report()
    }
    journal?.remove(job.id)
  }

  /// One key's copy. On a resumed job the target may already hold this very copy (made, not yet
  /// marked), so it is overwritten instead of refused, and a part copy the killed process left
  /// pending is aborted; a source gone meanwhile (deleted by someone else) is skipped.
  private func copyForRelocation(_ object: S3RelocationJob.Object, to target: [UInt8], resumed: Bool, _ c: S3Client)
    async throws
  {
    let key = [UInt8](object.key)
    guard resumed else {
      try await copyObject(key, size: object.size, to: target, c)
      return
    }
    if object.size > copyPartThreshold {
      for pending in (try? await c.listMultipartUploads(prefix: target)) ?? [] where pending.key == target {
        try? await c.abortMultipartUpload(target, uploadID: pending.uploadID)
      }
    }
    do {
      try await copyObject(key, size: object.size, to: target, overwrite: true, c)
    } catch let error as S3Error where error.code == .noSuchKey {
      return
    }
  }
}

extension S3RelocationJournal {
  /// The job with this id as last written, or nil once it is done.
  func job(_ id: String) -> S3RelocationJob? {
    guard let data = FileManager.default.contents(atPath: url(id).path) else { return nil }
    return try? JSONDecoder().decode(S3RelocationJob.self, from: data)
  }
}
