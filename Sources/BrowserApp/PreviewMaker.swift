import BrowserUI
import Foundation
import PreviewKit
import ProviderAPI
import PreviewTools
import ProviderCore

/// Makes the preview of one item, off the loop: a folder's first page from its provider, a file's
/// first 64 KiB (from this computer, the download cache, or one ranged read) turned into text,
/// code, JSON, a hex dump or a picture. Never throws: what cannot be previewed says why.
enum PreviewMaker {
  struct Context: Sendable {
    var domain: Domain
    var store: ContentStore?
    var services: PreviewServices
    /// The job before this one, cancelled: a program it started is killed and reaped before this
    /// one starts its own, so there is never more than one (a program that ignores SIGTERM takes
    /// up to 200 ms to go).
    var previous: Task<Void, Never>?
  }

  struct Made: Sendable {
    var preview: Preview
    /// False for what may be different a moment later (an error, a server that did not answer).
    var cacheable: Bool
  }

  /// How long the cursor must rest on the item before its preview starts, by its name (decided
  /// before reading): a picture 30 ms (yazi's settle), anything an installed program previews (an
  /// archive, a PDF, audio, video) 60 ms — more than the 33 ms between keys held at 30 per second,
  /// so holding `j` starts no program for the files it passes; text, nothing.
  static func settle(for item: Item) -> Duration {
    let name = String(decoding: item.filename.bytes, as: UTF8.self)
    if ToolKind(name: name) != nil { return .milliseconds(60) }
    let ext = item.filename.pathExtension.lowercased()
    return ["png", "jpg", "jpeg", "gif", "webp", "bmp"].contains(ext) ? .milliseconds(30) : .zero
  }

  static func make(_ subject: PreviewSubject, _ context: Context) async -> Made {
    let item = subject.item
    do throws(ProviderError) {
      if item.isFolder { return Made(preview: try await folder(subject, context), cacheable: false) }
      let head = try await PreviewReader.head(
        of: item, in: context.domain, store: context.store, scratch: context.services.scratch)
      try Task.checkCancellation(orThrow: .cancelledError)
      let preview = await FileContentPreview.make(
        item: item, head: head, subject: subject, domain: context.domain, services: context.services,
        previous: context.previous)
      return Made(preview: preview, cacheable: true)
    } catch {
      return Made(preview: Preview(body: .message(error.message)), cacheable: false)
    }
  }

  /// A folder's first entries, in Browse's order, from its provider (the same paging as Browse).
  static func folder(_ subject: PreviewSubject, _ context: Context) async throws(ProviderError) -> Preview {
    let request = EnumerationRequest(
      container: subject.item.identifier, sort: .default, includeHidden: false, suggestedPageSize: max(50, subject.rows + 1))
    let page = try await context.domain.provider.enumerate(request, page: nil, progress: { _ in })
    return Preview(body: .folder(entries: page.items, total: page.nextPage == nil ? page.items.count : page.totalCount))
  }
}

extension Task where Success == Never, Failure == Never {
  static func checkCancellation(orThrow error: ProviderError) throws(ProviderError) {
    if Task.isCancelled { throw error }
  }
}
