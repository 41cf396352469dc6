import PreviewTools
import Synchronization

/// libmagic's handle, made the first time a preview asks for a file's type rather than when the
/// browser starts: opening the library and loading its database cost ~0.4 M instructions on the
/// way to the first screen, which shows a folder (no type asked) more often than not. A failure
/// (libmagic1 or libmagic-mgc not installed) is remembered: the pane does without, as before.
final class LazyMagic: Sendable {
  private let state = Mutex<MagicType??>(nil)

  /// The handle, made on first use; nil when libmagic cannot be loaded.
  var handle: MagicType? {
    state.withLock { state in
      if let made = state { return made }
      let made = try? MagicType()
      state = .some(made)
      return made
    }
  }
}
