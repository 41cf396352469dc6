import ExtensionHost
import FolioServer
import Foundation
import ProviderAPI
import S3Client
import S3Provider
import SFTPProvider
import WebDAVProvider

/// Page tokens and sync anchors: opaque bytes a provider hands the engine and gets back later
/// (from the index, after an upgrade, from a server that changed), decoded by each provider.
///
/// `Page`/`SyncAnchor` (≤ 500 bytes), `FolderListingToken` (S3, WebDAV), SFTP's `ListingToken`,
/// the extension host's own listing tokens, S3's v1 marker tokens, the S3 and WebDAV trash
/// offsets, and `folio serve`'s page tokens and anchors. Property: each decodes or fails cleanly,
/// never traps; what decodes encodes to a token that decodes the same; an offset stays in its
/// listing.
enum TokenTarget {
  static let target = FuzzTarget(
    name: "tokens", summary: "page tokens and sync anchors: decode or fail cleanly; round-trip; offsets in range",
    dictionary: ["\u{1}", "#host:", "m:", "%2F", "%", ":", "-1", "9223372036854775807", "-9223372036854775808", "epoch.", "AQ"]
  ) { bytes in
    let data = Data(bytes)
    let page: Page
    do { page = try Page(data) } catch {
      if bytes.count <= Page.maxSize { return FuzzViolation("a token of \(bytes.count) bytes was refused") }
      return nil
    }
    if bytes.count > Page.maxSize { return FuzzViolation("a token of \(bytes.count) bytes was taken") }
    _ = try? SyncAnchor(data)
    if let token = try? FolderListingToken(page) {
      guard let again = try? FolderListingToken(token.encoded()), again == token else {
        return FuzzViolation("a folder listing token does not round-trip")
      }
    }
    if let token = try? ListingToken(page) {
      guard let again = try? ListingToken(token.encoded()), again == token else {
        return FuzzViolation("an SFTP listing token does not round-trip")
      }
    }
    _ = HostSortedListings.parse(page)
    if let text = String(data: data, encoding: .utf8) { _ = S3ListingDialect.marker(fromToken: text) }
    for count in [0, 3, 1000] {
      for window in [S3Provider.trashWindow(page, count: count, pageSize: 100), WebDAVProvider.trashWindow(page, count: count, pageSize: 100)]
      where window.lowerBound < 0 || window.upperBound > count {
        return FuzzViolation("a trash page token gave the window \(window) of \(count) entries")
      }
    }
    return serverTokens(String(decoding: bytes, as: UTF8.self))
  }

  /// `folio serve`'s reading of a page token or anchor a client sent back.
  static func serverTokens(_ text: String) -> FuzzViolation? {
    for epoch in ["e1", "fuzz-epoch"] {
      if let token = try? PageToken(decoding: text, epoch: epoch) {
        guard let again = try? PageToken(decoding: token.encoded(), epoch: epoch), again == token else {
          return FuzzViolation("a server page token does not round-trip")
        }
      }
      if let anchor = try? FolioServer.SyncAnchor(decoding: text, epoch: epoch) {
        guard let again = try? FolioServer.SyncAnchor(decoding: anchor.encoded, epoch: epoch), again == anchor else {
          return FuzzViolation("a server sync anchor does not round-trip")
        }
      }
    }
    return nil
  }
}
