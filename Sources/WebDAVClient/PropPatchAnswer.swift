import XMLStream

/// Reads the statuses out of a PROPPATCH's `207 Multi-Status` (RFC 4918 §9.2.1): one per
/// `<propstat>`, each saying whether its properties were set. The answer is a few hundred bytes,
/// so it is parsed whole (a listing's streaming parser would be machinery for nothing); elements
/// are matched by namespace, never by prefix.
package final class PropPatchAnswer: XMLEventHandler {
  private var path: [String] = []
  private var text = ""
  private(set) var statuses: [Int] = []
  private var broken = false

  /// The statuses of every propstat, in order; empty when the answer is not a multistatus or
  /// cannot be read.
  package static func statuses(_ body: [UInt8]) -> [Int] {
    // Unreadable: not UTF-8 (UTF8Check), or a processing instruction (ProcessingInstructionCheck).
    guard xmlAnswerRefusal(body) == nil else { return [] }
    let answer = PropPatchAnswer()
    do throws(XMLParseError) { try XMLPushParser.parse(body, handler: answer) } catch { return [] }
    return answer.broken ? [] : answer.statuses
  }

  package func startElement(_ name: XMLName, parser: XMLPushParser) {
    path.append(name.namespace == MultistatusParser.dav ? name.local : "?")
    text = ""
    if path.count > MultistatusParser.maxDepth {
      broken = true
      parser.stop()
    }
  }

  package func characters(_ string: String, parser: XMLPushParser) {
    if text.utf8.count < 1024 { text += string }
  }

  package func endElement(_ name: XMLName, parser: XMLPushParser) {
    if path.suffix(2) == ["propstat", "status"] {
      if let status = MultistatusParser.status(text) { statuses.append(status) } else { statuses.append(0) }
    }
    if !path.isEmpty { path.removeLast() }
    text = ""
  }
}
