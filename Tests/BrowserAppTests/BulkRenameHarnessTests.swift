import BrowserApp
import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore
import Testing
import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Rename in Editor on a remote-like location (the harness's memory location has no local root),
/// by identifier and path-keyed as SFTP, S3 and WebDAV are: the renames go to the provider
/// through ItemService, as a single Rename does.
@MainActor
@Suite struct BulkRenameHarnessTests {
  /// An `$EDITOR` that reverses the file's lines with sed (a swap for two names).
  static func reversingEditor() throws -> (OpenerResolver, String) {
    let script = FileManager.default.temporaryDirectory.appendingPathComponent("folio-bulk-\(UUID().uuidString).sh").path
    try "#!/bin/sh\nsed -n '1!G;h;$p' \"$1\" > \"$1.new\" && mv \"$1.new\" \"$1\"\n"
      .write(toFile: script, atomically: true, encoding: .utf8)
    chmod(script, 0o755)
    return (OpenerResolver(rules: [], environment: ["EDITOR": script], isAvailable: { _ in true }), script)
  }

  @Test(arguments: [false, true])
  func aSwapOnARemoteLocationRenamesOnTheProvider(pathKeyed: Bool) async throws {
    let (editor, script) = try Self.reversingEditor()
    defer { try? FileManager.default.removeItem(atPath: script) }
    let h = try Harness(openers: editor, pathKeyed: pathKeyed)
    await h.provider.add(ItemName("first.txt"), content: Data("1".utf8))
    await h.provider.add(ItemName("second.txt"), content: Data("2".utf8))
    try await h.startAndLoad()
    h.type(.character("R"))
    try await h.waitForScreen(containing: "Renamed 2 items")
    #expect(h.terminal.count(of: .suspend) == 1 && h.terminal.count(of: .resume) == 1)
    // Found by content: path-keyed, an item's identifier is its path.
    let listed = try await h.provider.enumerate(
      EnumerationRequest(container: .root, suggestedPageSize: 10), page: nil, progress: { _ in }
    ).items
    var byContent: [String: ItemName] = [:]
    for item in listed { byContent[String(decoding: await h.provider.content(of: item.identifier) ?? Data(), as: UTF8.self)] = item.filename }
    #expect(byContent == ["1": ItemName("second.txt"), "2": ItemName("first.txt")])
    try await h.quit()
  }
}
