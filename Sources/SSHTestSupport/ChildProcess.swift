import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// posix_spawn for the fixture. Not Foundation's `Process`: its SIGCHLD monitor left ssh-keygen
/// children as zombies and `waitUntilExit` never returned while other tests spawned ssh (the same
/// reason FolioRunner spawns on its own).
public enum ChildProcess {
  /// Starts `program` with stdin and stdout on /dev/null and stderr appended to `stderrPath`.
  public static func start(_ program: String, _ arguments: [String], stderrPath: String = "/dev/null") throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    return try spawn(program, arguments, &actions)
  }

  /// Runs `program` to the end; its stdout. Throws when it fails.
  @discardableResult
  public static func run(_ program: String, _ arguments: [String]) throws -> String {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)").path
    defer { unlink(output) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let pid = try spawn(program, arguments, &actions)
    let status = wait(pid)
    guard status == 0 else { throw FixtureError("\(program) \(arguments) failed with status \(status)") }
    return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
  }

  /// The raw wait status.
  public static func wait(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return status
  }

  private static func spawn(_ program: String, _ arguments: [String], _ actions: inout posix_spawn_file_actions_t)
    throws -> pid_t
  {
    let argv = ([program] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, program, &actions, nil, argv, environ)
    guard result == 0 else { throw FixtureError("cannot start \(program): \(String(cString: strerror(result)))") }
    return pid
  }
}
