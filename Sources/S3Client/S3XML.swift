import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// One element of an S3 answer: its name without a namespace prefix, its text, its children in
/// document order (ListObjectVersions interleaves `Version` and `DeleteMarker`, and the order
/// is the answer).
///
/// Why a small tree on Foundation's `XMLParser` (docs/DECISIONS.md): S3 answers are bounded (a
/// listing page is at most 1000 entries, a few hundred KB), the parser is already in the toolchain
/// (libxml2 underneath), and XMLCoder and SWXMLHash are both built on it while adding a dependency.
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
    // Foundation's XMLParser traps on an element or attribute name that is not UTF-8
    // (swift-corelibs-foundation issue 5534, found by folio-fuzz): such an answer is refused
    // before it sees it. S3 answers are UTF-8; libxml2 refuses invalid UTF-8 in text anyway.
    guard String(validating: bytes, as: UTF8.self) != nil else {
      throw S3Error.malformed("\(what) is not UTF-8")
    }
    // XMLParser calls strlen on a processing instruction's data, NULL when it has none: `<?x?>`
    // was a segmentation fault (found by libFuzzer). S3 answers have none after the declaration.
    // Only `<?xml ` at the very start (after a BOM) is the declaration.
    let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    let isDeclaration = { (i: Int) in
      i == start && bytes.count > i + 5 && bytes[(i + 2)..<(i + 5)].elementsEqual([0x78, 0x6D, 0x6C])
        && [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i + 5])
    }
    for i in bytes.indices.dropFirst() where bytes[i] == 0x3F && bytes[i - 1] == 0x3C && !isDeclaration(i - 1) {
      throw S3Error.malformed("\(what) holds a processing instruction")
    }
    let builder = Builder()
    let parser = XMLParser(data: Data(bytes))
    parser.shouldProcessNamespaces = false
    parser.shouldResolveExternalEntities = false
    parser.delegate = builder
    guard parser.parse(), let root = builder.root else {
      let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "no document"
      throw S3Error.malformed("\(what) is not XML (\(reason))")
    }
    return root
  }

  private final class Builder: NSObject, XMLParserDelegate {
    var stack: [S3XMLElement] = []
    var root: S3XMLElement?

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      let local = elementName.split(separator: ":").last.map(String.init) ?? elementName
      stack.append(S3XMLElement(name: local))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      guard !stack.isEmpty else { return }
      stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
      guard !stack.isEmpty else { return }
      stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
      guard let done = stack.popLast() else { return }
      if stack.isEmpty {
        root = done
      } else {
        stack[stack.count - 1].children.append(done)
      }
    }
  }
}
