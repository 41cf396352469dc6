import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import TestSupport
import TestExecution

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 13 §5 through the command line against a real `folio serve`: the opener gets the file
/// under its real name, an editor that saves by renaming still has its edit uploaded, `folio
/// open` says so (exit 4) when the upload became a conflict copy, and `folio ls` lists a server
/// folder in the natural order of every location.
@Suite("OpenEdges", .serialized, .offThePool)
struct OpenEdgesTests {
  /// Appends an `[[opener]]` for `.md` files that runs `script` with the path.
  static func addMarkdownOpener(_ machine: Machine, script: String) throws {
    let config = machine.home.root.appendingPathComponent("config/folio/config.toml")
    let handle = try FileHandle(forWritingTo: config)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("\n[[opener]]\nextensions = [\"md\"]\ncommand = [\"/bin/sh\", \"\(script)\", \"{path}\"]\n".utf8))
    try handle.close()
  }

  @Test func anEditorThatSavesByRenamingHasItsEditUploadedUnderTheRealName() async throws {
    let server = try await within(300) { try await RemoteServer() }
    let a = try Machine("A", server: server)
    let put = try await a.run(["put", try a.home.file("plan.md", Data("first\n".utf8)), "work:/"])
    #expect(put.status == 0, "\(put)")
    // vim with backupcopy=no: write a new file beside it, then rename it over the old one.
    let seen = a.home.root.appendingPathComponent("editor-saw").path
    let script = a.home.root.appendingPathComponent("rename-editor.sh").path
    try """
    printf '%s\\n' "$1" > '\(seen)'
    printf 'second\\n' > "$1.new"
    mv -f "$1.new" "$1"

    """.write(toFile: script, atomically: true, encoding: .utf8)
    try Self.addMarkdownOpener(a, script: script)

    let open = try await a.run(["open", "work:/plan.md"])
    #expect(open.status == 0, "\(open)")
    let path = try String(contentsOfFile: seen, encoding: .utf8).trimmingCharacters(in: .newlines)
    #expect(path.hasSuffix("/plan.md"), "the editor got \(path)")
    let checker = try RemoteClient(server, user: "ana")
    let item = try await within(60) { try await checker.item("/plan.md") }
    #expect(String(decoding: try await within(60) { try await checker.serverBytes(item.identifier) }, as: UTF8.self) == "second\n")
  }

  @Test func openSaysSoAndExitsFourWhenTheUploadBecameAConflictCopy() async throws {
    let server = try await within(300) { try await RemoteServer() }
    let a = try Machine("A", server: server)
    let b = try Machine("B", server: server)
    let put = try await a.run(["put", try a.home.file("notes.txt", Data("v1\n".utf8)), "work:/"])
    #expect(put.status == 0, "\(put)")
    try await b.expectSync()
    // B has v1 here (opened, unchanged); A then changes it on the server.
    try b.setEdit(Data("v1\n".utf8))
    let first = try await b.run(["open", "work:/notes.txt"])
    #expect(first.status == 0, "\(first)")
    try a.setEdit(Data("v2 from A\n".utf8))
    let byA = try await a.run(["open", "work:/notes.txt"])
    #expect(byA.status == 0, "\(byA)")
    // B edits its v1 without syncing: the server has v2, and keeps B's bytes as a copy.
    try b.setEdit(Data("v2 from B\n".utf8))
    let byB = try await b.run(["open", "work:/notes.txt"])
    #expect(byB.status == 4, "\(byB)")
    #expect(byB.err.contains("notes.txt changed on the server while you edited it"), "\(byB)")
    #expect(byB.err.contains("your changes were kept as a conflict copy, work:/notes (conflict"), "\(byB)")
    #expect(byB.err.contains("`folio resolve` settles it"), "\(byB)")
    let help = try await b.run(["open", "--help"])
    #expect(help.out.contains("4 the edits were uploaded but"), "\(help)")
  }

  @Test func lsListsAServerFolderInNaturalOrder() async throws {
    let server = try await within(300) { try await RemoteServer() }
    let a = try Machine("A", server: server)
    let names = ["file10.txt", "File2.txt", "file1.txt", "Zeta.txt", "alpha.txt"]
    let files = try names.map { try a.home.file($0, Data($0.utf8)) }
    let put = try await a.run(["put"] + files + ["work:/"])
    #expect(put.status == 0, "\(put)")
    let ls = try await a.run(["ls", "--json", "work:/"])
    #expect(ls.status == 0, "\(ls)")
    struct Entry: Decodable { var name: String }
    let listed = try JSONDecoder().decode([Entry].self, from: Data(ls.out.utf8)).map(\.name)
    #expect(listed == ["alpha.txt", "file1.txt", "File2.txt", "file10.txt", "Zeta.txt"], "\(ls)")
  }
}
