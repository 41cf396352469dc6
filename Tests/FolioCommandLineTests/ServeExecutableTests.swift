import Foundation
import ProviderAPI
import Testing

@testable import FolioCommandLine

/// `folio serve` finds `folio-serve` beside the running binary first, then on PATH, and says
/// where it looked when it is nowhere.
@Suite struct ServeExecutableTests {
  /// A temporary folder, with an executable `folio-serve` in it when `withServer`.
  static func folder(withServer: Bool) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("serve-exe-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    if withServer {
      let file = dir + "/folio-serve"
      try Data("#!/bin/sh\nexit 0\n".utf8).write(to: URL(fileURLWithPath: file))
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file)
    }
    return dir
  }

  @Test func besideTheBinaryComesBeforePath() throws {
    let beside = try Self.folder(withServer: true)
    let onPath = try Self.folder(withServer: true)
    defer { for d in [beside, onPath] { try? FileManager.default.removeItem(atPath: d) } }
    #expect(try ServeExecutable.locate(beside: beside, path: onPath) == beside + "/folio-serve")
    let empty = try Self.folder(withServer: false)
    defer { try? FileManager.default.removeItem(atPath: empty) }
    #expect(try ServeExecutable.locate(beside: empty, path: "/nonexistent:" + onPath) == onPath + "/folio-serve")
  }

  @Test func nowhereSaysWhereItLooked() throws {
    let empty = try Self.folder(withServer: false)
    defer { try? FileManager.default.removeItem(atPath: empty) }
    // A file that is not executable does not count.
    try Data("x".utf8).write(to: URL(fileURLWithPath: empty + "/folio-serve"))
    do {
      _ = try ServeExecutable.locate(beside: empty, path: "")
      Issue.record("found a folio-serve that is not executable")
    } catch {
      #expect(error.message.contains("folio-serve was not found") && error.message.contains(empty), "\(error.message)")
    }
  }
}
