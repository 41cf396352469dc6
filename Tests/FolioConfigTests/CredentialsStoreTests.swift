import FolioConfig
import Foundation
import ProviderAPI
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("CredentialsStore")
struct CredentialsStoreTests {
  /// A fresh folder for one test, removed at the end.
  final class Folder {
    let url: URL
    init() throws {
      url = FileManager.default.temporaryDirectory.appendingPathComponent("folio-credentials-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    var file: URL { url.appendingPathComponent("folio/credentials") }
  }

  func mode(_ url: URL) -> mode_t {
    var st = stat()
    _ = stat(url.path, &st)
    return st.st_mode & 0o777
  }

  @Test func aMissingFileHasNoSecrets() throws {
    let folder = try Folder()
    let store = CredentialsStore(file: folder.file)
    #expect(try store.secret(for: DomainIdentifier("work")) == nil)
    #expect(try store.domains().isEmpty)
  }

  @Test func savesReplacesAndRemovesSecretsInAPrivateFile() throws {
    let folder = try Folder()
    let store = CredentialsStore(file: folder.file)
    let work = try DomainIdentifier("work")
    let home = try DomainIdentifier("home")
    try store.setSecret("p=ss word ", for: work)
    try store.setSecret("second", for: home)
    #expect(mode(folder.file) == 0o600)
    #expect(mode(folder.file.deletingLastPathComponent()) == 0o700)
    #expect(try store.secret(for: work) == "p=ss word ")
    try store.setSecret("new", for: work)
    #expect(try store.secret(for: work) == "new")
    #expect(try store.domains() == [work, home])
    #expect(try store.removeSecret(for: work))
    #expect(try store.removeSecret(for: work) == false)
    #expect(try store.secret(for: work) == nil)
    #expect(try store.secret(for: home) == "second")
    let text = try String(contentsOf: folder.file, encoding: .utf8)
    #expect(text.hasPrefix("# Folio credentials"))
    #expect(text.hasSuffix("home=second\n"))
    // No temporary file is left next to it.
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.file.deletingLastPathComponent().path)
    #expect(names == ["credentials"])
  }

  @Test func keepsCommentsAndOtherLines() throws {
    let folder = try Folder()
    try FileManager.default.createDirectory(at: folder.file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try "# mine\n\nhome=h\n# about work\nwork=w\n".write(to: folder.file, atomically: false, encoding: .utf8)
    chmod(folder.file.path, 0o600)
    let store = CredentialsStore(file: folder.file)
    try store.setSecret("W2", for: try DomainIdentifier("work"))
    #expect(try String(contentsOf: folder.file, encoding: .utf8) == "# mine\n\nhome=h\n# about work\nwork=W2\n")
  }

  @Test(arguments: [0o644, 0o640, 0o604, 0o660] as [mode_t])
  func refusesAFileOthersCanRead(_ m: mode_t) throws {
    let folder = try Folder()
    let store = CredentialsStore(file: folder.file)
    try store.setSecret("s", for: try DomainIdentifier("work"))
    chmod(folder.file.path, m)
    let error = #expect(throws: ProviderError.self) { try store.secret(for: DomainIdentifier("work")) }
    #expect(error?.code == .badConfig)
    #expect(error?.message.contains("chmod 600 \(folder.file.path)") == true)
    // Writing refuses too: it reads the file first, and never widens what it found.
    #expect(throws: ProviderError.self) { try store.setSecret("t", for: DomainIdentifier("work")) }
  }

  @Test func refusesASymbolicLink() throws {
    let folder = try Folder()
    let real = folder.url.appendingPathComponent("real")
    try "work=s\n".write(to: real, atomically: false, encoding: .utf8)
    chmod(real.path, 0o600)
    try FileManager.default.createDirectory(at: folder.file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(at: folder.file, withDestinationURL: real)
    let error = #expect(throws: ProviderError.self) { try CredentialsStore(file: folder.file).secret(for: DomainIdentifier("work")) }
    #expect(error?.code == .badConfig)
  }

  @Test func refusesSecretsTheFormatCannotHold() throws {
    let folder = try Folder()
    let store = CredentialsStore(file: folder.file)
    for bad in ["a\nb", "a\rb", "a\0b"] {
      let error = #expect(throws: ProviderError.self) { try store.setSecret(bad, for: DomainIdentifier("work")) }
      #expect(error?.code == .invalidArgument)
    }
    #expect(!FileManager.default.fileExists(atPath: folder.file.path))
  }
}
