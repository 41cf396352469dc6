import Foundation
import ProviderAPI
import Testing

@testable import ExtensionHost

/// An upload from a stale base that the extension keeps as a conflict copy (-2015): the host
/// answers as every Provider does, with the item as it is now and the conflict as its
/// uploadingError, never as a failure (which the queue would send again, one copy per try).
@Suite struct ExtensionConflictTests {
  /// The shipped folio-rclone over a plain folder (rclone's local backend).
  static let rclone = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Extensions/folio-rclone").path

  @Test func aKeptBothAnswerIsTheItemWithItsConflict() async throws {
    let f = try ExtensionFixture(["remote": "{root}"], command: [Self.rclone], files: ["a.txt": "one\n"])
    defer { Task { await f.close() } }
    let item = try await f.provider.item(at: ItemPath("/a.txt"))
    // Changed on the remote after Folio read it.
    try Data("theirs\n".utf8).write(to: f.root.appendingPathComponent("a.txt"))
    let mine = f.base.appendingPathComponent("mine.txt")
    try Data("one\nmine\n".utf8).write(to: mine)

    let answered = try await f.provider.modifyItem(
      ItemTemplate(item), baseVersion: item.version, changedFields: .contents, contents: mine, progress: { _ in })
    let conflict = try #require(answered.uploadingError, "the item carries the conflict")
    #expect(conflict.code == .localVersionConflictingWithServer)
    #expect(answered.identifier == item.identifier)
    let copyID = try #require(conflict.existingItem, "the conflict names the copy")
    let copy = try await f.provider.item(for: copyID, pathHint: nil)
    #expect(copy.filename.displayString.hasPrefix("a (conflict, "), "\(copy.filename.displayString)")
    #expect(try String(contentsOf: f.root.appendingPathComponent("a.txt"), encoding: .utf8) == "theirs\n")
    let names = try FileManager.default.contentsOfDirectory(atPath: f.root.path).sorted()
    #expect(names.count == 2 && names.contains("a.txt"), "one copy, no leftovers: \(names)")
    let copyName = try #require(names.first { $0 != "a.txt" })
    #expect(try String(contentsOf: f.root.appendingPathComponent(copyName), encoding: .utf8) == "one\nmine\n")
  }
}
