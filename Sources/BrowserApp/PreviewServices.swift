import FolioConfig
import Foundation
import PreviewTools
import ProviderAPI

/// What the preview pane may use, made once at launch from config.toml's `[preview]` and
/// `[[previewer]]`: libmagic's database (loaded once; its answers name a file's type from its
/// content) and the sandbox installed tools run in (a private 0700 folder under
/// `$XDG_CACHE_HOME/folio/preview`). Either may be missing (no libmagic database, a cache folder
/// that cannot be made): the pane then does without, and says so where it matters.
public struct PreviewServices: Sendable {
  public var settings: PreviewSettings
  public var previewers: [PreviewerRule]
  /// Where ranged reads and the tools' pictures go (mode 0700).
  public var scratch: URL
  /// libmagic, loaded the first time a preview asks for a type (``LazyMagic``).
  let magic: LazyMagic
  let tools: ToolPreviewer?

  public init(settings: PreviewSettings = PreviewSettings(), previewers: [PreviewerRule] = [], scratch: URL) {
    self.settings = settings
    self.previewers = previewers
    self.scratch = scratch
    magic = LazyMagic()
    let sandbox = try? HelperSandbox.prepare(directory: scratch.path)
    tools = sandbox.map { ToolPreviewer(sandbox: $0, pictures: settings.showsPictures) }
    Self.removeLeftovers(in: scratch)
  }

  /// The services config.toml asks for.
  public static func configured(by configuration: FolioConfiguration, paths: FolioPaths) -> PreviewServices {
    PreviewServices(settings: configuration.preview, previewers: configuration.previewers, scratch: paths.previewCache)
  }

  /// The first `[[previewer]]` for this item, if any.
  func previewer(for item: Item) -> PreviewerRule? {
    previewers.first { $0.matches(name: item.filename, contentType: item.contentType) }
  }

  /// Pictures and ranged reads an earlier run left (killed before it removed them). Only those a
  /// minute old: another Folio may be using the folder now.
  static func removeLeftovers(in folder: URL) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
    let old = Date().addingTimeInterval(-60)
    for name in names where name.hasPrefix("picture-") || name.hasPrefix("range-") {
      let url = folder.appendingPathComponent(name)
      let modified = (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? nil
      if let modified, modified < old { try? FileManager.default.removeItem(at: url) }
    }
  }
}
