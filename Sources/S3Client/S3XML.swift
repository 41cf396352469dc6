import XMLStream

/// One element of an S3 answer: its name without a namespace prefix, its text, its children in
/// document order (ListObjectVersions interleaves `Version` and `DeleteMarker`, and the order
/// is the answer).
///
/// Why a small tree on libxml2 (``XMLPushParser``; docs/DECISIONS.md): S3 answers are bounded (a
/// listing page is at most 1000 entries, a few hundred KB), and XMLCoder and SWXMLHash are both
/// built on Foundation's XMLParser, whose libxml2 every launch would then load.
/// Keys come percent-encoded where S3 allows (`encoding-type=url`), so XML 1.0's limits on control
/// characters never meet a key.
package struct S3XMLElement: Sendable {
  package var name: String
  package var text = ""
  package var children: [S3XMLElement] = []

  /// The first child named `name`.
  package func child(_ name: String) -> S3XMLElement? { children.first { $0.name == name } }

  /// Every child named `name`, in order.
  package func children(_ name: String) -> [S3XMLElement] { children.filter { $0.name == name } }

  /// The text of the first child named `name`.
  package func string(_ name: String) -> String? { child(name)?.text }

  /// Parses a whole document; its root element.
  ///
  /// - Throws: ``S3Error`` `.malformed` when the bytes are not well-formed XML.
  package static func parse(_ bytes: [UInt8], what: String) throws -> S3XMLElement {
    // S3 answers are UTF-8: anything else is refused before parsing (Foundation's XMLParser,
    // used before, trapped on a name that was not: swift-corelibs-foundation 5534).
    guard String(validating: bytes, as: UTF8.self) != nil else {
      throw S3Error.malformed("\(what) is not UTF-8")
    }
    // S3 answers hold no processing instruction after the declaration (XMLParser, used before,
    // crashed on `<?x?>`: found by libFuzzer); one is refused. Only `<?xml ` at the very start
    // (after a BOM) is the declaration.
    let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    let isDeclaration = { (i: Int) in
      i == start && bytes.count > i + 5 && bytes[(i + 2)..<(i + 5)].elementsEqual([0x78, 0x6D, 0x6C])
        && [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i + 5])
    }
    for i in bytes.indices.dropFirst() where bytes[i] == 0x3F && bytes[i - 1] == 0x3C && !isDeclaration(i - 1) {
      throw S3Error.malformed("\(what) holds a processing instruction")
    }
    let builder = Builder()
    do throws(XMLParseError) {
      try XMLPushParser.parse(bytes, handler: builder)
    } catch {
      if error.code == .missingLibrary { throw S3Error.malformed("\(what) cannot be read: \(error.message)") }
      throw S3Error.malformed("\(what) is not XML (\(error.message))")
    }
    guard let root = builder.root else { throw S3Error.malformed("\(what) is not XML (no document)") }
    return root
  }

  private final class Builder: XMLEventHandler {
    var stack: [S3XMLElement] = []
    var root: S3XMLElement?

    func startElement(_ name: XMLName, parser: XMLPushParser) {
      stack.append(S3XMLElement(name: name.local))
    }

    func characters(_ text: String, parser: XMLPushParser) {
      guard !stack.isEmpty else { return }
      stack[stack.count - 1].text += text
    }

    func endElement(_ name: XMLName, parser: XMLPushParser) {
      guard let done = stack.popLast() else { return }
      if stack.isEmpty {
        root = done
      } else {
        stack[stack.count - 1].children.append(done)
      }
    }
  }
}
