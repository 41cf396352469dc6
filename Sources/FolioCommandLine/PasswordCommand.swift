import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a domain's `password_command` and reads the password from the first line it prints.
///
/// Like every program Folio starts, it runs with an argv (posix_spawnp), never a shell. Its
/// standard input and error stay the terminal's, so a password manager can ask for its own
/// passphrase (pinentry, a tty prompt); only its standard output is read, and only up to 64 KiB.
/// What it prints is never logged or echoed: a failure says the exit status, not the output.
enum PasswordCommand {
  static let maxOutput = 64 * 1024

  /// The first line of the command's output.
  ///
  /// - Throws: `notAuthenticated` when the command cannot run, fails or prints nothing — a person
  ///   must then sign in another way, which is what that code asks for.
  static func run(_ argv: [String], domain: DomainIdentifier) async throws(ProviderError) -> String {
    guard let program = argv.first, !program.isEmpty else {
      throw ProviderError(.badConfig, "the password_command of '\(domain)' is empty")
    }
    let name = TerminalText.escape(program)
    let result: Result<(status: Int32, output: [UInt8]), ProviderError> = await withCheckedContinuation { cont in
      DispatchQueue.global().async { cont.resume(returning: spawnAndRead(argv)) }
    }
    let (status, output) = try result.get()
    guard status == 0 else {
      throw ProviderError(
        .notAuthenticated, "the password_command of '\(domain)' (\(name)) failed with exit status \(status)")
    }
    let firstLine = output.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false).first ?? []
    var line = Array(firstLine)
    if line.last == 0x0D { line.removeLast() }
    guard !line.isEmpty, let password = String(validating: line, as: UTF8.self) else {
      throw ProviderError(.notAuthenticated, "the password_command of '\(domain)' (\(name)) printed no password")
    }
    return password
  }

  /// Spawns the program with its stdout on a pipe, reads it and waits. Runs on its own thread.
  private static func spawnAndRead(_ argv: [String]) -> Result<(status: Int32, output: [UInt8]), ProviderError> {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else {
      return .failure(ProviderError(.ioError, "cannot run the password command: \(String(cString: strerror(errno)))"))
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_addclose(&actions, fds[0])
    posix_spawn_file_actions_addclose(&actions, fds[1])
    // Threads of the dispatch pool block signals; the child starts with none blocked and every
    // disposition at its default (as ProgramRunner does).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
    cArgs.append(nil)
    defer { for p in cArgs { free(p) } }
    var pid: pid_t = 0
    let rc = posix_spawnp(&pid, cArgs[0]!, &actions, &attributes, cArgs, environ)
    close(fds[1])
    guard rc == 0 else {
      close(fds[0])
      let what = rc == ENOENT ? "not found" : String(cString: strerror(rc))
      return .failure(
        ProviderError(.notAuthenticated, "cannot run the password command \(TerminalText.escape(argv[0])): \(what)"))
    }
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while output.count < maxOutput {
      let n = chunk.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      output.append(contentsOf: chunk[0..<n])
    }
    close(fds[0])
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // WIFEXITED / WEXITSTATUS, spelled out (macros); a signal counts as a failure (128 + signal).
    let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return .success((exit, output))
  }
}
