import Foundation
import TestExecution
import Testing

/// `[[domain]] type = "extension"` through the real `folio`: `domain add --extension` (describe,
/// then a start), `ls`, `get`, `put`, `info`, `domain list`, `domain check`, and a crash's reason,
/// against the host's test extension (Tests/ExtensionHostTests/Fixtures/folder-ext.py).
@Suite("folio and extensions", .serialized, .offThePool)
struct ExtensionLocationTests {
  static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("ExtensionHostTests/Fixtures/folder-ext.py").path

  @Test func addBrowseAndCheckAnExtensionLocation() throws {
    let s = try Sandbox()
    let store = try s.folder("store")
    _ = try s.file("store/a.txt", "alpha")

    // describe says root is required: refused, naming it, and nothing written.
    let refused = try s.folio("domain", "add", "st", "--extension", Arg(Self.fixture))
    #expect(refused.status != 0)
    #expect(refused.err.contains("needs a setting: --set root=… (the folder)"), "\(refused)")
    let before = (try? String(contentsOfFile: s.configHome + "/folio/config.toml", encoding: .utf8)) ?? ""
    #expect(!before.contains("type = \"extension\""))

    let added = try s.folio("domain", "add", "st", "--extension", Arg(Self.fixture), "--set", Arg("root=" + store))
    #expect(added.status == 0, "\(added)")
    let config = try String(contentsOfFile: s.configHome + "/folio/config.toml", encoding: .utf8)
    #expect(config.contains("type = \"extension\"\ncommand = [\"\(Self.fixture)\"]\n[domain.config]\nroot = \"\(store)\"\n"))

    let ls = try s.folio("ls", "st:/")
    #expect(ls.status == 0 && ls.out.contains("a.txt"), "\(ls)")
    let got = try s.folio("get", "st:/a.txt", Arg(s.work + "/got.txt"))
    #expect(got.status == 0, "\(got)")
    #expect((try? String(contentsOfFile: s.work + "/got.txt", encoding: .utf8)) == "alpha")
    _ = try s.file("up.txt", "sent up")
    let put = try s.folio("put", Arg(s.work + "/up.txt"), "st:/")
    #expect(put.status == 0, "\(put)")
    #expect((try? String(contentsOfFile: store + "/up.txt", encoding: .utf8)) == "sent up")
    let info = try s.folio("info", "st:/a.txt")
    #expect(info.out.contains("Extension:") && info.out.contains("running (pid"), "\(info)")
    let list = try s.folio("domain", "list")
    #expect(list.out.contains("extension") && list.out.contains("online"), "\(list)")
    let check = try s.folio("domain", "check", "st")
    #expect(check.status == 0 && check.out.contains("the extension answers"), "\(check)")

    // It crashes on listing: the command says why, with its last words.
    try (config + "crash_on = \"enumerateItems\"\n").write(
      toFile: s.configHome + "/folio/config.toml", atomically: true, encoding: .utf8)
    let crashed = try s.folio("ls", "st:/")
    #expect(crashed.status != 0, "\(crashed)")
    #expect(crashed.err.contains("killed by signal 11") && crashed.err.contains("about to crash in enumerateItems"), "\(crashed)")
  }
}
