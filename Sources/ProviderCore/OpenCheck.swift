import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// What to do with a local item a person asked to open, decided before any program starts.
///
/// An opener started on a path that does not exist creates a file there (an editor saves an empty
/// buffer), and one started on a FIFO waits for a writer that never comes, with the terminal handed
/// over. So the item is found again by identifier first (`ItemService.resolve`), and what its path
/// leads to — through links — is looked at. Runs blocking syscalls: call it off the UI loop.
public enum OpenCheck: Sendable, Equatable {
  /// Open this item (`movedFrom`: it was renamed or moved since the caller saw it; followed).
  case open(Item, movedFrom: ItemPath?)
  /// A link to a folder: enter it, as ranger, nnn and lf do.
  case enterFolder(Item)
  /// The item cannot be found by its identifier: the caller's entry is stale.
  case gone(ProviderError)
  /// It exists but opening it would fail or hang: the reason, for the status line.
  case refused(ProviderError)

  /// - Parameters:
  ///   - withProgram: A program the person chose (Open With) gets any file, FIFOs and devices
  ///     included (they asked for it; Ctrl-C ends it); only the default opener is spared them.
  public static func run(
    _ item: Item, in domain: Domain, services: ItemService, withProgram: Bool = false
  ) async -> OpenCheck {
    // Listed by name only (its folder can be read but not searched): say why it cannot open.
    if let error = item.metadataError { return .refused(error) }
    let fresh: Item
    var movedFrom: ItemPath? = nil
    do throws(ProviderError) {
      switch try await services.resolve(item, in: domain) {
      case .current(let i): fresh = i
      case .moved(let i, let from):
        fresh = i
        movedFrom = from
      case .gone(let error): return .gone(error)
      }
    } catch {
      return .refused(error)
    }
    if let refusal = refusal(for: fresh, withProgram: withProgram) { return .refused(refusal) }
    if fresh.symlinkTargetPath != nil, !withProgram, isFolder(following: fresh.path) { return .enterFolder(fresh) }
    return .open(fresh, movedFrom: movedFrom)
  }

  /// Why the item at its path cannot be opened, or nil. Links are followed (`stat`): a broken
  /// link and a loop of links say so, with where the link points.
  public static func refusal(for item: Item, withProgram: Bool) -> ProviderError? {
    var st = stat()
    let name = item.filename.displayString
    let target = item.symlinkTargetPath.map { " → \($0.displayString)" } ?? ""
    if item.path.withCString({ stat($0, &st) }) != 0 {
      let e = errno
      switch e {
      case ENOENT where item.symlinkTargetPath != nil:
        return ProviderError(.noSuchItem, "“\(name)\(target)” is a broken link: its target is missing")
      case ELOOP:
        return ProviderError(.invalidArgument, "“\(name)\(target)” is a loop of links: it never reaches a file")
      case EACCES:
        return ProviderError(.noPermission, "“\(name)\(target)” cannot be reached: permission denied")
      default:
        return ProviderError(.ioError, "“\(name)\(target)” cannot be opened: \(String(cString: strerror(e)))")
      }
    }
    guard !withProgram else { return nil }
    let kind: String? =
      switch st.st_mode & S_IFMT {
      case S_IFIFO: "a named pipe (FIFO): an opener would wait for a writer"
      case S_IFSOCK: "a socket: it has no content to open"
      case S_IFCHR, S_IFBLK: "a device: Folio does not open devices (Open With… runs a program of your choice)"
      default: nil
      }
    return kind.map { ProviderError(.invalidArgument, "“\(name)\(target)” is \($0)") }
  }

  /// Whether the path, its links followed, is a folder (`stat`, not `lstat`).
  public static func isFolder(following path: ItemPath) -> Bool {
    var st = stat()
    return path.withCString { stat($0, &st) } == 0 && (st.st_mode & S_IFMT) == S_IFDIR
  }
}
