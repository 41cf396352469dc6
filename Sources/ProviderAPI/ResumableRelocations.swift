/// A rename or move the provider journaled and finished after the process that started it was
/// gone (killed, crashed, the server unreachable at the time): the core re-keys what it keeps
/// under `from` (tags, favorites, Recents, cached content) to `to`, as it does when `modifyItem`
/// answers.
public struct FinishedRelocation: Sendable, Equatable {
  public let from: ItemPath
  public let to: ItemPath

  public init(from: ItemPath, to: ItemPath) {
    self.from = from
    self.to = to
  }
}

/// A path-keyed provider whose renames are jobs of many requests (S3: a copy and a delete per key)
/// kept in a journal until they are done, so that one interrupted is finished later, never left
/// with half of a folder under each name.
public protocol ResumableRelocations: PathKeyedProvider {
  /// Finishes every relocation the journal still holds (none started by a live process), and
  /// says which finished. `progress` counts the work of all of them together.
  func resumeUnfinishedRelocations(progress: @escaping @Sendable (TransferProgress) -> Void)
    async throws(ProviderError) -> [FinishedRelocation]
}
