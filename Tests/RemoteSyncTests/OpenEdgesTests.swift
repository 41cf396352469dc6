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
enum TestWait {
  /// Polls `condition` every 20 ms until it holds; fails after `seconds`.
  static func until(_ what: String, seconds: Double = 60, _ condition: () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
      guard Date() < deadline else { throw ProviderError(.ioError, "waited \(Int(seconds)) s for \(what)") }
      try await Task.sleep(nanoseconds: 20_000_000)
    }
  }
}

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
    let put = try await a.run(["put", try a.home.file("notes.md", Data("v1\n".utf8)), "work:/"])
    #expect(put.status == 0, "\(put)")
    try await b.expectSync()
    // B's editor is open on v1 while A saves v2: B's editor writes once A is done.
    let started = b.home.root.appendingPathComponent("editor-started").path
    let go = b.home.root.appendingPathComponent("editor-go").path
    let bScript = b.home.root.appendingPathComponent("slow-editor.sh").path
    try """
    touch '\(started)'
    i=0
    while [ ! -e '\(go)' ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
    printf 'v2 from B\\n' > "$1"

    """.write(toFile: bScript, atomically: true, encoding: .utf8)
    try Self.addMarkdownOpener(b, script: bScript)
    let aScript = a.home.root.appendingPathComponent("quick-editor.sh").path
    try "printf 'v2 from A\\n' > \"$1\"\n".write(toFile: aScript, atomically: true, encoding: .utf8)
    try Self.addMarkdownOpener(a, script: aScript)

    async let byB = b.run(["open", "work:/notes.md"])
    try await TestWait.until("B's editor is open") { FileManager.default.fileExists(atPath: started) }
    let byA = try await a.run(["open", "work:/notes.md"])
    #expect(byA.status == 0, "\(byA)")
    FileManager.default.createFile(atPath: go, contents: nil)
    let opened = try await byB
    #expect(opened.status == 4, "\(opened)")
    #expect(opened.err.contains("notes.md changed on the server while you edited it"), "\(opened)")
    #expect(opened.err.contains("your changes were kept as a conflict copy, work:/notes (conflict"), "\(opened)")
    #expect(opened.err.contains("`folio resolve` settles it"), "\(opened)")
    let help = try await b.run(["open", "--help"])
    #expect(help.out.contains("Exit status:") && help.out.contains("conflict copy, named on stderr"), "\(help)")
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
