import Foundation
import XMLStream

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
package final class MultistatusParser: XMLEventHandler {
  static let dav = "DAV:"
  static let ownCloud = "http://owncloud.org/ns"
  static let nextcloud = "http://nextcloud.org/ns"
  static let maxDepth = 64
  static let maxText = 64 * 1024

  /// Where an entry belongs.
  package enum Role { case requested, child }

  /// An element, classified once when it opens: the stack holds these, not names, so that each
  /// event costs a comparison of small values (100k entries are some 2M events).
  private enum Tag: Equatable {
    case multistatus, response, href, status, propstat, prop, collection, other
    /// One `nc:system-tag` inside `nc:system-tags`: its text is the tag's name.
    case systemTag
    case property(Property)
  }

  /// The properties taken from a 2xx propstat.
  private enum Property: Equatable {
    case resourceType, contentLength, lastModified, etag, contentType, quotaAvailable, quotaUsed, fileID, permissions
    case ocSize, favorite, trashFilename, trashOriginalLocation, trashDeletionTime, systemTags, tagName, unknown
  }

  /// A response's properties as read.
  private struct Values {
    var isCollection = false
    var contentLength: String?
    var lastModified: String?
    var etag: String?
    var contentType: String?
    var quotaAvailable: String?
    var quotaUsed: String?
    var fileID: String?
    var permissions: String?
    var ocSize: String?
    var favorite: String?
    var trashFilename: String?
    var trashOriginalLocation: String?
    var trashDeletionTime: String?
    /// Nextcloud's `nc:system-tags` (nil: not stated; empty: none).
    var systemTags: [String]?
    /// `oc:display-name` of a tag in `remote.php/dav/systemtags/`.
    var tagName: String?

    mutating func set(_ property: Property, _ value: String) {
      switch property {
      case .contentLength: contentLength = value
      case .lastModified: lastModified = value
      case .etag: etag = value
      case .contentType: contentType = value
      case .quotaAvailable: quotaAvailable = value
      case .quotaUsed: quotaUsed = value
      case .fileID: fileID = value
      case .permissions: permissions = value
      case .ocSize: ocSize = value
      case .favorite: favorite = value
      case .trashFilename: trashFilename = value
      case .trashOriginalLocation: trashOriginalLocation = value
      case .trashDeletionTime: trashDeletionTime = value
      case .systemTags: systemTags = systemTags ?? []
      case .tagName: tagName = value
      case .resourceType, .unknown: break
      }
    }

    /// `other`'s values over these (a later 2xx propstat of the same response).
    mutating func merge(_ other: Values) {
      isCollection = isCollection || other.isCollection
      contentLength = other.contentLength ?? contentLength
      lastModified = other.lastModified ?? lastModified
      etag = other.etag ?? etag
      contentType = other.contentType ?? contentType
      quotaAvailable = other.quotaAvailable ?? quotaAvailable
      quotaUsed = other.quotaUsed ?? quotaUsed
      fileID = other.fileID ?? fileID
      permissions = other.permissions ?? permissions
      ocSize = other.ocSize ?? ocSize
      favorite = other.favorite ?? favorite
      trashFilename = other.trashFilename ?? trashFilename
      trashOriginalLocation = other.trashOriginalLocation ?? trashOriginalLocation
      trashDeletionTime = other.trashDeletionTime ?? trashDeletionTime
      systemTags = other.systemTags ?? systemTags
      tagName = other.tagName ?? tagName
    }
  }

  private let resolver: HrefResolver
  private let requested: WebDAVPath
  private let depth: Int
  private let emit: (WebDAVEntry, Role) -> Bool

  /// The first problem found; parsing stops there.
  package private(set) var failure: WebDAVError?
  /// `<response>`s that said something failed (a non-2xx status, a failed propstat).
  package private(set) var failedResponses = 0
  /// Whether `</multistatus>` was read.
  package private(set) var sawEnd = false

  // Reading state.
  private var stack: [Tag] = []
  private var text = ""
  private var collecting = false
  private var href: String?
  private var responseStatus: Int?
  private var entry = Values()
  private var propstat = Values()
  private var propstatStatus: Int?

  /// - Parameters:
  ///   - requested: The path the PROPFIND named: its own entry is `.requested`, the others must be
  ///     its direct children (`depth` 1) or there must be none (`depth` 0).
  ///   - emit: Takes each entry; false stops parsing (the consumer went away).
  package init(resolver: HrefResolver, requested: WebDAVPath, depth: Int, emit: @escaping (WebDAVEntry, Role) -> Bool) {
    self.resolver = resolver
    self.requested = requested
    self.depth = depth
    self.emit = emit
    stack.reserveCapacity(Self.maxDepth)
  }

  // MARK: XMLEventHandler

  package func startElement(_ name: XMLName, parser: XMLPushParser) {
    guard failure == nil else { return }
    guard stack.count < Self.maxDepth else { return stop(parser, "elements nested deeper than \(Self.maxDepth)") }
    let parent = stack.last
    let tag = Self.classify(name.local, name.namespace ?? "", parent: parent, level: stack.count)
    stack.append(tag)
    text = ""
    switch tag {
    case .multistatus:
      break
    case _ where stack.count == 1:
      stop(parser, "the answer is not a DAV:multistatus")
    case .response:
      href = nil
      responseStatus = nil
      entry = Values()
    case .propstat:
      propstat = Values()
      propstatStatus = nil
    case .collection:
      propstat.isCollection = true
    default:
      break
    }
    // Text is kept only where a value is: an href, a status, a property's own text.
    switch tag {
    case .href, .status, .property, .systemTag: collecting = true
    default: collecting = false
    }
  }

  package func characters(_ string: String, parser: XMLPushParser) {
    guard collecting, failure == nil else { return }
    text += string
    if text.utf8.count > Self.maxText { stop(parser, "a value longer than \(Self.maxText) bytes") }
  }

  package func endElement(_ name: XMLName, parser: XMLPushParser) {
    guard failure == nil, let tag = stack.popLast() else { return }
    let parent = stack.last
    switch tag {
    case .href where parent == .response:
      if href != nil { stop(parser, "a response with two hrefs") }
      href = text
    case .status where parent == .response:
      responseStatus = Self.status(text)
    case .status where parent == .propstat:
      propstatStatus = Self.status(text)
    case .property(let property):
      propstat.set(property, Self.trimmed(text))
    case .systemTag:
      let name = Self.trimmed(text)
      if !name.isEmpty { propstat.systemTags = (propstat.systemTags ?? []) + [name] }
    case .propstat:
      endPropstat()
    case .response:
      endResponse(parser)
    case .multistatus:
      sawEnd = true
    default:
      break
    }
    text = ""
    collecting = false
  }

  /// Reads `stream` to its end (or until this parser stops), a piece at a time as it arrives.
  ///
  /// - Returns: Whether the whole document was read and well-formed; why not is ``failure``
  ///   (or the stream's own error, which the caller knows).
  package func read(_ stream: InputStream) -> Bool {
    let parser: XMLPushParser
    do throws(XMLParseError) { parser = try XMLPushParser(handler: self) } catch {
      parseFailed(error)
      return false
    }
    stream.open()
    defer { stream.close() }
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    do throws(XMLParseError) {
      while true {
        let count = buffer.withUnsafeMutableBufferPointer { stream.read($0.baseAddress!, maxLength: $0.count) }
        if count < 0 { return false }
        if count == 0 { break }
        try parser.feed(count == buffer.count ? buffer : Array(buffer[0..<count]))
      }
      try parser.finish()
      return failure == nil
    } catch {
      parseFailed(error)
      return false
    }
  }

  /// The parser refused the document (the reader calls this with what `feed` or `finish` threw).
  package func parseFailed(_ error: XMLParseError) {
    guard failure == nil else { return }
    switch error.code {
    case .stopped: break  // a handler stopped it, and said why
    case .missingLibrary: failure = WebDAVError(.malformedResponse, "the server's listing cannot be read: \(error.message)")
    case .malformed:
      failure = WebDAVError(.malformedResponse, "the server's listing is not well-formed XML: \(error.message)")
    }
  }

  /// What an element is, from its name, namespace and place.
  private static func classify(_ name: String, _ namespace: String, parent: Tag?, level: Int) -> Tag {
    switch parent {
    case nil: return namespace == dav && name == "multistatus" ? .multistatus : .other
    case .multistatus?: return namespace == dav && name == "response" ? .response : .other
    case .response?:
      guard namespace == dav else { return .other }
      switch name {
      case "href": return .href
      case "status": return .status
      case "propstat": return .propstat
      default: return .other
      }
    case .propstat?:
      guard namespace == dav else { return .other }
      switch name {
      case "prop": return .prop
      case "status": return .status
      default: return .other
      }
    case .prop?: return .property(property(name, namespace))
    case .property(.resourceType)?: return namespace == dav && name == "collection" ? .collection : .other
    case .property(.systemTags)?: return namespace == nextcloud && name == "system-tag" ? .systemTag : .other
    default: return .other
    }
  }

  private static func property(_ name: String, _ namespace: String) -> Property {
    if namespace == dav {
      switch name {
      case "resourcetype": return .resourceType
      case "getcontentlength": return .contentLength
      case "getlastmodified": return .lastModified
      case "getetag": return .etag
      case "getcontenttype": return .contentType
      case "quota-available-bytes": return .quotaAvailable
      case "quota-used-bytes": return .quotaUsed
      default: return .unknown
      }
    }
    if namespace == ownCloud {
      switch name {
      case "fileid": return .fileID
      case "permissions": return .permissions
      case "size": return .ocSize
      case "favorite": return .favorite
      case "display-name": return .tagName
      default: return .unknown
      }
    }
    if namespace == nextcloud {
      switch name {
      case "trashbin-filename": return .trashFilename
      case "trashbin-original-location": return .trashOriginalLocation
      case "trashbin-deletion-time": return .trashDeletionTime
      case "system-tags": return .systemTags
      default: return .unknown
      }
    }
    return .unknown
  }

  // MARK: Responses

  private func endPropstat() {
    guard let status = propstatStatus else {
      failedResponses += 1
      return
    }
    switch status {
    case 200..<300:
      entry.merge(propstat)
    case 404, 403, 401:
      break  // the item does not have it, or may not show it: not a failure of the listing
    default:
      failedResponses += 1
    }
  }

  private func endResponse(_ parser: XMLPushParser) {
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
      parser.stop()
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
    result.size = entry.contentLength.flatMap { Int64($0) }
    result.lastModified = entry.lastModified.flatMap { HTTPDate.parse($0) }
    result.etag = entry.etag.flatMap { $0.isEmpty ? nil : $0 }
    result.contentType = entry.contentType.flatMap { $0.isEmpty ? nil : $0 }
    result.quotaAvailableBytes = entry.quotaAvailable.flatMap { Int64($0) }
    result.quotaUsedBytes = entry.quotaUsed.flatMap { Int64($0) }
    result.fileID = entry.fileID.flatMap { $0.isEmpty ? nil : $0 }
    result.permissions = entry.permissions
    result.ocSize = entry.ocSize.flatMap { Int64($0) }
    result.isFavorite = entry.favorite.map { $0.trimmingCharacters(in: .whitespaces) == "1" }
    result.trashFilename = entry.trashFilename.flatMap { $0.isEmpty ? nil : $0 }
    result.trashOriginalLocation = entry.trashOriginalLocation.flatMap { $0.isEmpty ? nil : $0 }
    result.trashDeletionTime = entry.trashDeletionTime.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
      .map { Date(timeIntervalSince1970: $0) }
    result.systemTags = entry.systemTags
    result.tagName = entry.tagName
    if !emit(result, role) {
      parser.stop()
      failure = failure ?? .cancelledError
    }
  }

  private func stop(_ parser: XMLPushParser, _ why: String) {
    guard failure == nil else { return }
    failure = WebDAVError(.malformedResponse, "the server's listing cannot be used: \(why)")
    parser.stop()
  }

  /// The code of `HTTP/1.1 404 Not Found`: the three digits after the first space.
  static func status(_ line: String) -> Int? {
    var line = line
    return line.withUTF8 { bytes -> Int? in
      var i = 0
      while i < bytes.count && (bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D) { i += 1 }
      while i < bytes.count && bytes[i] != 0x20 { i += 1 }
      while i < bytes.count && bytes[i] == 0x20 { i += 1 }
      guard i + 3 <= bytes.count, i + 3 == bytes.count || bytes[i + 3] == 0x20 || bytes[i + 3] == 0x0A || bytes[i + 3] == 0x0D
      else { return nil }
      var code = 0
      for byte in bytes[i..<i + 3] {
        guard (0x30...0x39).contains(byte) else { return nil }
        code = code * 10 + Int(byte - 0x30)
      }
      return (100...599).contains(code) ? code : nil
    }
  }

  /// `text` without the ASCII white space around it (Foundation's trimming costs more per call,
  /// and a listing trims a few values per entry).
  static func trimmed(_ text: String) -> String {
    let utf8 = text.utf8
    guard let first = utf8.first, let last = utf8.last,
      first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D || last == 0x20 || last == 0x09 || last == 0x0A
        || last == 0x0D
    else { return text }
    let isSpace = { (b: UInt8) in b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
    guard let start = utf8.firstIndex(where: { !isSpace($0) }), let end = utf8.lastIndex(where: { !isSpace($0) }) else {
      return ""
    }
    return String(text[start...end])
  }
}
