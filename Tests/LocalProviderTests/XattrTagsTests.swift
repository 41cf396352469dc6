import Foundation
import Glibc
import ProviderAPI
import Testing

@testable import LocalProvider

/// XattrTags against the attr tools (getfattr/setfattr), in both directions, on every writable
/// filesystem this machine offers: /tmp, /var/tmp and /dev/shm may or may not support user xattrs
/// (tmpfs only does since Linux 6.6), so each folder first asks setfattr, and where it says
/// "not supported" our API must say `featureUnsupported`.
@Suite struct XattrTagsTests {
  static let folders = ["/tmp", "/var/tmp", "/dev/shm"]

  @Test(arguments: folders)
  func roundTripsWithGetfattrAndSetfattr(_ parent: String) throws {
    guard access(parent, W_OK) == 0 else {
      print("\(parent) is not writable here; nothing to test")
      return
    }
    let dir = try TestFS.makeTemporaryDirectory(in: parent, prefix: "folio-tags-")
    defer { try? PosixPath.removeTree(dir) }
    // Process arguments are Strings, so the name shared with the tools is valid UTF-8 (the
    // invalid-UTF-8 case is tested below without tools).
    let file = dir.appending(ItemName("tagged café, #1"))
    try TestFS.write(file, "x")
    let tags = XattrTags()

    let probe = dir.appending(ItemName("probe"))
    try TestFS.write(probe, "")
    let probed = try TestTools.run("setfattr", ["-n", "user.folio.probe", "-v", "1", probe.lossyString])
    if probed.status != 0 {
      #expect(probed.stderrString.contains("not supported"), "setfattr failed otherwise: \(probed.stderrString)")
      let readError = #expect(throws: ProviderError.self) { try tags.read(at: file) }
      #expect(readError?.code == .featureUnsupported)
      let writeError = #expect(throws: ProviderError.self) { try tags.write(["Red"], at: file) }
      #expect(writeError?.code == .featureUnsupported)
      return
    }

    // Ours → getfattr.
    #expect(try tags.read(at: file) == [])
    try tags.write(["Red", "work", "à la carte", "📁"], at: file)
    let shown = try getfattr(file)
    #expect(shown.status == 0, "getfattr: \(shown.stderrString)")
    #expect(shown.stdout == Array("Red,work,à la carte,📁".utf8))

    // setfattr → ours, including KDE's older ", " separator and empty parts.
    let set = try TestTools.run("setfattr", ["-n", "user.xdg.tags", "-v", "Blue, personal,,x,Blue", file.lossyString])
    #expect(set.status == 0, "setfattr: \(set.stderrString)")
    #expect(try tags.read(at: file) == ["Blue", "personal", "x"])

    // Writing no tags removes the attribute rather than leaving an empty one.
    try tags.write([], at: file)
    #expect(try tags.read(at: file) == [])
    let gone = try getfattr(file)
    #expect(gone.status != 0 && gone.stderrString.contains("No such attribute"), "getfattr: \(gone.stderrString)")
    try tags.write([" ", ""], at: file)  // removing twice is fine
  }

  @Test func readAndWriteWorkOnTheHostileFileNameThatSetfattrCannotName() throws {
    let dir = try TestFS.makeTemporaryDirectory(in: "/var/tmp", prefix: "folio-tags-")
    defer { try? PosixPath.removeTree(dir) }
    let file = dir.appending(ItemName(bytes: [0xFE, 0x1B, 0x0A]))
    try TestFS.write(file, "x")
    let tags = XattrTags()
    do throws(ProviderError) {
      try tags.write(["one", "two"], at: file)
    } catch let error where error.code == .featureUnsupported {
      return  // no user xattrs on /var/tmp here; covered by the parameterized test
    }
    #expect(try tags.read(at: file) == ["one", "two"])
  }

  @Test func aFilesystemWithoutUserAttributesReportsFeatureUnsupported() throws {
    // procfs never supports user.* attributes, on every kernel.
    let proc = ItemPath("/proc/version")
    let readError = #expect(throws: ProviderError.self) { try XattrTags().read(at: proc) }
    #expect(readError?.code == .featureUnsupported)
    #expect(readError?.message.contains("/proc/version") == true)
    let writeError = #expect(throws: ProviderError.self) { try XattrTags().write(["Red"], at: proc) }
    #expect(writeError?.code == .featureUnsupported)
  }

  @Test func missingItemsAndSymlinksAreClearErrors() throws {
    let dir = try TestFS.makeTemporaryDirectory(in: "/tmp", prefix: "folio-tags-")
    defer { try? PosixPath.removeTree(dir) }
    let missing = dir.appending(ItemName("missing"))
    let readError = #expect(throws: ProviderError.self) { try XattrTags().read(at: missing) }
    #expect(readError?.code == .noSuchItem)

    let target = dir.appending(ItemName("target"))
    try TestFS.write(target, "x")
    let link = dir.appending(ItemName("link"))
    try TestFS.symlink(target, at: link)
    // Linux refuses user attributes on symlinks; we never follow the link to tag its target.
    let writeError = #expect(throws: ProviderError.self) { try XattrTags().write(["Red"], at: link) }
    #expect(writeError?.code == .featureUnsupported)
    #expect(try XattrTags().read(at: link) == [])
  }

  @Test func serializationTrimsDeduplicatesAndRefusesCommas() throws {
    #expect(try XattrTags.serialize([" Red ", "work", "Red", "", "  "]) == Array("Red,work".utf8))
    #expect(try XattrTags.serialize([]) == [])
    let comma = #expect(throws: ProviderError.self) { try XattrTags.serialize(["a,b"]) }
    #expect(comma?.code == .invalidArgument)
    #expect(XattrTags.parse(Array("Red, work,,Red,\u{00A0}x\u{00A0}".utf8)) == ["Red", "work", "x"])
    #expect(XattrTags.parse([0x61, 0xFF]) == ["a\u{FFFD}"])
  }

  /// `getfattr --only-values` prints the raw value with no trailing newline.
  private func getfattr(_ path: ItemPath) throws -> TestTools.Result {
    try TestTools.run("getfattr", ["--absolute-names", "--only-values", "-n", "user.xdg.tags", path.lossyString])
  }
}
