/// SFTP v3 packet and status numbers (draft-ietf-secsh-filexfer-02 §3, §7; OpenSSH PROTOCOL §4).
enum SFTPPacketType {
  static let initialize: UInt8 = 1
  static let version: UInt8 = 2
  static let open: UInt8 = 3
  static let close: UInt8 = 4
  static let read: UInt8 = 5
  static let write: UInt8 = 6
  static let lstat: UInt8 = 7
  static let fstat: UInt8 = 8
  static let setstat: UInt8 = 9
  static let fsetstat: UInt8 = 10
  static let opendir: UInt8 = 11
  static let readdir: UInt8 = 12
  static let remove: UInt8 = 13
  static let mkdir: UInt8 = 14
  static let rmdir: UInt8 = 15
  static let realpath: UInt8 = 16
  static let stat: UInt8 = 17
  static let rename: UInt8 = 18
  static let readlink: UInt8 = 19
  static let symlink: UInt8 = 20
  static let status: UInt8 = 101
  static let handle: UInt8 = 102
  static let data: UInt8 = 103
  static let name: UInt8 = 104
  static let attrs: UInt8 = 105
  static let extended: UInt8 = 200
  static let extendedReply: UInt8 = 201
}

/// Flags of SSH_FXP_OPEN (draft §6.3).
public struct SFTPOpenFlags: OptionSet, Sendable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }
  public static let read = SFTPOpenFlags(rawValue: 0x01)
  public static let write = SFTPOpenFlags(rawValue: 0x02)
  public static let append = SFTPOpenFlags(rawValue: 0x04)
  public static let create = SFTPOpenFlags(rawValue: 0x08)
  public static let truncate = SFTPOpenFlags(rawValue: 0x10)
  /// OpenSSH maps it to O_EXCL: the safe way to claim a temporary name.
  public static let exclusive = SFTPOpenFlags(rawValue: 0x20)
}

/// Appends SFTP's big-endian integers and length-prefixed strings to a packet being built.
struct SFTPWriter {
  private(set) var bytes: [UInt8] = []

  /// Starts a packet: a length placeholder (patched by `finish`) and the type.
  init(type: UInt8, capacity: Int = 64) {
    bytes.reserveCapacity(capacity + 9)
    bytes.append(contentsOf: [0, 0, 0, 0, type])
  }

  mutating func u8(_ value: UInt8) { bytes.append(value) }
  mutating func u32(_ value: UInt32) {
    bytes.append(UInt8(truncatingIfNeeded: value >> 24))
    bytes.append(UInt8(truncatingIfNeeded: value >> 16))
    bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    bytes.append(UInt8(truncatingIfNeeded: value))
  }
  mutating func u64(_ value: UInt64) {
    u32(UInt32(truncatingIfNeeded: value >> 32))
    u32(UInt32(truncatingIfNeeded: value))
  }
  mutating func string(_ value: some Collection<UInt8>) {
    u32(UInt32(value.count))
    bytes.append(contentsOf: value)
  }
  mutating func string(_ value: String) { string(Array(value.utf8)) }

  /// The packet with its length field filled in. Consuming, so the bytes move out rather than
  /// being copied (a WRITE packet is 255 KiB).
  consuming func finish() -> [UInt8] {
    var result = bytes
    Self.patchLength(&result)
    return result
  }

  /// Writes the length field (bytes 0..<4) of a packet built whole.
  static func patchLength(_ packet: inout [UInt8]) {
    let length = UInt32(packet.count - 4)
    packet[0] = UInt8(truncatingIfNeeded: length >> 24)
    packet[1] = UInt8(truncatingIfNeeded: length >> 16)
    packet[2] = UInt8(truncatingIfNeeded: length >> 8)
    packet[3] = UInt8(truncatingIfNeeded: length)
  }
}

/// Reads a reply's payload; every read checks the bounds so a malformed reply is an error, not a trap.
package struct SFTPReader {
  let bytes: [UInt8]
  private(set) var position: Int

  package init(_ bytes: [UInt8], position: Int = 0) {
    self.bytes = bytes
    self.position = position
  }

  package var isAtEnd: Bool { position >= bytes.count }

  package mutating func u8() throws(SFTPError) -> UInt8 {
    guard position < bytes.count else { throw .malformed("a reply ended early") }
    defer { position += 1 }
    return bytes[position]
  }
  package mutating func u32() throws(SFTPError) -> UInt32 {
    guard bytes.count - position >= 4 else { throw .malformed("a reply ended early") }
    defer { position += 4 }
    return UInt32(bytes[position]) << 24 | UInt32(bytes[position + 1]) << 16 | UInt32(bytes[position + 2]) << 8
      | UInt32(bytes[position + 3])
  }
  package mutating func u64() throws(SFTPError) -> UInt64 {
    let high = try u32()
    return UInt64(high) << 32 | UInt64(try u32())
  }
  package mutating func string() throws(SFTPError) -> [UInt8] {
    let count = Int(try u32())
    guard bytes.count - position >= count else { throw .malformed("a string runs past the end of its reply") }
    defer { position += count }
    return Array(bytes[position..<position + count])
  }
}
