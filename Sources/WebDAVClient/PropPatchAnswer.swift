import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Reads the statuses out of a PROPPATCH's `207 Multi-Status` (RFC 4918 §9.2.1): one per
/// `<propstat>`, each saying whether its properties were set. The answer is a few hundred bytes,
/// so it is parsed whole (a listing's streaming parser would be machinery for nothing); elements
/// are matched by namespace, never by prefix.
package final class PropPatchAnswer: NSObject, XMLParserDelegate {
  private var path: [String] = []
  private var text = ""
  private(set) var statuses: [Int] = []
  private var broken = false

  /// The statuses of every propstat, in order; empty when the answer is not a multistatus or
  /// cannot be read.
  package static func statuses(_ body: [UInt8]) -> [Int] {
    // Unreadable, and must not reach XMLParser: not UTF-8 (it traps on such a name: UTF8Check), or
    // a processing instruction (it crashes on one without data: ProcessingInstructionCheck).
    guard xmlAnswerRefusal(body) == nil else { return [] }
    let answer = PropPatchAnswer()
    let parser = XMLParser(data: Data(body))
    parser.shouldProcessNamespaces = true
    parser.shouldResolveExternalEntities = false
    parser.delegate = answer
    guard parser.parse(), !answer.broken else { return [] }
    return answer.statuses
  }

  package func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    path.append(namespaceURI == MultistatusParser.dav ? name : "?")
    text = ""
    if path.count > MultistatusParser.maxDepth {
      broken = true
      parser.abortParsing()
    }
  }

  package func parser(_ parser: XMLParser, foundCharacters string: String) {
    if text.utf8.count < 1024 { text += string }
  }

  package func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
    if path.suffix(2) == ["propstat", "status"] {
      if let status = MultistatusParser.status(text) { statuses.append(status) } else { statuses.append(0) }
    }
    if !path.isEmpty { path.removeLast() }
    text = ""
  }

  package func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) { broken = true }
}
