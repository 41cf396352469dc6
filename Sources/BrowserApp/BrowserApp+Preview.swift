import BrowserUI
import FolioConfig
import Foundation
import PreviewKit
import ProviderAPI
import ProviderCore

extension BrowserApp {
  /// Starts the preview of the pane's new subject, cancelling the one before (its helper process
  /// is killed with its group by the cancellation). A preview made before is on screen on the next
  /// frame; "loading…" is due after 100 ms (lf's delay, so a fast preview never flashes it).
  func startPreview(ticket: UInt64, _ subject: PreviewSubject) {
    let previous = previewJob
    previous?.cancel()
    previewJob = nil
    if let cached = previews.preview(for: subject) {
      send(.previewed(ticket: ticket, cached))
      return
    }
    guard let domain = services.registry.domain(subject.domain) else { return }
    let context = PreviewMaker.Context(
      domain: domain, store: services.sync?.store, services: services.preview, previous: previous)
    // A key held down (another move within 36 ms of the last: key repeat, 30 a second): the
    // preview waits for the cursor to rest 40 ms, so the files passed over cost no preview and no
    // frame; a single move after a pause previews at once.
    let now = ContinuousClock.now
    let held = lastPreviewRequest.map { now - $0 < .milliseconds(36) } ?? false
    lastPreviewRequest = now
    previewJob = Task { [weak self] in
      // Pictures and programs wait for the cursor to settle (yazi 30 ms, vifm 50 ms): holding j
      // through a folder of photos or archives decodes and starts nothing for those passed over.
      let settle = max(PreviewMaker.settle(for: subject.item), held ? .milliseconds(40) : .zero)
      if settle > .zero {
        try? await Task.sleep(for: settle)
        if Task.isCancelled { return }
      }
      let made = await PreviewMaker.make(subject, context)
      guard !Task.isCancelled, let self else { return }
      if made.cacheable { self.previews.store(made.preview, for: subject) }
      self.send(.previewed(ticket: ticket, made.preview))
    }
    Task { [weak self] in
      try? await Task.sleep(for: .milliseconds(100))
      self?.send(.previewLate(ticket: ticket))
    }
  }
}
