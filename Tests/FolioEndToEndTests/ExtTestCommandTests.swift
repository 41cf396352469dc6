import Foundation
import TestExecution
import Testing

/// `folio ext test`: the conformance kit through the real binary (the checks themselves are
/// tested in ExtensionConformanceTests against the same fixture extensions).
@Suite(.offThePool) struct ExtTestCommandTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("ExtensionConformanceTests/Fixtures").path

  @Test func aGoodExtensionExitsZeroWithOneLinePerCheck() throws {
    let sandbox = try Sandbox()
    let r = try sandbox.folio(
      "ext", "test", "--config", "root=\(sandbox.work)", "--only", "handshake,purity", "--", "python3",
      Arg(Self.fixtures + "/good.py"))
    #expect(r.status == 0, "\(r)")
    #expect(r.outLines.contains("ok   handshake/exit-0-after-shutdown-and-eof"), "\(r)")
    #expect(r.outLines.contains("ok   purity/every-stdout-line-is-json-rpc"), "\(r)")
    #expect(r.outLines.last == "9 ok, 0 failed, 0 skipped", "\(r)")
  }

  /// A failure exits 1 and prints what was sent and what came back under the FAIL line.
  @Test func aFailureExitsOneWithItsTranscript() throws {
    let sandbox = try Sandbox()
    // A relative path, as an author types it: the kit resolves it though the extension runs in
    // its stateDir.
    try FileManager.default.copyItem(atPath: Self.fixtures, toPath: sandbox.work + "/fx")
    let r = try sandbox.folio("ext", "test", "--config", "root=\(sandbox.work)", "--only", "purity", "--", "fx/noisy-stdout.py")
    #expect(r.status == 1, "\(r)")
    let fail = try #require(r.outLines.firstIndex { $0.hasPrefix("FAIL purity/every-stdout-line-is-json-rpc: stdout noise") }, "\(r)")
    let transcript = r.outLines[(fail + 1)...].prefix { $0.hasPrefix("     ") }
    #expect(transcript.contains { $0.hasPrefix("     -> ") && $0.contains(#""method":"item""#) }, "\(r)")
    #expect(transcript.contains { $0.hasPrefix("     <- debug: item #root") }, "\(r)")
  }

  @Test func usageErrorsExitTwo() throws {
    let sandbox = try Sandbox()
    let noCommand = try sandbox.folio("ext", "test")
    #expect(noCommand.status == 2, "\(noCommand)")
    #expect(noCommand.err.contains("give the extension's command after --"), "\(noCommand)")
    let noGroup = try sandbox.folio("ext", "test", "--only", "frobs", "--", "x")
    #expect(noGroup.status == 2 && noGroup.err.contains("no group 'frobs'"), "\(noGroup)")
    let badPair = try sandbox.folio("ext", "test", "--config", "novalue", "--", "x")
    #expect(badPair.status == 2 && badPair.err.contains("KEY=VALUE"), "\(badPair)")
  }

  /// The fixture a read-only extension's author serves: 250 files and a 3 MiB file.
  @Test func makeFixtureWritesThePagingFolderAndTheContentFile() throws {
    let sandbox = try Sandbox()
    let r = try sandbox.folio("ext", "test", "--make-fixture", "kit")
    #expect(r.status == 0, "\(r)")
    let names = try FileManager.default.contentsOfDirectory(atPath: sandbox.work + "/kit/paging")
    #expect(names.count == 250 && names.contains("f000") && names.contains("f249"), "\(names.count)")
    let size = try FileManager.default.attributesOfItem(atPath: sandbox.work + "/kit/content.bin")[.size] as? Int
    #expect(size == 3 * 1_048_576 + 17)
  }
}
