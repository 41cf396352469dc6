import ProviderAPI
import SFTPClient
import Testing

@testable import SFTPProvider

/// Error messages name paths as the location shows them (`box:/docs/a.txt`), never as the
/// server's absolute paths the client met them under.
@Suite struct SFTPErrorMappingTests {
  static func quoted(_ bytes: [UInt8]) -> String { "“" + DisplayText.escape(bytes) + "”" }

  @Test(arguments: [
    ("/home/u/x", "open folder “/home/u/x/locked”: permission denied", "open folder “box:/locked”: permission denied"),
    ("/home/u/x", "free space of “/home/u/x”: failed", "free space of “box:/”: failed"),
    ("/home/u/x", "rename “/home/u/x/a” to “/home/u/x/b/c”: failed", "rename “box:/a” to “box:/b/c”: failed"),
    // Beside the location's folder, not in it: where it really is.
    ("/home/u/x", "“/home/u/xy/a”: no such file", "“/home/u/xy/a”: no such file"),
    ("/", "“/etc/passwd”: permission denied", "“box:/etc/passwd”: permission denied"),
  ])
  func quotedPathsUnderTheRootAreNamedByTheLocation(root: String, message: String, expected: String) {
    #expect(SFTPErrorMapping.naming(message, root: Array(root.utf8), location: "box") == expected)
  }

  @Test func aRootWithBytesThatNeedEscapingIsMatchedAsItIsShown() {
    let root = Array("/srv/e\u{1B}[2J".utf8) + [0xFF]
    let error = SFTPError(.permissionDenied, Self.quoted(root + Array("/new\nline".utf8)) + ": permission denied")
    let mapped = SFTPErrorMapping.map(error, root: root, location: "box")
    #expect(mapped.code == .noPermission)
    #expect(mapped.message == "“box:/new\\x0Aline”: permission denied")
  }
}
