import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The askpass side: what `folio askpass PROMPT` runs when ssh calls it as SSH_ASKPASS.
///
/// It relays the prompt to the ``AskpassRelay`` named by `FOLIO_ASKPASS_SOCKET` and prints the
/// answer on stdout for ssh, or exits 1 when the user refused (ssh then treats the question as
/// answered "no", or the secret as not given).
public enum AskpassHelper {
  /// Returns what to print (nil = refuse: exit 1).
  public static func answer(prompt: [UInt8], environment: [String: String]) -> [UInt8]? {
    guard let path = environment[AskpassWire.socketVariable], let fd = UnixSocket.connect(to: path) else {
      return nil
    }
    defer { close(fd) }
    let hint: UInt8 =
      switch environment["SSH_ASKPASS_PROMPT"] {
      case "confirm": AskpassWire.hintConfirm
      case "none": AskpassWire.hintNone
      default: AskpassWire.hintUnset
      }
    guard UnixSocket.writeAll(fd, AskpassWire.frame(hint, prompt)),
      let frame = UnixSocket.readFrame(fd), let (status, answer) = AskpassWire.parse(frame),
      status == AskpassWire.answered
    else { return nil }
    return answer
  }

  /// The whole helper program: argv[1] is ssh's prompt. Returns the exit status.
  public static func run(arguments: [[UInt8]], environment: [String: String]) -> Int32 {
    guard let answer = answer(prompt: arguments.count > 1 ? arguments[1] : [], environment: environment) else {
      return 1
    }
    let line = answer + [UInt8(ascii: "\n")]
    _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    return 0
  }
}
