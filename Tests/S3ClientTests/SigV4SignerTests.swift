import Foundation
import Testing

@testable import S3Client

/// The signer against AWS's published vectors: the Signature Version 4 test suite (credentials
/// AKIDEXAMPLE, service `service`, 2015-08-30; as kept in botocore's tests and the AWS SDKs) and
/// the four S3 examples of "Signature Calculations for the Authorization Header" (examplebucket,
/// 2013-05-24).
///
/// The suite's normalize-path cases (`/example/..`, `//`, `/./`) are left out on purpose: they are
/// right for other services and wrong for S3, which never normalises a key (`a/../b` is a key).
struct SigV4SignerTests {
  struct SuiteCase: Sendable, CustomTestStringConvertible {
    var name: String
    /// The suite's `.req`: request line, headers (an indented line continues the one above), body.
    var request: String
    var canonicalRequest: String
    var signature: String
    var sessionToken: String? = nil
    var testDescription: String { name }
  }

  static let empty = SigV4Signer.emptyPayloadHash
  static let host = "host:example.amazonaws.com\nx-amz-date:20150830T123600Z\n"

  static let suite: [SuiteCase] = [
    SuiteCase(
      name: "get-vanilla", request: "GET / HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
      canonicalRequest: "GET\n/\n\n\(host)\nhost;x-amz-date\n\(empty)",
      signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
    SuiteCase(
      name: "get-vanilla-empty-query-key",
      request: "GET /?Param1=value1 HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
      canonicalRequest: "GET\n/\nParam1=value1\n\(host)\nhost;x-amz-date\n\(empty)",
      signature: "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"),
    SuiteCase(
      name: "get-vanilla-query-order-key-case",
      request: "GET /?Param2=value2&Param1=value1 HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
      canonicalRequest: "GET\n/\nParam1=value1&Param2=value2\n\(host)\nhost;x-amz-date\n\(empty)",
      signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
    SuiteCase(
      name: "get-vanilla-query-order-key",
      request: "GET /?Param1=value2&Param1=Value1 HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
      canonicalRequest: "GET\n/\nParam1=Value1&Param1=value2\n\(host)\nhost;x-amz-date\n\(empty)",
      signature: "eedbc4e291e521cf13422ffca22be7d2eb8146eecf653089df300a15b2382bd1"),
    SuiteCase(
      name: "get-vanilla-query-order-value",
      request: "GET /?Param1=value2&Param1=value1 HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
      canonicalRequest: "GET\n/\nParam1=value1&Param1=value2\n\(host)\nhost;x-amz-date\n\(empty)",
      signature: "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694"),
    SuiteCase(
      name: "get-vanilla-query-order-encoded",
      request:
        "GET /?Param-3=Value3&Param=Value2&%E1%88%B4=Value1 HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
      canonicalRequest: "GET\n/\n%E1%88%B4=Value1&Param=Value2&Param-3=Value3\n\(host)\nhost;x-amz-date\n\(empty)",
      signature: "371d3713e185cc334048618a97f809c9ffe339c62934c032af5a0e595648fcac"),
    SuiteCase(
      name: "get-vanilla-query-unreserved",
      request:
        "GET /?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
      canonicalRequest:
        "GET\n/\n-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\n\(host)\nhost;x-amz-date\n\(empty)",
      signature: "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"),
    SuiteCase(
      name: "get-vanilla-utf8-query",
      request: "GET /?ሴ=bar HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
      canonicalRequest: "GET\n/\n%E1%88%B4=bar\n\(host)\nhost;x-amz-date\n\(empty)",
      signature: "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
    SuiteCase(
      name: "get-vanilla-with-session-token",
      request: "GET / HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
      canonicalRequest:
        "GET\n/\n\n\(host)x-amz-security-token:6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267\n\nhost;x-amz-date;x-amz-security-token\n\(empty)",
      signature: "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8",
      sessionToken: "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"),
    SuiteCase(
      name: "get-unreserved",
      request:
        "GET /-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
      canonicalRequest:
        "GET\n/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\n\n\(host)\nhost;x-amz-date\n\(empty)",
      signature: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
    SuiteCase(
      name: "get-utf8", request: "GET /ሴ HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
      canonicalRequest: "GET\n/%E1%88%B4\n\n\(host)\nhost;x-amz-date\n\(empty)",
      signature: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
    SuiteCase(
      name: "get-space",
      request: "GET /example space/ HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
      canonicalRequest: "GET\n/example%20space/\n\n\(host)\nhost;x-amz-date\n\(empty)",
      signature: "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"),
    SuiteCase(
      name: "get-special-character",
      request: "GET /example/$delete HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
      canonicalRequest: "GET\n/example/%24delete\n\n\(host)\nhost;x-amz-date\n\(empty)",
      signature: "a853c9b21b528b19643d00910d35b83a10c366a10833ceefb45edd6c80e40f27"),
    SuiteCase(
      name: "get-header-key-duplicate",
      request:
        "GET / HTTP/1.1\nHost:example.amazonaws.com\nMy-Header1:value2\nMy-Header1:value2\nMy-Header1:value1\nX-Amz-Date:20150830T123600Z",
      canonicalRequest:
        "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value2,value2,value1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\n\(empty)",
      signature: "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"),
    SuiteCase(
      name: "get-header-value-multiline",
      request:
        "GET / HTTP/1.1\nHost:example.amazonaws.com\nMy-Header1:value1\n  value2\n     value3\nX-Amz-Date:20150830T123600Z",
      canonicalRequest:
        "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1 value2 value3\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\n\(empty)",
      signature: "cfd34249e4b1c8d6b91ef74165d41a32e5fab3306300901bb65a51a73575eefd"),
    SuiteCase(
      name: "get-header-value-order",
      request:
        "GET / HTTP/1.1\nHost:example.amazonaws.com\nMy-Header1:value4\nMy-Header1:value1\nMy-Header1:value3\nMy-Header1:value2\nX-Amz-Date:20150830T123600Z",
      canonicalRequest:
        "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value4,value1,value3,value2\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\n\(empty)",
      signature: "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"),
    SuiteCase(
      name: "get-header-value-trim",
      request:
        "GET / HTTP/1.1\nHost:example.amazonaws.com\nMy-Header1: value1\nMy-Header2: \"a   b   c\"\nX-Amz-Date:20150830T123600Z",
      canonicalRequest:
        "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nmy-header2:\"a b c\"\nx-amz-date:20150830T123600Z\n\nhost;my-header1;my-header2;x-amz-date\n\(empty)",
      signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
    SuiteCase(
      name: "post-vanilla", request: "POST / HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
      canonicalRequest: "POST\n/\n\n\(host)\nhost;x-amz-date\n\(empty)",
      signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
    SuiteCase(
      name: "post-vanilla-query",
      request: "POST /?Param1=value1 HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
      canonicalRequest: "POST\n/\nParam1=value1\n\(host)\nhost;x-amz-date\n\(empty)",
      signature: "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"),
    SuiteCase(
      name: "post-header-key-sort",
      request: "POST / HTTP/1.1\nHost:example.amazonaws.com\nMy-Header1:value1\nX-Amz-Date:20150830T123600Z",
      canonicalRequest:
        "POST\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\n\(empty)",
      signature: "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"),
    SuiteCase(
      name: "post-header-value-case",
      request: "POST / HTTP/1.1\nHost:example.amazonaws.com\nMy-Header1:VALUE1\nX-Amz-Date:20150830T123600Z",
      canonicalRequest:
        "POST\n/\n\nhost:example.amazonaws.com\nmy-header1:VALUE1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\n\(empty)",
      signature: "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"),
    SuiteCase(
      name: "post-x-www-form-urlencoded",
      request:
        "POST / HTTP/1.1\nContent-Type:application/x-www-form-urlencoded\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z\n\nParam1=value1",
      canonicalRequest:
        "POST\n/\n\ncontent-type:application/x-www-form-urlencoded\n\(host)\ncontent-type;host;x-amz-date\n9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
      signature: "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"),
    SuiteCase(
      name: "post-x-www-form-urlencoded-parameters",
      request:
        "POST / HTTP/1.1\nContent-Type:application/x-www-form-urlencoded; charset=utf8\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z\n\nParam1=value1",
      canonicalRequest:
        "POST\n/\n\ncontent-type:application/x-www-form-urlencoded; charset=utf8\n\(host)\ncontent-type;host;x-amz-date\n9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
      signature: "1a72ec8f64bd914b0e42e42607c7fbce7fb2c7465f63e3092b3b0d39fa77a6fe"),
  ]

  @Test(arguments: suite)
  func theSignatureMatchesAWSsTestSuite(_ vector: SuiteCase) {
    let (method, path, query, headers, body) = Self.parse(vector.request)
    let signer = SigV4Signer(
      credentials: S3Credentials(
        accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        sessionToken: vector.sessionToken),
      region: "us-east-1", service: "service")
    let signed = signer.sign(
      method: method, encodedPath: S3URIEncoding.encode(path.utf8, keepSlash: true), query: query, headers: headers,
      payloadHash: SigV4Signer.sha256Hex(Array(body.utf8)), date: Date(timeIntervalSince1970: 1_440_938_160))
    #expect(signed.canonicalRequest == vector.canonicalRequest)
    #expect(
      signed.authorization
        == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders="
        + vector.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false).dropLast().last!
        + ", Signature=\(vector.signature)")
  }

  /// The S3 examples (sig-v4-header-based-auth): a ranged GET, a PUT of "Welcome to Amazon S3."
  /// under a key with `$`, `?lifecycle`, and a listing with `max-keys` and `prefix`.
  @Test func theSignatureMatchesTheS3DocumentationsExamples() {
    let signer = SigV4Signer(
      credentials: S3Credentials(
        accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
      region: "us-east-1")
    let date = Date(timeIntervalSince1970: 1_369_353_600)
    let host = ("host", "examplebucket.s3.amazonaws.com")
    let empty = SigV4Signer.emptyPayloadHash

    let get = signer.sign(
      method: "GET", encodedPath: "/test.txt", query: [],
      headers: [host, ("range", "bytes=0-9"), ("x-amz-content-sha256", empty)], payloadHash: empty, date: date)
    #expect(Self.sha(get.canonicalRequest) == "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972")
    #expect(get.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    #expect(get.authorization.contains("SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"))

    let body = SigV4Signer.sha256Hex(Array("Welcome to Amazon S3.".utf8))
    #expect(body == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
    let put = signer.sign(
      method: "PUT", encodedPath: S3URIEncoding.encode(Array("/test$file.text".utf8), keepSlash: true), query: [],
      headers: [
        ("Date", "Fri, 24 May 2013 00:00:00 GMT"), host, ("x-amz-content-sha256", body),
        ("x-amz-storage-class", "REDUCED_REDUNDANCY"),
      ], payloadHash: body, date: date)
    #expect(put.canonicalRequest.split(separator: "\n")[1] == "/test%24file.text")
    #expect(Self.sha(put.canonicalRequest) == "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d")
    #expect(put.signature == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")

    let lifecycle = signer.sign(
      method: "GET", encodedPath: "/", query: [("lifecycle", "")], headers: [host, ("x-amz-content-sha256", empty)],
      payloadHash: empty, date: date)
    #expect(Self.sha(lifecycle.canonicalRequest) == "9766c798316ff2757b517bc739a67f6213b4ab36dd5da2f94eaebf79c77395ca")
    #expect(lifecycle.signature == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")

    let list = signer.sign(
      method: "GET", encodedPath: "/", query: [("prefix", "J"), ("max-keys", "2")],
      headers: [host, ("x-amz-content-sha256", empty)], payloadHash: empty, date: date)
    #expect(list.signature == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
  }

  /// What S3 expects in the canonical URI for keys with hostile bytes: each byte outside the
  /// unreserved set once as %XX (upper-case), `/` kept, nothing normalised.
  @Test func hostileKeysAreEncodedOnceAndNeverNormalised() {
    let cases: [([UInt8], String)] = [
      (Array("a b".utf8), "a%20b"),
      (Array("a+b".utf8), "a%2Bb"),
      (Array("100%".utf8), "100%25"),
      (Array("q?x#y".utf8), "q%3Fx%23y"),
      (Array("é".utf8), "%C3%A9"),
      (Array("e\u{301}".utf8), "e%CC%81"),
      ([0x01, 0x0A, 0x1F, 0x7F], "%01%0A%1F%7F"),
      (Array("a//b/../c/./d".utf8), "a//b/../c/./d"),
      (Array("/lead".utf8), "/lead"),
      (Array("~tilde-._".utf8), "~tilde-._"),
      (Array("$&'()*,;=:@[]".utf8), "%24%26%27%28%29%2A%2C%3B%3D%3A%40%5B%5D"),
    ]
    for (key, expected) in cases {
      #expect(S3URIEncoding.encode(key, keepSlash: true) == expected)
    }
    // In a query, `/` is encoded too, and so is `=` or `&` inside a value.
    #expect(
      SigV4Signer.canonicalQuery([("prefix", "a/b c&d=e+f"), ("delimiter", "/")])
        == "delimiter=%2F&prefix=a%2Fb%20c%26d%3De%2Bf")
  }

  @Test func aSessionTokenIsSentAndSignedAndTheSecretNeverShows() {
    let credentials = S3Credentials(accessKeyID: "AKID", secretAccessKey: "SECRET-VALUE", sessionToken: "TOKEN")
    let signed = SigV4Signer(credentials: credentials, region: "eu-west-1").sign(
      method: "GET", encodedPath: "/", query: [], headers: [("host", "h")], payloadHash: SigV4Signer.emptyPayloadHash,
      date: Date(timeIntervalSince1970: 0))
    #expect(signed.headers.contains { $0.name == "x-amz-security-token" && $0.value == "TOKEN" })
    #expect(signed.headers.contains { $0.name == "x-amz-date" && $0.value == "19700101T000000Z" })
    #expect(signed.authorization.contains("SignedHeaders=host;x-amz-date;x-amz-security-token,"))
    #expect(!"\(credentials)".contains("SECRET"))
    #expect(!"\(credentials)".contains("TOKEN"))
  }

  @Test func listingKeysDecodeAsAWSWritesThem() {
    #expect(S3URIEncoding.decodeURLEncoded("a+b%2Bc%20d") == Array("a b+c d".utf8))
    #expect(S3URIEncoding.decodeURLEncoded("%C3%A9%01") == [0xC3, 0xA9, 0x01])
    #expect(S3URIEncoding.decodeURLEncoded("bad%2") == nil)
    #expect(S3URIEncoding.decodeURLEncoded("bad%zz") == nil)
  }

  // MARK: Helpers

  static func sha(_ text: String) -> String { SigV4Signer.sha256Hex(Array(text.utf8)) }

  /// The suite's `.req`: the path as written (not encoded), the query decoded into pairs.
  static func parse(_ request: String) -> (
    String, String, [(name: String, value: String)], [(name: String, value: String)], String
  ) {
    let parts = request.components(separatedBy: "\n\n")
    let lines = parts[0].split(separator: "\n").map(String.init)
    let body = parts.count > 1 ? parts[1] : ""
    let first = lines[0]
    let method = String(first.prefix { $0 != " " })
    let target = String(first.dropFirst(method.count + 1).dropLast(" HTTP/1.1".count))
    let path = String(target.prefix { $0 != "?" })
    var query: [(name: String, value: String)] = []
    if target.count > path.count {
      for pair in target.dropFirst(path.count + 1).split(separator: "&") {
        let name = pair.prefix { $0 != "=" }
        let value = pair.dropFirst(name.count + 1)
        query.append((Self.decode(String(name)), Self.decode(String(value))))
      }
    }
    var headers: [(name: String, value: String)] = []
    for line in lines.dropFirst() {
      if line.hasPrefix(" ") || line.hasPrefix("\t") {
        headers[headers.count - 1].value += " " + line
      } else {
        let name = String(line.prefix { $0 != ":" })
        headers.append((name, String(line.dropFirst(name.count + 1))))
      }
    }
    return (method, path, query, headers, body)
  }

  static func decode(_ text: String) -> String {
    String(decoding: S3URIEncoding.decodeURLEncoded(text) ?? Array(text.utf8), as: UTF8.self)
  }
}
