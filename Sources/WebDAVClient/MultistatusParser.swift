import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Reads a PROPFIND's `207 Multi-Status` as SAX events and hands over each `<response>` as a
/// ``WebDAVEntry`` the moment its end tag is read: nothing of the document is kept but the entry
/// being read, so a 100k-entry folder costs the memory of one entry (remote-providers.md §4.1).
///
/// Elements are matched by namespace and local name, never by prefix (servers use `D:`, `d:`,
/// `ns0:` or a default namespace). Each `<propstat>` carries its own status: only properties under
/// a 2xx one are taken; a 404 one lists properties the item does not have. An entry whose
/// `<response>` has a non-2xx status, or a propstat that failed (5xx, 424), makes the listing
/// incomplete (remote-providers.md §1.3: only a complete listing may turn into deletions).
///
/// Bounded against hostile answers (test-plan F08): at most ``maxDepth`` open elements and
/// ``maxText`` bytes of text per value; past either, parsing stops with `malformedResponse`.
final class MultistatusParser: NSObject, XMLParserDelegate {
  static let dav = "DAV:"
  static let ownCloud = "http://owncloud.org/ns"
  static let maxDepth = 64
  static let maxText = 64 * 1024

  /// Where an entry belongs.
  enum Role { case requested, child }

  private let resolver: HrefResolver
  private let requested: WebDAVPath
  private let depth: Int
  private let emit: (WebDAVEntry, Role) -> Bool

  /// The first problem found; parsing stops there.
  private(set) var failure: WebDAVError?
  /// `<response>`s that said something failed (a non-2xx status, a failed propstat).
  private(set) var failedResponses = 0
  /// Whether `</multistatus>` was read.
  private(set) var sawEnd = false

  // Reading state.
  private var stack: [(namespace: String, name: String)] = []
  private var text = ""
  private var href: String?
  private var responseStatus: Int?
  private var entry = PendingEntry()
  private var propstat = PendingEntry()
  private var propstatStatus: Int?
  private var propertyStart: Int?

  /// - Parameters:
  ///   - requested: The path the PROPFIND named: its own entry is `.requested`, the others must be
  ///     its direct children (`depth` 1) or there must be none (`depth` 0).
  ///   - emit: Takes each entry; false stops parsing (the consumer went away).
  init(resolver: HrefResolver, requested: WebDAVPath, depth: Int, emit: @escaping (WebDAVEntry, Role) -> Bool) {
    self.resolver = resolver
    self.requested = requested
    self.depth = depth
    self.emit = emit
  }

  /// A response being read: the properties from its 2xx propstats.
  private struct PendingEntry {
    var isCollection = false
    var values: [String: String] = [:]
  }

  // MARK: XMLParserDelegate

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    let namespace = namespaceURI ?? ""
    stack.append((namespace, name))
    guard stack.count <= Self.maxDepth else { return stop(parser, "elements nested deeper than \(Self.maxDepth)") }
    text = ""
    switch (stack.count, namespace, name) {
    case (1, Self.dav, "multistatus"):
      break
    case (1, _, _):
      stop(parser, "the answer is not a DAV:multistatus")
    case (2, Self.dav, "response"):
      href = nil
      responseStatus = nil
      entry = PendingEntry()
    case (3, Self.dav, "propstat") where isIn(Self.dav, "response"):
      propstat = PendingEntry()
      propstatStatus = nil
    case (5, _, _) where isIn(Self.dav, "prop", at: 3):
      propertyStart = stack.count
    case (6, Self.dav, "collection") where stack[4] == (Self.dav, "resourcetype"):
      propstat.isCollection = true
    default:
      break
    }
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) {
    guard failure == nil else { return }
    guard stack.count == 3 || (propertyStart != nil && stack.count == 5) || stack.count == 4 else { return }
    text += string
    if text.utf8.count > Self.maxText { stop(parser, "a value longer than \(Self.maxText) bytes") }
  }

  func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
    guard failure == nil, let top = stack.last else { return }
    let level = stack.count
    switch (level, top.namespace, top.name) {
    case (3, Self.dav, "href") where isIn(Self.dav, "response", at: 1):
      if href != nil { stop(parser, "a response with two hrefs") }
      href = text
    case (3, Self.dav, "status") where isIn(Self.dav, "response", at: 1):
      responseStatus = Self.status(text)
    case (4, Self.dav, "status") where isIn(Self.dav, "propstat", at: 2):
      propstatStatus = Self.status(text)
    case (5, _, _) where propertyStart != nil:
      propstat.values[Self.key(top.namespace, top.name)] = text.trimmingCharacters(in: .whitespacesAndNewlines)
      propertyStart = nil
    case (3, Self.dav, "propstat"):
      endPropstat()
    case (2, Self.dav, "response"):
      endResponse(parser)
    case (1, Self.dav, "multistatus"):
      sawEnd = true
    default:
      break
    }
    stack.removeLast()
    text = ""
  }

  func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
    if failure == nil {
      failure = WebDAVError(.malformedResponse, "the server's listing is not well-formed XML: \(parseError.localizedDescription)")
    }
  }

  // MARK: Responses

  private func endPropstat() {
    guard let status = propstatStatus else {
      failedResponses += 1
      return
    }
    switch status {
    case 200..<300:
      entry.isCollection = entry.isCollection || propstat.isCollection
      entry.values.merge(propstat.values) { _, new in new }
    case 404, 403, 401:
      break  // the item does not have it, or may not show it: not a failure of the listing
    default:
      failedResponses += 1
    }
  }

  private func endResponse(_ parser: XMLParser) {
    guard let href else { return stop(parser, "a response without an href") }
    if let responseStatus, !(200..<300).contains(responseStatus) {
      failedResponses += 1
      return
    }
    let path: WebDAVPath
    do throws(WebDAVError) {
      path = try resolver.path(href)
    } catch {
      failure = error
      parser.abortParsing()
      return
    }
    let role: Role
    if path == requested {
      role = .requested
    } else if depth == 1, path.parent == requested {
      role = .child
    } else {
      return stop(parser, "the listing of \(requested) holds \(path), which is not in it")
    }
    var result = WebDAVEntry(path: path)
    result.isCollection = entry.isCollection
    let values = entry.values
    result.size = values[Self.key(Self.dav, "getcontentlength")].flatMap { Int64($0) }
    result.lastModified = values[Self.key(Self.dav, "getlastmodified")].flatMap { HTTPDate.parse($0) }
    result.etag = values[Self.key(Self.dav, "getetag")].flatMap { $0.isEmpty ? nil : $0 }
    result.contentType = values[Self.key(Self.dav, "getcontenttype")].flatMap { $0.isEmpty ? nil : $0 }
    result.quotaAvailableBytes = values[Self.key(Self.dav, "quota-available-bytes")].flatMap { Int64($0) }
    result.quotaUsedBytes = values[Self.key(Self.dav, "quota-used-bytes")].flatMap { Int64($0) }
    result.fileID = values[Self.key(Self.ownCloud, "fileid")].flatMap { $0.isEmpty ? nil : $0 }
    result.permissions = values[Self.key(Self.ownCloud, "permissions")]
    result.ocSize = values[Self.key(Self.ownCloud, "size")].flatMap { Int64($0) }
    if !emit(result, role) {
      parser.abortParsing()
      failure = failure ?? .cancelledError
    }
  }

  private func stop(_ parser: XMLParser, _ why: String) {
    guard failure == nil else { return }
    failure = WebDAVError(.malformedResponse, "the server's listing cannot be used: \(why)")
    parser.abortParsing()
  }

  private func isIn(_ namespace: String, _ name: String, at index: Int? = nil) -> Bool {
    let i = index ?? stack.count - 2
    return i >= 0 && i < stack.count && stack[i] == (namespace, name)
  }

  private static func key(_ namespace: String, _ name: String) -> String { namespace + " " + name }

  /// The code of `HTTP/1.1 404 Not Found`.
  static func status(_ line: String) -> Int? {
    let parts = line.split(separator: " ")
    guard parts.count >= 2, let code = Int(parts[1]), (100...599).contains(code) else { return nil }
    return code
  }
}
