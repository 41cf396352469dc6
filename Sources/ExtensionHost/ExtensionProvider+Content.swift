import Crypto
import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Content through the staging folder (docs/EXTENSIONS.md §4 "Content"): bytes go through
/// files, never through JSON.
extension ExtensionProvider {
  public func fetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await fetchVerifiedContents(identifier, version: version, to: destination, progress: progress).item
  }

  public func fetchVerifiedContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> (item: Item, digest: ContentDigest?) {
    let (item, staged, sha) = try await download(identifier, version: version, range: nil, progress: progress)
    defer { unlink(staged.path) }
    try place(staged, at: destination)
    return (item, sha.map { ContentDigest(size: item.documentSize ?? 0, sha256: $0) })
  }

  public func fetchPartialContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, range: Range<Int64>, to destination: URL
  ) async throws(ProviderError) -> (item: Item, range: Range<Int64>) {
    guard currentCapabilities.ranges else {
      let item = try await fetchContents(identifier, version: version, to: destination, progress: { _ in })
      return (item, 0..<(item.documentSize ?? 0))
    }
    let (item, staged, _) = try await download(identifier, version: version, range: range, progress: { _ in })
    defer { unlink(staged.path) }
    try place(staged, at: destination)
    return (item, range)
  }

  /// `fetchContents` into a new staging file, checked: a regular file, of the item's size for a
  /// whole fetch, with the SHA-256 the extension stated when it stated one.
  private func download(
    _ identifier: ItemIdentifier, version: ItemVersion?, range: Range<Int64>?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> (Item, URL, String?) {
    // Started first: a start empties the staging folder.
    _ = try await supervisor.session()
    let staged = launch.processStagingDirectory.appendingPathComponent("dl-" + UUID().uuidString.lowercased())
    try? FileManager.default.createDirectory(
      at: launch.processStagingDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let fd = open(staged.path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw ProviderError(.ioError, "cannot create a staging file: \(String(cString: strerror(errno)))", underlying: errno)
    }
    close(fd)
    var params: [String: JSONValue] = ["id": .string(identifier.rawValue), "dest": .string(staged.path)]
    if let version { params["version"] = ExtensionItemCoding.json(version) }
    if let range { params["range"] = [.number(Double(range.lowerBound)), .number(Double(range.upperBound))] }
    let json: JSONValue
    let caps: ExtensionCapabilities
    do throws(ProviderError) {
      (json, caps) = try await call(
        "fetchContents", .object(params), .download,
        progress: { p in
          progress(TransferProgress(completedBytes: p["completed"]?.int64 ?? 0, totalBytes: p["total"]?.int64))
        })
    } catch {
      unlink(staged.path)
      throw error
    }
    do throws(ProviderError) {
      let item = try await decode(json["item"] ?? .null, caps)
      var st = stat()
      guard lstat(staged.path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
        throw ProviderError(.ioError, "the extension left no regular file for \(item.filename.displayString)")
      }
      if range == nil, let size = item.documentSize, Int64(st.st_size) != size {
        throw ProviderError(
          .ioError, "the extension wrote \(st.st_size) bytes of \(item.filename.displayString), which has \(size)")
      }
      var sha: String? = nil
      if range == nil, let stated = json["sha256"]?.string?.lowercased() {
        let actual = try Self.sha256(of: staged)
        guard actual == stated else {
          throw ProviderError(.ioError, "the bytes of \(item.filename.displayString) do not match the SHA-256 the extension stated")
        }
        sha = actual
      }
      return (item, staged, sha)
    } catch {
      unlink(staged.path)
      throw error
    }
  }

  /// Moves a checked staging file to the caller's destination (a rename: same filesystem as
  /// the content cache; else a copy).
  private func place(_ staged: URL, at destination: URL) throws(ProviderError) {
    if rename(staged.path, destination.path) == 0 { return }
    do {
      if FileManager.default.fileExists(atPath: destination.path) { try FileManager.default.removeItem(at: destination) }
      try FileManager.default.copyItem(at: staged, to: destination)
    } catch {
      throw ProviderError(.ioError, "cannot write \(TerminalText.escape(destination.path)): \(error.localizedDescription)")
    }
  }

  static func sha256(of url: URL) throws(ProviderError) -> String {
    guard let handle = try? FileHandle(forReadingFrom: url) else { throw ProviderError(.ioError, "cannot read a staging file") }
    defer { try? handle.close() }
    var hasher = SHA256()
    while true {
      guard let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty else { break }
      hasher.update(data: chunk)
    }
    return hasher.finalize().map { String(format: "%02x", $0) }.joined()
  }

  /// The caller's file as a read-only file of the staging folder, which the extension may read
  /// until it answers: a hard link when the file is already read-only (nothing to protect), else
  /// a copy (a link would share the caller's mode, and the extension must not write to it).
  func stageUpload(_ contents: URL) throws(ProviderError) -> URL {
    let staged = launch.processStagingDirectory.appendingPathComponent("up-" + UUID().uuidString.lowercased())
    try? FileManager.default.createDirectory(
      at: launch.processStagingDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    var st = stat()
    guard stat(contents.path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
      throw ProviderError(.noSuchItem, "the file to upload is gone: \(TerminalText.escape(contents.path))")
    }
    if st.st_mode & 0o222 == 0, link(contents.path, staged.path) == 0 { return staged }
    do {
      try FileManager.default.copyItem(at: contents, to: staged)
    } catch {
      throw ProviderError(.ioError, "cannot stage the upload: \(error.localizedDescription)")
    }
    chmod(staged.path, 0o400)
    return staged
  }
}
