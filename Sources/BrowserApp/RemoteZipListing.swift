import BrowserUI
import Foundation
import PreviewKit
import ProviderAPI
import ProviderCore

/// A remote ZIP that is not downloaded, listed from two ranged reads: its last 64 KiB (the end
/// record, within 22 + 65,535 bytes of the end) and the start of the directory it points to, which
/// is often in those same bytes. The data of the entries is never read.
enum RemoteZipListing {
  static func preview(_ item: Item, in domain: Domain, scratch: URL, subject: PreviewSubject, type: String?) async -> Preview {
    guard let size = item.documentSize, size >= 22 else {
      return Preview(typeDescription: type, body: .message("Download it to list it (m, then Download)."))
    }
    do throws(ProviderError) {
      let tailStart = max(0, size - Int64(ZipDirectory.tailLength))
      let (tail, _) = try await PreviewReader.bytes(of: item, in: domain, range: tailStart..<size, scratch: scratch)
      guard let location = ZipDirectory.locate(tail: tail, tailOffset: UInt64(tailStart)) else {
        return Preview(typeDescription: type, body: .message("No ZIP directory at its end: download it to see what it is."))
      }
      let limit = UInt64(PreviewReader.headLimit)
      let wanted = location.offset..<(location.offset + min(location.size, limit))
      var directory: [UInt8]
      if wanted.lowerBound >= UInt64(tailStart), wanted.upperBound <= UInt64(size) {
        let from = Int(wanted.lowerBound - UInt64(tailStart))
        directory = Array(tail[from..<min(tail.count, from + wanted.count)])
      } else {
        directory = try await PreviewReader.bytes(
          of: item, in: domain, range: Int64(wanted.lowerBound)..<Int64(wanted.upperBound), scratch: scratch
        ).bytes
      }
      let entries = ZipDirectory.entries(in: directory, limit: max(subject.rows, 10) * 4)
      let lines = entries.map { e in
        StyledLine([
          .init(pad(SizeText.short(Int64(clamping: e.size)), 9), .token(.number)), .init("  "),
          .init(TerminalText.escape(bytes: e.name), e.isFolder ? .token(.heading) : .plain),
        ])
      }
      let shown = entries.count < Int(location.entries) ? "first \(entries.count) of \(location.entries) entries" : "\(entries.count) entries"
      return Preview(typeDescription: type ?? "ZIP archive", extent: shown + " (listed from the server)", body: .lines(lines))
    } catch {
      return Preview(typeDescription: type, body: .message(error.message))
    }
  }

  static func pad(_ s: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - s.count)) + s }
}
