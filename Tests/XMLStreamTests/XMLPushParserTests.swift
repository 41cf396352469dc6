import Testing
import XMLStream

/// libxml2's push parser as S3Client and WebDAVClient use it: the events, the pieces, the
/// refusals, and nothing read from outside the document.
@Suite struct XMLPushParserTests {
  /// Records every event as a line.
  final class Recorder: XMLEventHandler {
    var events: [String] = []
    var stopAt: String?

    func startElement(_ name: XMLName, parser: XMLPushParser) {
      events.append("<\(name.prefix.map { $0 + ":" } ?? "")\(name.local) \(name.namespace ?? "-")>")
      if name.local == stopAt { parser.stop() }
    }

    func characters(_ text: String, parser: XMLPushParser) {
      // One run of text may come in pieces: joined, as every handler does.
      if let last = events.last, last.hasPrefix("text:") {
        events[events.count - 1] = last + text
      } else {
        events.append("text:" + text)
      }
    }

    func endElement(_ name: XMLName, parser: XMLPushParser) { events.append("</\(name.local)>") }
  }

  static let document = """
    <?xml version="1.0" encoding="UTF-8"?>
    <d:multistatus xmlns:d="DAV:" xmlns="urn:x"><d:href>a&amp;b&#x41;&lt;</d:href><n><![CDATA[<raw>]]></n></d:multistatus>
    """

  static let expected = [
    "<d:multistatus DAV:>", "<d:href DAV:>", "text:a&bA<", "</href>", "<n urn:x>", "text:<raw>", "</n>", "</multistatus>",
  ]

  @Test func elementsNamespacesTextEntitiesAndCDATA() throws {
    let recorder = Recorder()
    try XMLPushParser.parse(Array(Self.document.utf8), handler: recorder)
    #expect(recorder.events == Self.expected)
  }

  @Test func aDocumentFedAByteAtATimeGivesTheSameEvents() throws {
    let recorder = Recorder()
    let parser = try XMLPushParser(handler: recorder)
    for byte in Array(Self.document.utf8) { try parser.feed([byte]) }
    try parser.finish()
    #expect(recorder.events == Self.expected)
  }

  @Test func brokenXMLIsRefusedWithWhereAndWhy() {
    let recorder = Recorder()
    do {
      try XMLPushParser.parse(Array("<a>\n<b></a>".utf8), handler: recorder)
      Issue.record("a mismatched end tag was taken")
    } catch {
      #expect(error.code == .malformed)
      #expect(error.message.contains("line 2"), "\(error.message)")
    }
  }

  @Test func aDocumentThatStopsEarlyIsRefusedAtItsEnd() throws {
    let parser = try XMLPushParser(handler: Recorder())
    try parser.feed(Array("<a><b>text".utf8))
    #expect(throws: XMLParseError.self) { try parser.finish() }
  }

  @Test func aHandlerStopsTheParserAndNothingMoreArrives() throws {
    let recorder = Recorder()
    recorder.stopAt = "b"
    do {
      try XMLPushParser.parse(Array("<a><b/><c/><d/></a>".utf8), handler: recorder)
      Issue.record("the parser went on after stop")
    } catch {
      #expect(error.code == .stopped)
    }
    #expect(recorder.events == ["<a ->", "<b ->"])
  }

  /// An external entity would read a local file into the answer (XXE); an internal one that
  /// expands to itself a billion times would take the memory. Neither is expanded.
  @Test func entitiesDeclaredInTheDocumentAreNeverExpanded() {
    let external = """
      <?xml version="1.0"?><!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/hostname">]><a>&e;</a>
      """
    var laughs = "<?xml version=\"1.0\"?><!DOCTYPE a [<!ENTITY l0 \"ha\">"
    for i in 1...9 { laughs += "<!ENTITY l\(i) \"" + String(repeating: "&l\(i - 1);", count: 10) + "\">" }
    laughs += "]><a>&l9;</a>"
    for document in [external, laughs] {
      let recorder = Recorder()
      let result = Result { () throws(XMLParseError) in try XMLPushParser.parse(Array(document.utf8), handler: recorder) }
      let text = recorder.events.filter { $0.hasPrefix("text:") }.joined()
      #expect(text.utf8.count < 100, "an entity was expanded: \(text.prefix(80))")
      if case .success = result { #expect(text.isEmpty) }
    }
  }
}
