import ProviderAPI
import SFTPClient

/// SFTP v3 reply payloads as SFTPClient decodes them (`SFTPReader`, `SFTPAttributes`, the NAME
/// reply's entries, STATUS into `SFTPError`, the VERSION's extensions, the limits and statvfs
/// extension replies, and the "polluted stream" diagnosis of bytes before VERSION).
///
/// The first byte picks the reply type, the rest is its payload, so one corpus file is one reply.
/// Properties: every read is bounds-checked (a short payload is an error, never a trap); every
/// message made of server bytes is safe to show; attributes decode to what their flags say.
enum SFTPReplyTarget {
  static let target = FuzzTarget(
    name: "sftp-reply", summary: "SFTP v3 replies: bounded reads, checked attributes, safe status messages",
    dictionary: [
      "\u{0}\u{0}\u{0}\u{0}", "\u{0}\u{0}\u{0}\u{1}", "\u{FF}\u{FF}\u{FF}\u{FF}", "\u{0}\u{0}\u{0}\u{F}",
      "\u{80}\u{0}\u{0}\u{0}", "\u{0}\u{0}\u{0}\u{3}", "posix-rename@openssh.com", "limits@openssh.com", "1",
      "-rw-r--r--    1 u g 0 Jan  1 00:00 ", "\u{1B}]0;x\u{7}",
    ]
  ) { bytes in
    guard let kind = bytes.first else { return nil }
    let payload = Array(bytes.dropFirst())
    var reader = SFTPReader(payload)
    switch kind % 8 {
    case 0:
      // VERSION: the number, then extension name/data pairs to the end.
      guard (try? reader.u32()) != nil else { return nil }
      while !reader.isAtEnd {
        guard (try? reader.string()) != nil, (try? reader.string()) != nil else { break }
      }
    case 1:
      guard let code = try? reader.u32() else { return nil }
      let error = SFTPClient.statusError(code, &reader, "list folder “x”")
      return TerminalSafety.check(error.message, from: "a STATUS reply's message")
    case 2:
      _ = try? reader.string()  // HANDLE, DATA
    case 3:
      do throws(SFTPError) {
        let entries = try SFTPClient.directoryEntries(&reader)
        for entry in entries.prefix(16) {
          if let v = attributesCheck(entry.attributes) { return v }
          if let v = TerminalSafety.check(DisplayText.escape(entry.name), from: "an entry name shown") { return v }
        }
      } catch {
        return TerminalSafety.check(error.message, from: "a NAME reply's error")
      }
    case 4:
      do throws(SFTPError) { return attributesCheck(try SFTPAttributes(from: &reader)) } catch {
        return TerminalSafety.check(error.message, from: "an ATTRS reply's error")
      }
    case 5:
      for _ in 0..<11 { guard (try? reader.u64()) != nil else { break } }  // statvfs@openssh.com, limits@openssh.com
    case 6:
      return TerminalSafety.check(SFTPChannel.pollutedStream(payload, host: "host").message, from: "a polluted stream")
    default:
      // Two replies back to back, as a pipelined reader sees them.
      _ = try? SFTPAttributes(from: &reader)
      _ = try? SFTPClient.directoryEntries(&reader)
    }
    return nil
  }

  /// A decoded ATTRS: no more extension pairs than a payload of at most 256 KiB can hold (each is
  /// two 4-byte lengths at least), and its derived values are computable.
  static func attributesCheck(_ a: SFTPAttributes) -> FuzzViolation? {
    if a.extended.count > 1 << 15 { return FuzzViolation("an ATTRS decoded to \(a.extended.count) extensions") }
    _ = a.fileType
    _ = a.version
    return nil
  }
}
