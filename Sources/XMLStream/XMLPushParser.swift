import CLazyXML

/// An element's name as the document wrote it: the local part, its prefix and the namespace the
/// prefix (or the default namespace) stands for.
package struct XMLName: Sendable, Equatable {
  package var local: String
  package var prefix: String?
  package var namespace: String?

  package init(local: String, prefix: String? = nil, namespace: String? = nil) {
    self.local = local
    self.prefix = prefix
    self.namespace = namespace
  }
}

/// What a document holds, as the parser meets it.
package protocol XMLEventHandler: AnyObject {
  func startElement(_ name: XMLName, parser: XMLPushParser)
  /// Character data and CDATA, possibly in several pieces for one run of text.
  func characters(_ text: String, parser: XMLPushParser)
  func endElement(_ name: XMLName, parser: XMLPushParser)
}

/// Why a document could not be read.
package struct XMLParseError: Error, Sendable, Equatable {
  package enum Code: Sendable, Equatable {
    /// libxml2 is not installed: `message` names the package.
    case missingLibrary
    /// The bytes are not well-formed XML.
    case malformed
    /// The handler stopped the parser.
    case stopped
  }

  package var code: Code
  package var message: String
}

/// libxml2's push parser (opened on first use: CLazyXML says why), fed a document a piece at a
/// time: S3's answers whole, WebDAV's PROPFIND bodies chunk by chunk as they arrive.
///
/// One parser reads one document on one thread; the handler is called during ``feed(_:)`` and
/// ``finish()``, and may call ``stop()`` from there.
package final class XMLPushParser {
  private var parser: OpaquePointer?
  private let handler: any XMLEventHandler

  /// - Throws: `.missingLibrary` when libxml2 cannot be opened.
  package init(handler: any XMLEventHandler) throws(XMLParseError) {
    self.handler = handler
    var code: Int32 = 0
    var message = [CChar](repeating: 0, count: 256)
    // Every stored property is set (`parser` starts nil), so this object can be the context.
    let callbacks = lx_callbacks(
      context: Unmanaged.passUnretained(self).toOpaque(),
      start: { context, local, prefix, uri in
        guard let context, let local else { return }
        let me = Unmanaged<XMLPushParser>.fromOpaque(context).takeUnretainedValue()
        me.handler.startElement(XMLPushParser.name(local, prefix, uri), parser: me)
      },
      end: { context, local, prefix, uri in
        guard let context, let local else { return }
        let me = Unmanaged<XMLPushParser>.fromOpaque(context).takeUnretainedValue()
        me.handler.endElement(XMLPushParser.name(local, prefix, uri), parser: me)
      },
      text: { context, text, length in
        guard let context, let text, length > 0 else { return }
        let me = Unmanaged<XMLPushParser>.fromOpaque(context).takeUnretainedValue()
        let bytes = UnsafeRawBufferPointer(start: text, count: Int(length))
        me.handler.characters(String(decoding: bytes, as: UTF8.self), parser: me)
      })
    guard let made = lx_create(callbacks, &code, &message, message.count) else {
      throw XMLParseError(code: .missingLibrary, message: String(cString: message))
    }
    parser = made
  }

  deinit { lx_free(parser) }

  /// Parses the next bytes of the document.
  package func feed(_ bytes: UnsafeRawBufferPointer) throws(XMLParseError) {
    var offset = 0
    // libxml2 takes an Int32 length: a larger buffer goes in pieces.
    repeat {
      let count = min(bytes.count - offset, 1 << 24)
      let base = bytes.baseAddress.map { $0 + offset }
      try check(lx_feed(parser, base?.assumingMemoryBound(to: CChar.self), Int32(count), 0))
      offset += count
    } while offset < bytes.count
  }

  /// Parses the next bytes of the document.
  package func feed(_ bytes: [UInt8]) throws(XMLParseError) {
    let result = bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Result<Void, XMLParseError> in
      do throws(XMLParseError) {
        try feed(buffer)
        return .success(())
      } catch { return .failure(error) }
    }
    try result.get()
  }

  /// The document has ended: checks that it was whole (its root element closed).
  package func finish() throws(XMLParseError) {
    try check(lx_feed(parser, nil, 0, 1))
  }

  /// Stops parsing from inside a handler: the `feed` or `finish` that called it throws `.stopped`.
  package func stop() { lx_stop(parser) }

  /// Parses a whole document.
  package static func parse(_ bytes: [UInt8], handler: any XMLEventHandler) throws(XMLParseError) {
    let parser = try XMLPushParser(handler: handler)
    try parser.feed(bytes)
    try parser.finish()
  }

  private func check(_ result: Int32) throws(XMLParseError) {
    switch Int(result) {
    case Int(LX_OK): return
    case Int(LX_STOPPED): throw XMLParseError(code: .stopped, message: "stopped")
    default: throw XMLParseError(code: .malformed, message: String(cString: lx_error(parser)))
    }
  }

  private static func name(
    _ local: UnsafePointer<CChar>, _ prefix: UnsafePointer<CChar>?, _ uri: UnsafePointer<CChar>?
  ) -> XMLName {
    XMLName(local: String(cString: local), prefix: prefix.map { String(cString: $0) }, namespace: uri.map { String(cString: $0) })
  }
}
