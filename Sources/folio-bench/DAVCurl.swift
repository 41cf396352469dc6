import Foundation
import WebDAVClient

/// curl against the WebDAV server of `folio-bench webdav`: the floor Folio's numbers are printed
/// beside. An argv, never a shell; Basic authentication with `-u`, as asked for this loopback test
/// account (its password is the fixture's, not a secret).
struct DAVCurl {
  let baseURL: String
  let user: String
  let password: String

  /// `GET` into `file`.
  func get(_ name: String, to file: String) throws {
    try run(["-o", file, baseURL + name])
  }

  /// `PUT` of `file` as `name`, streamed (`-T`). `Expect:` is sent empty so curl never waits for a
  /// `100 Continue` (Folio does not ask for one either).
  func put(_ file: String, as name: String) throws {
    try run(["-T", file, "-H", "Expect:", baseURL + name])
  }

  /// `PROPFIND` Depth 1 of the collection `name` (ending in `/`) with the body Folio sends for a
  /// listing, the answer into `file`.
  func propfind(_ name: String, to file: String) throws {
    let body = file + ".body"
    try Data(PropfindBody.xml(.standard)).write(to: URL(fileURLWithPath: body))
    defer { try? FileManager.default.removeItem(atPath: body) }
    try run([
      "-X", "PROPFIND", "-H", "Depth: 1", "-H", "Content-Type: application/xml; charset=utf-8", "--data-binary", "@" + body,
      "-o", file, baseURL + name,
    ])
  }

  private func run(_ arguments: [String]) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["curl", "-sS", "--fail", "-u", "\(user):\(password)"] + arguments
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw BenchError("curl \(arguments.dropLast()) failed (\(p.terminationStatus))") }
  }

  /// How many times `needle` (which starts with a byte that occurs nowhere else in it, as `<`
  /// in a tag) occurs in the file, read through a memory map.
  static func count(_ needle: String, in path: String) throws -> Int {
    let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
    let pattern = Array(needle.utf8)
    return data.withUnsafeBytes { raw -> Int in
      let bytes = raw.bindMemory(to: UInt8.self)
      var found = 0
      var i = 0
      while i + pattern.count <= bytes.count {
        var j = 0
        while j < pattern.count && bytes[i + j] == pattern[j] { j += 1 }
        if j == pattern.count { found += 1 }
        i += max(j, 1)
      }
      return found
    }
  }
}
