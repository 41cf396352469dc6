import Foundation
import ProviderAPI

/// Where a WebDAV account is and how to sign in to it: a base URL whose path is the collection the
/// account's paths are relative to, a user and password for Basic authentication, and optionally
/// the certificates to trust for https (a server with its own CA, as `--ca-file` for Folio servers).
///
/// Basic authentication sends the password with every request, so plain http is refused unless the
/// server is this machine (a loopback address, `localhost`, this host's name or one of its own
/// addresses): nothing then crosses a network.
public struct WebDAVConfiguration: Sendable {
  /// The collection's URL, its path ending in `/`.
  public let baseURL: URL
  public let user: String
  public let password: String
  /// A PEM file of the certificates to trust instead of the system's, for https.
  public let caFile: String?
  /// `scheme://host[:port]` as written in the URL, for request URLs and `Destination`.
  let origin: String
  /// The base path as written (percent-encoded), ending in `/`.
  let encodedBasePath: String
  /// The base path decoded to bytes, ending in `/`: what hrefs are compared with.
  let basePathBytes: [UInt8]
  /// "host:port", escaped, for messages.
  public let serverName: String

  /// How long a request may wait for the head of its answer: a listing, a PROPFIND, a probe, a
  /// download's GET. A server that accepts and never answers reads as unreachable after this
  /// rather than after the read timeout's 60 s. Uploads (their head comes after the body) and
  /// server work have their own; connecting and stalls mid-transfer have the shared client's
  /// limits (``DAVTransport``: bytes must keep flowing).
  public var firstByteTimeout: Duration = .seconds(30)
  /// For requests the server works on before it answers: MOVE, COPY and DELETE of a collection
  /// (one request for a whole tree).
  public var serverWorkTimeout: Duration = .seconds(60)

  /// - Parameters:
  ///   - url: `http(s)://host[:port]/path/`; a missing final `/` is added.
  ///   - caFile: A PEM file of certificates to trust for this server (https only).
  /// - Throws: `badConfiguration` for a URL that is not http(s) with a host, carries a query,
  ///   fragment or credentials, a user name with `:` or control characters, an unreadable CA file;
  ///   `insecureTransport` for plain http to another machine.
  public init(url: URL, user: String, password: String, caFile: String? = nil) throws(WebDAVError) {
    guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
      let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
      let host = components.host, !host.isEmpty
    else {
      throw WebDAVError(.badConfiguration, "not an http(s) URL with a host: \(TerminalText.escape(url.absoluteString))")
    }
    guard components.query == nil, components.fragment == nil, components.user == nil, components.password == nil else {
      throw WebDAVError(
        .badConfiguration, "the WebDAV URL must not carry a query, a fragment or credentials: \(TerminalText.escape(url.absoluteString))")
    }
    if scheme == "http" && !LocalHost.isThisMachine(host) {
      throw WebDAVError(
        .insecureTransport,
        "refusing plain http to \(TerminalText.escape(host)): the password would cross the network unencrypted; use https")
    }
    // RFC 7617 §2: the user-id cannot contain a colon; control characters would break the header.
    if user.contains(":") || user.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
      || password.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
    {
      throw WebDAVError(.badConfiguration, "Basic authentication cannot carry this user name or password (no ':' or control characters in the name)")
    }
    if let caFile {
      guard scheme == "https" else {
        throw WebDAVError(.badConfiguration, "a CA file only applies to https URLs")
      }
      guard FileManager.default.isReadableFile(atPath: caFile) else {
        throw WebDAVError(.badConfiguration, "the certificates to trust cannot be read: \(TerminalText.escape(caFile))")
      }
    }
    var path = components.percentEncodedPath
    if !path.hasSuffix("/") { path += "/" }
    if !path.hasPrefix("/") { path = "/" + path }
    guard let decoded = PercentDecoding.bytes(path) else {
      throw WebDAVError(.badConfiguration, "the URL's path has a broken %-escape: \(TerminalText.escape(path))")
    }
    let hostPart = components.percentEncodedHost ?? host
    let bracketed = hostPart.contains(":") && !hostPart.hasPrefix("[") ? "[\(hostPart)]" : hostPart
    let portPart = components.port.map { ":\($0)" } ?? ""
    origin = "\(scheme)://\(bracketed)\(portPart)"
    encodedBasePath = path
    basePathBytes = decoded
    baseURL = URL(string: origin + path) ?? url
    serverName = TerminalText.escape(bracketed + portPart)
    self.user = user
    self.password = password
    self.caFile = caFile
  }

  /// The absolute URL of `path`; a collection's ends in `/` (nginx refuses MKCOL, and MOVE or
  /// DELETE of a collection, without it).
  func url(_ path: WebDAVPath, collection: Bool = false) -> String {
    var url = origin + encodedBasePath + path.percentEncoded
    if collection && !path.isRoot { url += "/" }
    return url
  }

  /// `Authorization: Basic …` (RFC 7617, UTF-8).
  var authorization: String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }
}

/// `%XX` escapes to bytes.
enum PercentDecoding {
  /// The bytes `text` spells, or nil for a `%` not followed by two hex digits.
  static func bytes(_ text: some StringProtocol) -> [UInt8]? { bytes(Array(text.utf8)[...]) }

  /// The bytes `utf8` spells, or nil for a `%` not followed by two hex digits.
  static func bytes(_ utf8: ArraySlice<UInt8>) -> [UInt8]? {
    let utf8 = Array(utf8)
    var out: [UInt8] = []
    out.reserveCapacity(utf8.count)
    var i = 0
    while i < utf8.count {
      let byte = utf8[i]
      if byte == UInt8(ascii: "%") {
        guard i + 2 < utf8.count, let high = hexValue(utf8[i + 1]), let low = hexValue(utf8[i + 2]) else { return nil }
        out.append(high << 4 | low)
        i += 3
      } else {
        out.append(byte)
        i += 1
      }
    }
    return out
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
