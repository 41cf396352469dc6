import Foundation
import ProviderAPI

/// Turns the hrefs of a multistatus answer into paths relative to the base URL.
///
/// An href may be an absolute URL or an absolute path, with whatever escapes and escape case the
/// server chose (remote-providers.md §4.1): it is decoded to bytes and compared with the base
/// path's bytes, never as text. One that is not below the base, or that holds `.`, `..` or an empty
/// name, is refused (test-plan F08): the caller rejects the whole listing rather than guess.
package struct HrefResolver: Sendable {
  /// The base path's bytes, ending in `/`.
  package let basePath: [UInt8]

  package init(basePath: [UInt8]) { self.basePath = basePath }

  package func path(_ href: String) throws(WebDAVError) -> WebDAVPath {
    var text = Array(href.utf8)
    let isSpace = { (b: UInt8) in b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
    while let last = text.last, isSpace(last) { text.removeLast() }
    var start = text.firstIndex { !isSpace($0) } ?? text.count
    // An absolute URL: skip `scheme://authority`.
    if let colon = text[start...].firstIndex(of: UInt8(ascii: ":")), colon + 2 < text.count,
      text[colon + 1] == UInt8(ascii: "/"), text[colon + 2] == UInt8(ascii: "/"),
      text[start..<colon].allSatisfy({ $0 < 0x80 && (Character(Unicode.Scalar($0)).isLetter || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E) })
    {
      start = text[(colon + 3)...].firstIndex(of: UInt8(ascii: "/")) ?? text.count
    }
    // An unescaped `?` or `#` ends the path in any URL; a server that meant them as part of a name
    // would have escaped them (all three test servers do).
    let end = text[start...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? text.count
    let raw = text[start..<end]
    guard raw.first == UInt8(ascii: "/") else { throw refused(href, "it is not an absolute path") }
    guard var bytes = PercentDecoding.bytes(raw) else { throw refused(href, "it has a broken %-escape") }
    if bytes.last != UInt8(ascii: "/") { bytes.append(UInt8(ascii: "/")) }
    guard bytes.starts(with: basePath) else { throw refused(href, "it is outside the account's folder") }
    var rest = Array(bytes[basePath.count...])
    if rest.last == UInt8(ascii: "/") { rest.removeLast() }
    do {
      return try WebDAVPath(rest)
    } catch {
      throw refused(href, "it names an empty, '.' or '..' component")
    }
  }

  private func refused(_ href: String, _ why: String) -> WebDAVError {
    WebDAVError(.malformedResponse, "the server listed an unusable href (\(why)): \(TerminalText.escape(String(href.prefix(300))))")
  }
}
