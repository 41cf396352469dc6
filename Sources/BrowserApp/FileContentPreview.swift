import BrowserUI
import FolioConfig
import Foundation
import PreviewImage
import PreviewKit
import PreviewTools
import ProviderAPI
import ProviderCore

/// A file's preview from its first bytes: the previewer is chosen by what the content is (its
/// magic number, libmagic's type), then by its name.
///
/// - a user's `[[previewer]]` for it, when the file is on this computer;
/// - a picture: decoded in-process for a file on this computer (or downloaded), its size only for
///   a remote one that is not (a picture needs the whole file; the header says what it is);
/// - a PDF, an archive, audio or video: an installed tool, on this computer's copy; a remote ZIP is
///   listed from two more ranged reads of its end and its directory, never downloaded;
/// - anything else: text with its syntax colored, pretty JSON, or a hex dump (PreviewKit).
enum FileContentPreview {
  static func make(
    item: Item, head: PreviewReader.Head, subject: PreviewSubject, domain: Domain, services: PreviewServices,
    previous: Task<Void, Never>? = nil
  ) async -> Preview {
    let name = String(decoding: item.filename.bytes, as: UTF8.self)
    let answer = services.magic.handle?.identify(head.bytes)
    let type = answer?.description
    if head.bytes.isEmpty { return Preview(typeDescription: type, body: .message("Empty file")) }
    if let rule = services.previewer(for: item) {
      await previous?.value
      return await userPreviewer(rule, head: head, subject: subject, type: type, services)
    }
    if let format = PictureFormat.sniff(head.bytes) {
      return picture(format, head: head, subject: subject, type: type, services)
    }
    if let kind = answer.flatMap({ ToolKind(mimeType: $0.mimeType) }) ?? ToolKind(name: name) {
      if let path = head.localFile, let tools = services.tools, services.settings.tools {
        // The job before is gone (its program killed and reaped) before this one starts another.
        await previous?.value
        return await tool(kind, tools: tools, path: path, subject: subject, type: type)
      }
      if kind == .archive(.zip), head.isRemote {
        return await RemoteZipListing.preview(item, in: domain, scratch: services.scratch, subject: subject, type: type)
      }
      if head.localFile == nil {
        return Preview(
          typeDescription: type,
          body: .message("Download it to preview it (m, then Download): only its first 64 KiB were read from the server."))
      }
    }
    var text = TextPreview.make(name: name, bytes: head.bytes, totalSize: Int(clamping: head.totalSize ?? Int64(head.bytes.count)))
    // Text: PreviewKit's words name the language ("Swift text, UTF-8"), libmagic's only "ASCII
    // text"; anything else: libmagic's ("ELF 64-bit LSB pie executable") over "binary data".
    if let type, text.typeDescription == nil || !(answer?.mimeType.hasPrefix("text/") ?? false) { text.typeDescription = type }
    return text
  }

  /// A picture in cells; a remote one that is not downloaded by its header only.
  static func picture(
    _ format: PictureFormat, head: PreviewReader.Head, subject: PreviewSubject, type: String?, _ services: PreviewServices
  ) -> Preview {
    let info = try? PictureDecoder.dimensions(of: head.bytes)
    let size = info.map { "\($0.width) × \($0.height)" }
    let description = type ?? "\(format.rawValue.uppercased()) picture" + (size.map { ", \($0)" } ?? "")
    guard services.settings.showsPictures else {
      return Preview(typeDescription: description, body: .message("Pictures are off ([preview] images = \"off\")."))
    }
    guard let path = head.localFile else {
      // A camera's photo carries a thumbnail in its first 64 KiB (Exif): shown, marked as such.
      if format == .jpeg, let thumbnail = ExifThumbnail.jpeg(in: head.bytes),
        let cells = try? PicturePreview.render(bytes: thumbnail, columns: subject.columns, rows: subject.rows)
      {
        return Preview(typeDescription: description, extent: "its Exif thumbnail (not downloaded)", body: .picture(cells))
      }
      return Preview(
        typeDescription: description,
        body: .message("A picture\(size.map { " of " + $0 } ?? "") on the server: download it to see it (m, then Download)."))
    }
    do throws(PictureError) {
      let cells = try PicturePreview.render(path: path, columns: subject.columns, rows: subject.rows)
      return Preview(typeDescription: description, body: .picture(cells))
    } catch {
      return Preview(typeDescription: description, body: .message(error.message))
    }
  }

  /// An installed tool's preview: lines, or a picture it made (decoded, then removed).
  static func tool(_ kind: ToolKind, tools: ToolPreviewer, path: String, subject: PreviewSubject, type: String?) async -> Preview {
    do {
      let made = try await tools.preview(path: ItemPath(path), kind: kind, columns: subject.columns, rows: subject.rows)
      return preview(of: made, subject: subject, type: type)
    } catch {
      return Preview(typeDescription: type, body: .message(TerminalText.escapeMessage("\(error)")))
    }
  }

  static func preview(of made: ToolPreview, subject: PreviewSubject, type: String?) -> Preview {
    if case .pictureFile(let file) = made {
      defer { unlink(file) }
      do throws(PictureError) {
        let cells = try PicturePreview.render(path: file, columns: subject.columns, rows: subject.rows)
        return Preview(typeDescription: type, body: .picture(cells))
      } catch {
        return Preview(typeDescription: type, body: .message(error.message))
      }
    }
    var extent: String?
    if case .lines(let lines, true) = made { extent = "first \(lines.count) lines" }
    return Preview(typeDescription: type, extent: extent, body: made.body ?? .message("nothing to show"))
  }

  /// The user's `[[previewer]]` command, with the file's path and the pane's size, on this
  /// computer's copy of the file.
  static func userPreviewer(
    _ rule: PreviewerRule, head: PreviewReader.Head, subject: PreviewSubject, type: String?, _ services: PreviewServices
  ) async -> Preview {
    let program = TerminalText.escape(rule.argv.first ?? "")
    guard let path = head.localFile, let tools = services.tools, services.settings.tools else {
      return Preview(
        typeDescription: type,
        body: .message(services.settings.tools ? "Download it to preview it with \(program) (m, then Download)." : "Tools are off ([preview] tools = false)."))
    }
    do {
      let made = try await tools.run(previewer: rule.arguments(for: ItemPath(path), columns: subject.columns, rows: subject.rows))
      return preview(of: made, subject: subject, type: type)
    } catch {
      return Preview(typeDescription: type, body: .message(TerminalText.escapeMessage("\(error)")))
    }
  }
}
