/// The little protocol between the askpass helper (run by ssh) and ``AskpassRelay`` (in Folio).
///
/// Request: `u8 hint` (0 = none set, 1 = SSH_ASKPASS_PROMPT=confirm, 2 = =none), `u32 length`,
/// the prompt bytes (ssh's argv[1]). Reply: `u8 status` (0 = answered, 1 = refused), `u32 length`,
/// the answer bytes. Big-endian, one request per connection. Binary rather than JSON because a
/// prompt may carry any bytes (a host name from ~/.ssh/config) and the helper must stay tiny.
public enum AskpassWire {
  /// The environment variable that tells the helper where the relay listens.
  public static let socketVariable = "FOLIO_ASKPASS_SOCKET"
  /// Set beside the socket in ssh's environment: the `folio` binary that ssh runs as its askpass
  /// relays the prompt (`AskpassHelper.run`) instead of parsing its arguments as a command.
  public static let modeVariable = "FOLIO_ASKPASS"
  static let hintNone: UInt8 = 2
  static let hintConfirm: UInt8 = 1
  static let hintUnset: UInt8 = 0
  static let answered: UInt8 = 0
  static let refused: UInt8 = 1

  static func frame(_ first: UInt8, _ bytes: [UInt8]) -> [UInt8] {
    let count = UInt32(bytes.count)
    return [
      first, UInt8(truncatingIfNeeded: count >> 24), UInt8(truncatingIfNeeded: count >> 16),
      UInt8(truncatingIfNeeded: count >> 8), UInt8(truncatingIfNeeded: count),
    ] + bytes
  }

  /// Parses a whole frame; nil when it is incomplete or longer than it says.
  static func parse(_ bytes: [UInt8]) -> (UInt8, [UInt8])? {
    guard bytes.count >= 5 else { return nil }
    let count = Int(bytes[1]) << 24 | Int(bytes[2]) << 16 | Int(bytes[3]) << 8 | Int(bytes[4])
    guard bytes.count == 5 + count else { return nil }
    return (bytes[0], Array(bytes[5...]))
  }
}
