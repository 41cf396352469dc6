import ArgumentParser
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// How the server's commands report: data on stdout, one line per error on stderr, exit 1 (3 for
/// a bad configuration). The same contract as `folio`'s Console, of which the server needs only
/// this much: a copy of these few lines keeps FolioCommandLine (the browser's whole world) out of
/// this executable.
enum Console {
  static func out(_ line: String) { write(1, line + "\n") }

  static func err(_ line: String) { write(2, "folio: " + line + "\n") }

  /// All of `text`; a reader that went away ends the command with 141, as SIGPIPE would.
  private static func write(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
      if n < 0 {
        if errno == EINTR { continue }
        if errno == EPIPE { exit(141) }
        return
      }
      done += n
    }
  }

  static func exitCode(for error: ProviderError) -> Int32 {
    switch error.code {
    case .badConfig, .badRule: return 3
    default: return 1
    }
  }
}

/// Runs a command body, turning a ProviderError into one line on stderr and an exit code.
func runReporting(_ body: () async throws(ProviderError) -> Void) async throws {
  do {
    try await body()
  } catch {
    Console.err(error.message)
    throw ExitCode(Console.exitCode(for: error))
  }
}
