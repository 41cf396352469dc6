import Foundation
import ProviderAPI
import WebDAVClient


/// A PROPFIND's `207 Multi-Status` as WebDAVClient reads it: `MultistatusParser` (the streaming
/// SAX reader `MultistatusReader` runs) with `HrefResolver` turning hrefs into paths.
///
/// Properties: no href escapes the listed collection — the requested entry is the collection
/// itself and every child is exactly one usable name below it (not empty, `.`, `..`, no `/`);
/// the input itself, read as one href, resolves to a path under the base or is refused; every
/// refusal's message is safe to show.
enum WebDAVMultistatusTarget {
  static let target = FuzzTarget(
    name: "webdav-multistatus", summary: "PROPFIND answers: no href leaves the listed folder; safe refusals",
    dictionary: FuzzDictionary.xml
  ) { bytes in
    let requested: WebDAVPath
    do { requested = try WebDAVPath("docs") } catch { preconditionFailure("docs is a valid path") }
    let resolver = HrefResolver(basePath: Array("/dav/files/alice/".utf8))
    var escaped: [UInt8]?
    let parser = MultistatusParser(resolver: resolver, requested: requested, depth: 1) { entry, role in
      let parts = entry.path.bytes.split(separator: 0x2F, omittingEmptySubsequences: false)
      switch role {
      case .requested:
        if entry.path != requested { escaped = entry.path.bytes }
      case .child:
        let name = parts.last.map(Array.init) ?? []
        if parts.count != 2 || parts[0].elementsEqual(Array("docs".utf8)) == false || name.isEmpty || name == [0x2E]
          || name == [0x2E, 0x2E]
        {
          escaped = entry.path.bytes
        }
      }
      return true
    }
    // As MultistatusReader reads a body: through the UTF-8 check, then the push parser.
    _ = parser.read(UTF8CheckedStream(InputStream(data: Data(bytes))))
    if let escaped { return FuzzViolation("a listing of docs took the path \(TerminalText.escape(bytes: escaped))") }
    if let failure = parser.failure, let v = TerminalSafety.check(failure.message, from: "a listing's refusal") {
      return v
    }
    do throws(WebDAVError) {
      let path = try resolver.path(String(decoding: bytes, as: UTF8.self))
      for part in path.bytes.split(separator: 0x2F, omittingEmptySubsequences: false) {
        if part.isEmpty || part.elementsEqual([0x2E]) || part.elementsEqual([0x2E, 0x2E]) {
          return FuzzViolation("an href resolved to the path \(TerminalText.escape(bytes: path.bytes))")
        }
      }
    } catch {
      if let v = TerminalSafety.check(error.message, from: "an href's refusal") { return v }
    }
    return nil
  }
}

/// A PROPPATCH's answer (`PropPatchAnswer.statuses`): read whole, statuses in order.
///
/// Property: every status it reports is an HTTP status (100–599); an unreadable answer is an
/// empty list, never a trap.
enum WebDAVPropPatchTarget {
  static let target = FuzzTarget(
    name: "webdav-proppatch", summary: "PROPPATCH answers: HTTP statuses or nothing",
    dictionary: FuzzDictionary.xml + ["HTTP/1.1 424 Failed Dependency", "HTTP/1.1 99999999999999999999 x", "HTTP/1.1 -1"]
  ) { bytes in
    for status in PropPatchAnswer.statuses(bytes) where status != 0 && !(100...599).contains(status) {
      return FuzzViolation("a PROPPATCH answer reported the status \(status)")
    }
    return nil
  }
}
