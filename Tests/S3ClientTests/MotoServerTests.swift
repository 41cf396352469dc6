import Foundation
import S3TestSupport
import TestExecution
import Testing

/// The fixture itself: without moto it says what to install instead of timing out.
@Suite(.offThePool)
struct MotoServerTests {
  @Test func aPythonWithoutMotoGetsAClearMessage() async throws {
    // `-S` leaves site-packages out: the same interpreter, as if moto were not installed.
    let error = await #expect(throws: (any Error).self) { _ = try await MotoServer(python: ["python3", "-S"]) }
    let message = "\(error.map { "\($0)" } ?? "")"
    #expect(message.contains("moto is not installed"))
    #expect(message.contains("pip install 'moto[server]'"))
  }
}
