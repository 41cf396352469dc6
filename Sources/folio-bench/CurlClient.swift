import FolioProtocol
import Foundation

/// `curl` against the same server, in the same run: the floor Folio's remote numbers are compared
/// with. Every call runs curl with an argv (never a shell); the token goes in a header, the password
/// on stdin, so neither shows up in `ps`.
///
/// Times are curl's own `%{time_total}` (from its first connect to the last byte), so curl's
/// process start-up is not counted — as Folio's in-process timers do not count the bench's.
struct CurlClient {
  let baseURL: String
  let token: String

  /// What one transfer took.
  struct Transfer {
    var seconds: Double
    var bytes: Int64
  }

  static func available() -> Bool {
    (try? run(["--version"]).status) == 0
  }

  /// Signs in with `POST /v1/login` (the password on stdin).
  static func signIn(baseURL: String, user: String, password: String) throws -> CurlClient {
    let body = try JSONEncoder().encode(["user": user, "password": password])
    let r = try run(
      [
        "-sS", "--fail-with-body", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@-",
        "\(baseURL)/v1/login",
      ], stdin: body)
    guard r.status == 0 else { throw BenchError("curl could not sign in: \(r.errorText)") }
    let answer = try JSONDecoder().decode(LoginResponse.self, from: r.output)
    return CurlClient(baseURL: baseURL, token: answer.token)
  }

  /// `GET` of a JSON resource; returns the time and the body.
  func get(_ pathAndQuery: String) throws -> (seconds: Double, body: Data) {
    let r = try Self.run(
      ["-sS", "--fail-with-body", "-H", auth, "-w", "\n%{time_total}", "\(baseURL)\(pathAndQuery)"])
    guard r.status == 0 else { throw BenchError("curl GET \(pathAndQuery): \(r.errorText)") }
    guard let cut = r.output.lastIndex(of: UInt8(ascii: "\n")),
      let seconds = Double(String(decoding: r.output[(cut + 1)...], as: UTF8.self))
    else { throw BenchError("curl GET \(pathAndQuery): no timing in its output") }
    return (seconds, Data(r.output[..<cut]))
  }

  /// Downloads an item's content into `file` (`curl -o`).
  func download(_ id: String, to file: String) throws -> Transfer {
    let r = try Self.run(
      [
        "-sS", "--fail", "-H", auth, "-o", file, "-w", "%{time_total} %{size_download}",
        "\(baseURL)/v1/items/\(id)/content",
      ])
    return try Self.transfer(r, what: "download")
  }

  /// Uploads `file` as a new file `name` in `parent` (`curl -T`, streamed; method POST), with the
  /// SHA-256 the server checks.
  ///
  /// `Expect:` is sent empty: curl otherwise asks for `100 Continue` before a large body and waits
  /// up to a second for it.
  func upload(_ file: String, sha256: String, parent: String, name: String) throws -> (Transfer, WireItem) {
    let r = try Self.run(
      [
        "-sS", "--fail-with-body", "-X", "POST", "-T", file, "-H", auth, "-H", "\(WireRoutes.sha256Header): \(sha256)",
        "-H", "Content-Type: application/octet-stream", "-H", "Expect:", "-w", "\n%{time_total} %{size_upload}",
        "\(baseURL)/v1/uploads?parent=\(parent)&name=\(name)",
      ])
    guard r.status == 0, let cut = r.output.lastIndex(of: UInt8(ascii: "\n")) else {
      throw BenchError("curl upload: \(r.errorText) \(String(decoding: r.output, as: UTF8.self))")
    }
    let answer = try JSONDecoder().decode(UploadResponse.self, from: Data(r.output[..<cut]))
    let transfer = try Self.transfer((0, Data(r.output[(cut + 1)...]), r.errorText), what: "upload")
    return (transfer, answer.item)
  }

  /// `DELETE /v1/items/ID`: deleted forever.
  func delete(_ id: String) throws {
    let r = try Self.run(["-sS", "--fail", "-X", "DELETE", "-H", auth, "\(baseURL)/v1/items/\(id)"])
    guard r.status == 0 else { throw BenchError("curl DELETE \(id): \(r.errorText)") }
  }

  private var auth: String { "Authorization: Bearer \(token)" }

  private static func transfer(_ r: (status: Int32, output: Data, errorText: String), what: String) throws -> Transfer {
    guard r.status == 0 else { throw BenchError("curl \(what): \(r.errorText)") }
    let fields = String(decoding: r.output, as: UTF8.self).split(separator: " ")
    guard fields.count == 2, let seconds = Double(fields[0]), let bytes = Double(fields[1]) else {
      throw BenchError("curl \(what): unexpected -w output \(String(decoding: r.output, as: UTF8.self))")
    }
    return Transfer(seconds: seconds, bytes: Int64(bytes))
  }

  private static func run(_ arguments: [String], stdin: Data? = nil) throws -> (
    status: Int32, output: Data, errorText: String
  ) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["curl"] + arguments
    let out = Pipe()
    let err = Pipe()
    let input = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try p.run()
    if let stdin {
      input.fileHandleForWriting.write(stdin)
      try input.fileHandleForWriting.close()
    }
    // stderr is small (one line at most with -sS); read stdout to its end first.
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, o, String(decoding: e, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
  }
}
