import Crypto
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// AWS Signature Version 4 with the `Authorization` header, written on swift-crypto's HMAC-SHA256
/// and SHA-256 (docs/DECISIONS.md: no package on the machine's list signs requests).
///
/// The payload hash is always given by the caller: the real SHA-256 of the body (known before an
/// upload starts, from the staged file) or, only where a caller chooses it, `UNSIGNED-PAYLOAD`.
/// There is no chunked (`STREAMING-*`) signing: S3-compatible stores disagree on it, and the real
/// hash gives end-to-end integrity on every SigV4 server (docs/remote-providers.md §3.1).
///
/// Checked against AWS's published SigV4 test suite and the S3 examples of "Signature Calculations
/// for the Authorization Header" (SigV4SignerTests).
public struct SigV4Signer: Sendable {
  public var credentials: S3Credentials
  public var region: String
  /// `s3` for S3; the test suite uses `service`; moto's IAM `iam`.
  public var service: String

  public static let unsignedPayload = "UNSIGNED-PAYLOAD"
  public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

  public init(credentials: S3Credentials, region: String, service: String = "s3") {
    self.credentials = credentials
    self.region = region
    self.service = service
  }

  /// What signing produced: the headers to send, and the intermediate strings for tests.
  public struct Signed: Sendable {
    public var canonicalRequest: String
    public var stringToSign: String
    public var signature: String
    public var authorization: String
    /// The given headers with `x-amz-date`, `x-amz-security-token` (with a session token) and
    /// `Authorization` added: send exactly these.
    public var headers: [(name: String, value: String)]
  }

  /// Signs one request.
  ///
  /// - Parameters:
  ///   - method: `GET`, `PUT`, …
  ///   - encodedPath: The path exactly as it will be sent, already percent-encoded (``S3URIEncoding``).
  ///   - query: The query's names and values, not encoded: they are encoded here, sorted, and must
  ///     be sent as ``canonicalQuery(_:)`` writes them.
  ///   - headers: Every header to sign, `host` included. All of them are signed.
  ///   - payloadHash: The body's SHA-256 in lower-case hex, or ``unsignedPayload``.
  ///   - date: The signing time (this machine's clock, corrected for a known skew).
  public func sign(
    method: String, encodedPath: String, query: [(name: String, value: String)],
    headers: [(name: String, value: String)], payloadHash: String, date: Date
  ) -> Signed {
    let (amzDate, day) = Self.timestamps(date)
    var sent = headers.filter { $0.name.lowercased() != "x-amz-date" && $0.name.lowercased() != "authorization" }
    sent.append((name: "x-amz-date", value: amzDate))
    if let token = credentials.sessionToken, !sent.contains(where: { $0.name.lowercased() == "x-amz-security-token" }) {
      sent.append((name: "x-amz-security-token", value: token))
    }

    var combined: [String: [String]] = [:]
    for (name, value) in sent { combined[name.lowercased(), default: []].append(Self.trimmed(value)) }
    let names = combined.keys.sorted()
    let canonicalHeaders = names.map { "\($0):\(combined[$0]!.joined(separator: ","))\n" }.joined()
    let signedHeaders = names.joined(separator: ";")

    let canonicalRequest = [
      method, encodedPath, Self.canonicalQuery(query), canonicalHeaders, signedHeaders, payloadHash,
    ].joined(separator: "\n")
    let scope = "\(day)/\(region)/\(service)/aws4_request"
    let stringToSign = [
      "AWS4-HMAC-SHA256", amzDate, scope, Self.hex(SHA256.hash(data: Array(canonicalRequest.utf8))),
    ].joined(separator: "\n")

    var key = SymmetricKey(data: Array("AWS4\(credentials.secretAccessKey)".utf8))
    for part in [day, region, service, "aws4_request"] {
      key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
    }
    let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
    let authorization =
      "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
    sent.append((name: "Authorization", value: authorization))
    return Signed(
      canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature,
      authorization: authorization, headers: sent)
  }

  /// The query as signed and as sent: names and values encoded (`/` too), sorted by name then
  /// value, `name=value` joined by `&`; a name without a value is `name=`.
  public static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
    query.map { (S3URIEncoding.encode($0.name), S3URIEncoding.encode($0.value)) }
      .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
      .map { "\($0.0)=\($0.1)" }
      .joined(separator: "&")
  }

  /// The SHA-256 of some bytes, lower-case hex: a small body's payload hash.
  public static func sha256Hex(_ bytes: [UInt8]) -> String { hex(SHA256.hash(data: bytes)) }

  /// Lower-case hex of a digest or MAC.
  public static func hex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for byte in bytes { out += [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]] }
    return String(decoding: out, as: UTF8.self)
  }

  /// `x-amz-date` (`20150830T123600Z`) and the scope's day (`20150830`), in UTC.
  static func timestamps(_ date: Date) -> (String, String) {
    var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let day = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))"
    return ("\(day)T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z", day)
  }

  /// A header value as signed: no spaces around it, runs of spaces inside made one (quoted or not,
  /// as the test suite's get-header-value-trim case says).
  static func trimmed(_ value: String) -> String {
    var out = ""
    var pendingSpace = false
    for character in value {
      if character == " " || character == "\t" || character == "\n" || character == "\r\n" || character == "\r" {
        pendingSpace = !out.isEmpty
      } else {
        if pendingSpace { out.append(" ") }
        pendingSpace = false
        out.append(character)
      }
    }
    return out
  }
}
