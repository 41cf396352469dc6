import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import S3Client
import SSHTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// moto's S3 server (PyPI `moto[server]`) on a free loopback port, for one test: started in
/// `init`, stopped by ``stop()`` (by its pid).
///
/// With `authentication` on (the default), moto checks every request's signature and permissions
/// as AWS would: it starts with `INITIAL_NO_AUTH_ACTION_COUNT=3`, so the first three requests
/// (IAM CreateUser, CreateAccessKey, PutUserPolicy: a user allowed everything) go through
/// unchecked and everything after is verified (moto's `core/authorization.py`;
/// docs/remote-providers.md §5). The two buckets are then made with the new key: ``plainBucket``,
/// and ``versionedBucket`` with versioning on.
///
/// moto 5.2.1's own check cannot verify many requests any client signs correctly: it recomputes
/// the canonical request from werkzeug's re-quoted URL, so a key with `+ % $ & ; =` or non-ASCII,
/// and any query value with a `/` (`delimiter=/`, `prefix=a/`) fail with SignatureDoesNotMatch
/// whoever signs them (boto3 as well). moto is therefore started through ``verifierPatch``, which
/// hands moto's verifier the canonical URI and query as AWS computes them: the request target as
/// received, percent-decoded to bytes and encoded again by SigV4's rule. The check stays as
/// strict as AWS's — a signature over anything else than the bytes sent still fails.
public final class MotoServer: @unchecked Sendable {
  public let folder: String
  public let port: Int
  public let region = "us-east-1"
  /// The key made through moto's IAM (or any key when authentication is off).
  public let credentials: S3Credentials
  public let plainBucket = "folio-plain"
  public let versionedBucket = "folio-versioned"
  public let authenticates: Bool
  private let pid: pid_t
  private var stopped = false

  public var endpointURL: String { "http://127.0.0.1:\(port)" }

  /// - Parameter python: The interpreter and its options (found on PATH by `env`); python3 on
  ///   PATH when nil.
  /// - Throws: ``FixtureError`` with what to install when python3 or moto is missing, or what moto
  ///   said when it did not start.
  public init(authentication: Bool = true, python: [String]? = nil) async throws {
    let python = try python ?? [Self.findPython()]
    var template = Array("/tmp/folio-moto-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw FixtureError("mkdtemp failed")
    }
    folder = String(cString: made)
    authenticates = authentication
    let log = folder + "/moto.log"
    let script = folder + "/moto_server.py"
    try Self.verifierPatch.write(toFile: script, atomically: true, encoding: .utf8)

    var started: (Int, pid_t)?
    var lastLog = ""
    for _ in 0..<5 {
      let port = try Loopback.freePort()
      var environment = ["PYTHONUNBUFFERED=1"]
      if authentication { environment.append("INITIAL_NO_AUTH_ACTION_COUNT=3") }
      let pid = try ChildProcess.start(
        "/usr/bin/env", environment + python + [script, "-H", "127.0.0.1", "-p", String(port)], stderrPath: log)
      // The port answering is not enough: another test's server may have taken it between
      // freePort and moto's bind (moto then fails with "Address already in use" and this test
      // would talk to the other one — its IAM said "User folio-tests already exists"). moto's own
      // line saying it runs on the port, with moto still alive, is.
      if Loopback.waitUntilAccepting(port: port, while: pid),
        Loopback.waitForLine("Running on http://127.0.0.1:\(port)", in: log, while: pid)
      {
        started = (port, pid)
        break
      }
      kill(pid, SIGKILL)
      _ = ChildProcess.wait(pid)
      lastLog = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
      if lastLog.contains("No module named") {
        try? FileManager.default.removeItem(atPath: folder)
        throw FixtureError(
          "moto is not installed for \(python.joined(separator: " ")) (pip install 'moto[server]'; .ci/run does): "
            + (lastLog.split(separator: "\n").last.map(String.init) ?? ""))
      }
    }
    guard let (port, pid) = started else {
      try? FileManager.default.removeItem(atPath: folder)
      throw FixtureError("moto did not start: \(lastLog)")
    }
    self.port = port
    self.pid = pid

    do {
      credentials =
        authentication
        ? try await Self.makeUser(port: port, region: "us-east-1")
        : S3Credentials(accessKeyID: "AKIAFOLIOTESTS000000", secretAccessKey: "not checked")
    } catch {
      kill(pid, SIGKILL)  // moto ignores SIGTERM while a kept-alive connection is open: a wait after it hung a whole run
      _ = ChildProcess.wait(pid)
      try? FileManager.default.removeItem(atPath: folder)
      throw error
    }
    do {
      try await client(bucket: plainBucket).createBucket()
      let versioned = try client(bucket: versionedBucket)
      try await versioned.createBucket()
      try await versioned.setBucketVersioning(enabled: true)
    } catch {
      stop()
      throw error
    }
  }

  /// A client for one of the buckets, with the server's key unless others are given.
  public func client(bucket: String, prefix: String = "", credentials: S3Credentials? = nil) throws -> S3Client {
    let endpoint = try S3Endpoint(bucket: bucket, prefix: prefix, region: region, endpoint: endpointURL)
    return S3Client(endpoint: endpoint, credentials: credentials ?? self.credentials)
  }

  public var log: String { (try? String(contentsOfFile: folder + "/moto.log", encoding: .utf8)) ?? "" }

  /// Freezes moto (SIGSTOP): the server of a dead machine or a hung process, not a closed port —
  /// connections are still accepted by the kernel, and no answer ever comes. ``resume()`` thaws it.
  public func freeze() { if !stopped { kill(pid, SIGSTOP) } }

  /// Thaws a frozen moto (SIGCONT): it answers again, with everything it held.
  public func resume() { if !stopped { kill(pid, SIGCONT) } }

  /// Stops moto (SIGKILL to its pid, then waits for it) and removes its folder. Safe to call twice.
  /// Not SIGTERM: moto's handler exits the main thread, and a connection the HTTP client keeps
  /// open holds a request thread that keeps the process alive.
  public func stop() {
    guard !stopped else { return }
    stopped = true
    kill(pid, SIGKILL)
    _ = ChildProcess.wait(pid)
    try? FileManager.default.removeItem(atPath: folder)
  }

  // MARK: Setting up

  /// moto's server with its SigV4 check given AWS's canonical URI (see the type's comment).
  /// `setup_class` keeps werkzeug's `RAW_URI` (the request target as received); around the check,
  /// the URL moto reads its path and query from is that target made canonical.
  static let verifierPatch = #"""
    import sys
    from urllib.parse import quote, unquote_to_bytes
    import moto.core.authorization as authorization
    import moto.core.responses as responses

    def canonical(target):
        path, _, query = target.partition("?")
        pairs = []
        for pair in query.split("&") if query else []:
            name, _, value = pair.partition("=")
            pairs.append((quote(unquote_to_bytes(name), safe="-_.~"), quote(unquote_to_bytes(value), safe="-_.~")))
        query = "&".join(f"{name}={value}" for name, value in sorted(pairs))
        return quote(unquote_to_bytes(path), safe="/-_.~") + ("?" + query if query else "")

    setup_class = responses.BaseResponse.setup_class
    def keep_raw_target(self, request, *args, **kwargs):
        self.folio_raw_target = getattr(request, "environ", {}).get("RAW_URI")
        return setup_class(self, request, *args, **kwargs)
    responses.BaseResponse.setup_class = keep_raw_target

    check = authorization.ActionAuthenticatorMixin._authenticate_and_authorize_action
    def check_canonical(self, *args, **kwargs):
        raw = getattr(self, "folio_raw_target", None)
        if not raw:
            return check(self, *args, **kwargs)
        uri = self.uri
        self.uri = "http://verifier" + canonical(raw)
        try:
            return check(self, *args, **kwargs)
        finally:
            self.uri = uri
    authorization.ActionAuthenticatorMixin._authenticate_and_authorize_action = check_canonical

    from moto.server import main
    main(sys.argv[1:])
    """#

  /// python3 on PATH (pyenv's shim, /usr/bin, /usr/local/bin).
  private static func findPython() throws -> String {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for folder in path.split(separator: ":") where access("\(folder)/python3", X_OK) == 0 {
      return "\(folder)/python3"
    }
    throw FixtureError(
      "python3 is not installed; moto needs it (apt-get install python3 python3-pip; pip install 'moto[server]')")
  }

  /// IAM CreateUser, CreateAccessKey and PutUserPolicy (allow everything): the three requests moto
  /// lets through before it checks signatures. Signed anyway: moto routes by the signature's service.
  private static func makeUser(port: Int, region: String) async throws -> S3Credentials {
    let bootstrap = S3Credentials(accessKeyID: "AKIAFOLIOBOOTSTRAP00", secretAccessKey: "unchecked")
    let user = "folio-tests"
    _ = try await iam(["Action": "CreateUser", "UserName": user], port: port, region: region, credentials: bootstrap)
    let created = try await iam(
      ["Action": "CreateAccessKey", "UserName": user], port: port, region: region, credentials: bootstrap)
    guard let id = element("AccessKeyId", in: created), let secret = element("SecretAccessKey", in: created) else {
      throw FixtureError("moto's CreateAccessKey answered without a key: \(created)")
    }
    let policy = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#
    _ = try await iam(
      ["Action": "PutUserPolicy", "UserName": user, "PolicyName": "everything", "PolicyDocument": policy],
      port: port, region: region, credentials: bootstrap)
    return S3Credentials(accessKeyID: id, secretAccessKey: secret)
  }

  /// One IAM Query-protocol call (a form POST); the answer's text.
  private static func iam(
    _ parameters: [String: String], port: Int, region: String, credentials: S3Credentials
  ) async throws -> String {
    let form = (parameters.merging(["Version": "2010-05-08"]) { a, _ in a })
      .sorted { $0.key < $1.key }
      .map { "\(formEncode($0.key))=\(formEncode($0.value))" }
      .joined(separator: "&")
    let body = Array(form.utf8)
    let host = "127.0.0.1:\(port)"
    let signer = SigV4Signer(credentials: credentials, region: region, service: "iam")
    let signed = signer.sign(
      method: "POST", encodedPath: "/", query: [],
      headers: [("host", host), ("content-type", "application/x-www-form-urlencoded; charset=utf-8")],
      payloadHash: SigV4Signer.sha256Hex(body), date: Date())
    var request = HTTPClientRequest(url: "http://\(host)/")
    request.method = .POST
    for (name, value) in signed.headers { request.headers.add(name: name, value: value) }
    request.body = .bytes(ByteBuffer(bytes: body))
    let response = try await S3Client.sharedHTTPClient.execute(request, timeout: .seconds(30))
    let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
    guard response.status.code == 200 else {
      throw FixtureError("moto's IAM \(parameters["Action"] ?? "") answered \(response.status.code): \(text)")
    }
    return text
  }

  private static func formEncode(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        out += String(format: "%%%02X", byte)
      }
    }
    return out
  }

  private static func element(_ name: String, in xml: String) -> String? {
    guard let start = xml.range(of: "<\(name)>"),
      let end = xml.range(of: "</\(name)>", range: start.upperBound..<xml.endIndex)
    else { return nil }
    return String(xml[start.upperBound..<end.lowerBound])
  }
}
