import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A real `folio serve` process on a free loopback port, for tests of the server, its provider and
/// the sync engine (docs/PROTOCOL.md; architecture: "remote providers against real servers started
/// by the test on loopback").
///
/// The contract with `folio serve`: once it accepts connections it prints exactly one line
/// `folio serve: listening on http://HOST:PORT` on stdout (flushed). `--port 0` picks a free port.
/// The server's root folder survives `kill` and `restart`, so tests can `kill -9` it mid-transfer
/// and start it again on the same data.
public final class ServerProcess: @unchecked Sendable {
  public enum Failure: Error, CustomStringConvertible {
    case binaryMissing([String])
    case didNotStart(String)
    case adminFailed(String)
    public var description: String {
      switch self {
      case .binaryMissing(let c): "the folio binary is missing (looked at \(c.joined(separator: ", "))): run `swift build` first"
      case .didNotStart(let s): "folio serve did not start: \(s)"
      case .adminFailed(let s): "folio serve admin failed: \(s)"
      }
    }
  }

  /// The server's data folder (server.sqlite, content/, uploads/).
  public let root: URL
  public let faults: Bool
  /// With `tls`: the server's self-signed certificate (PEM, for 127.0.0.1), which a client must
  /// be told to trust; the server then speaks https only.
  public let certificate: URL?
  public private(set) var baseURL: URL
  public private(set) var port: Int
  private var process: SpawnedChild?
  /// Where the running server's stdout and stderr go (read for its "listening" line and `log`).
  private var outputFile: String { root.path + "-output.log" }

  /// Where the built `folio` is: next to the running test bundle, else `.build/debug/folio`.
  public static let binaryCandidates: [String] = {
    var out: [String] = []
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      out.append(URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("folio").path)
    }
    let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    out.append(packageRoot.appendingPathComponent(".build/debug/folio").path)
    return out
  }()

  public static func binary() throws -> String {
    guard let path = binaryCandidates.first(where: { access($0, X_OK) == 0 }) else {
      throw Failure.binaryMissing(binaryCandidates)
    }
    return path
  }

  /// Creates a fresh root with `users` (name → password) and starts the server; with `tls`, on
  /// https with a self-signed certificate made by `openssl` (``certificate``).
  public init(
    users: [String: String] = ["ana": "ana-password"], quotas: [String: Int64] = [:], faults: Bool = false,
    tls: Bool = false
  ) async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-server-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    root = dir
    self.faults = faults
    certificate = tls ? try Self.makeCertificate(in: dir) : nil
    baseURL = URL(string: "http://127.0.0.1:0")!
    port = 0
    for (name, password) in users.sorted(by: { $0.key < $1.key }) {
      try addUser(name, password: password, quota: quotas[name])
    }
    try await start()
  }

  deinit {
    stop(signal: SIGKILL)
    try? FileManager.default.removeItem(at: root)
    unlink(outputFile)
  }

  /// Runs `folio serve admin --root ROOT ARGS…` with `stdin`, returning stdout.
  @discardableResult
  public func admin(_ arguments: [String], stdin: String? = nil) throws -> String {
    let r = try SpawnedChild.run(try Self.binary(), ["serve", "admin", "--root", root.path] + arguments, input: stdin ?? "")
    guard r.status == 0 else {
      throw Failure.adminFailed("\(arguments.joined(separator: " ")): exit \(r.status): \(r.err)")
    }
    return r.out
  }

  public func addUser(_ name: String, password: String, quota: Int64? = nil) throws {
    var args = ["user", "add", name, "--password-stdin"]
    if let quota { args += ["--quota", String(quota)] }
    try admin(args, stdin: password + "\n")
  }

  /// Starts (or restarts) the server on the same root. A restart reuses the previous port so that
  /// clients configured with `baseURL` keep working.
  public func start() async throws {
    var args = ["serve", "--root", root.path, "--host", "127.0.0.1", "--port", String(port)]
    if faults { args.append("--faults") }
    if let certificate {
      args += ["--tls-cert", certificate.path, "--tls-key", root.appendingPathComponent("tls-key.pem").path]
    }
    unlink(outputFile)
    let p = try SpawnedChild(try Self.binary(), args, stdout: outputFile, stderr: outputFile)
    process = p
    let marker = "folio serve: listening on "
    // Bounded like the harness waits (60 s: every suite starts servers at once on CI's 2 cores),
    // and the output is looked at once more after the deadline: a sleep that overslept past it
    // under load must not fail a server whose line had come meanwhile.
    let deadline = Date().addingTimeInterval(60)
    while true {
      let late = Date() >= deadline
      let text = log
      if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(marker) }),
        let url = URL(string: String(line.dropFirst(marker.count)).trimmingCharacters(in: .whitespaces)),
        let port = url.port
      {
        baseURL = url
        self.port = port
        return
      }
      if let status = p.exitStatus {
        throw Failure.didNotStart("exit \(status): \(text)")
      }
      if late { throw Failure.didNotStart("no 'listening' line within 60 s: \(text)") }
      try await Task.sleep(nanoseconds: 20_000_000)
    }
  }

  /// A self-signed certificate for 127.0.0.1 and its key (`tls-cert.pem`, `tls-key.pem`) in `dir`.
  public static func makeCertificate(in dir: URL) throws -> URL {
    let cert = dir.appendingPathComponent("tls-cert.pem")
    let r = try SpawnedChild.run(
      "/usr/bin/openssl",
      [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir.appendingPathComponent("tls-key.pem").path,
        "-out", cert.path, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
      ])
    guard r.status == 0 else { throw Failure.adminFailed("openssl could not make a certificate: \(r.err)") }
    return cert
  }

  /// Everything the server printed since it last started.
  public var log: String { (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? "" }

  /// Sends `signal` (SIGKILL: a crash) and waits for the process to end.
  public func stop(signal: Int32 = SIGTERM) {
    guard let p = process else { return }
    if p.isRunning {
      kill(p.pid, signal)
      p.waitForExit()
    }
    process = nil
  }

  public var isRunning: Bool { process?.isRunning ?? false }
}
