import Foundation
import TestExecution
import Testing

/// `NAME:/path` names an item in a configured location; a plain path is local, and `./a:b` is
/// how a local name with a colon is written.
@Suite(.offThePool) struct AddressingTests {
  /// A sandbox whose config declares the local location `proj` rooted at `~/projects` (HOME is
  /// the sandbox's), holding `sub/p.txt`.
  static func sandbox() throws -> (Sandbox, root: String) {
    let s = try Sandbox()
    let root = s.home + "/projects"
    try s.file(root + "/sub/p.txt", "p")
    try s.config(
      """
      [[domain]]
      name = "proj"
      type = "local"
      root = "~/projects"
      display_name = "Projects"

      [[domain]]
      name = "dav"
      type = "webdav"
      url = "https://dav.example.com/remote.php/dav"
      """)
    return (s, root)
  }

  @Test func domainPathsResolveUnderTheRoot() throws {
    let (s, root) = try Self.sandbox()
    let top = try s.folio("ls", "--json", "proj:/")
    #expect(top.succeeded, "\(top)")
    let items = try #require(top.json().array)
    #expect(items.map { $0["name"] } == [.string("sub")])
    #expect(items.first?["location"] == .string("proj"))

    // "proj:sub" is "proj:/sub".
    let sub = try #require(s.folio("ls", "--json", "proj:sub").json().array)
    #expect(sub.map { $0["name"] } == [.string("p.txt")])
    #expect(sub.first?["path"] == .string(root + "/sub/p.txt"))

    let info = try s.folio("info", "proj:/sub/p.txt")
    #expect(info.succeeded, "\(info)")
    #expect(info.outLines.contains { $0.hasPrefix("Location:") && $0.hasSuffix("Projects") }, "\(info)")

    // "..", however many, never leaves the root.
    let up = try #require(s.folio("ls", "--json", "proj:/../../..").json().array)
    #expect(up.map { $0["name"] } == [.string("sub")])
  }

  @Test func mutationsThroughADomainLandUnderItsRoot() throws {
    let (s, root) = try Self.sandbox()
    #expect(try s.folio("mkdir", "proj:/new").succeeded)
    #expect(FileManager.default.fileExists(atPath: root + "/new"))
    #expect(!s.exists("new"), "proj:/new was created in the working directory")

    #expect(try s.folio("rename", "proj:/sub/p.txt", "q.txt").succeeded)
    #expect(s.contents(root + "/sub/q.txt") == "p")

    #expect(try s.folio("mv", "proj:/sub/q.txt", "proj:/new").succeeded)
    #expect(s.contents(root + "/new/q.txt") == "p")

    // Between a domain's folder and a plain local folder: both are this computer's.
    #expect(try s.folio("cp", "proj:/new/q.txt", ".").succeeded)
    #expect(s.contents("q.txt") == "p")
    #expect(s.contents(root + "/new/q.txt") == "p")
  }

  @Test func unknownAndRemoteDomainsAreClearErrors() throws {
    let (s, _) = try Self.sandbox()
    let unknown = try s.folio("ls", "nope:/x")
    #expect(unknown.failedCleanly(), "\(unknown)")
    #expect(unknown.err.contains("no location named 'nope'"), "\(unknown)")
    #expect(unknown.err.contains("proj"), "lists the known locations: \(unknown)")

    // A location whose table lacks a key is left out, and addressing it says which (exit 3: the
    // configuration); the other locations still work.
    let remote = try s.folio("ls", "dav:/")
    #expect(remote.failedCleanly(3), "\(remote)")
    #expect(remote.err.contains("'dav' has no user"), "\(remote)")
  }

  @Test func dotSlashAddressesALocalNameWithAColon() throws {
    let (s, _) = try Self.sandbox()
    try s.file("a:b", "colon")
    try s.file("proj:x", "not a domain")

    let info = try s.folio("info", "--json", "./a:b")
    #expect(info.succeeded, "\(info)")
    #expect(try info.json()["name"] == .string("a:b"))
    #expect(try s.folio("info", "--json", "./proj:x").json()["path"] == .string(s.path("proj:x")))
    #expect(try s.folio("info", "--json", Arg(s.path("a:b"))).json()["name"] == .string("a:b"), "absolute paths too")

    // Without "./" it is a location name, and the error says how to write the file.
    let asDomain = try s.folio("info", "a:b")
    #expect(asDomain.failedCleanly(), "\(asDomain)")
    #expect(asDomain.err.contains("./a:"), "\(asDomain)")

    // A new name is a name, never an address.
    #expect(try s.folio("rename", "./a:b", "c:d").succeeded)
    #expect(s.contents("c:d") == "colon")
    #expect(try s.folio("tag", "./c:d", "--add", "Blue").succeeded)
    #expect(try s.folio("tag", "--json", "./c:d").json() == .array([.string("Blue")]))
  }
}
