import Foundation
import S3TestSupport
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The fixture itself: without moto it says what to install instead of timing out.
@Suite(.offThePool)
struct MotoServerTests {
  @Test func aPythonWithoutMotoGetsAClearMessage() async throws {
    // `-S` leaves site-packages out: the same interpreter, as if moto were not installed.
    let wrapper = LocalFile.temporaryPath("python")
    try "#!/bin/sh\nexec python3 -S \"$@\"\n".write(toFile: wrapper, atomically: true, encoding: .utf8)
    chmod(wrapper, 0o755)
    defer { unlink(wrapper) }
    let error = await #expect(throws: (any Error).self) { _ = try await MotoServer(python: wrapper) }
    let message = "\(error.map { "\($0)" } ?? "")"
    #expect(message.contains("moto is not installed"))
    #expect(message.contains("pip install 'moto[server]'"))
  }
}
