import Foundation
import ProviderAPI
import Testing

@testable import ProviderCore

#if canImport(Glibc)
  import Glibc
#endif

/// A real temporary folder for one test, removed at the end. Under /var/tmp rather than /tmp so
/// that user xattrs work on more machines.
final class ScratchFolder: @unchecked Sendable {
  let path: ItemPath

  init() {
    var template = Array("/var/tmp/folio-core-test-XXXXXX".utf8CString)
    let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(p != nil, "mkdtemp failed")
    path = ItemPath(String(cString: p!))
  }

  deinit {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/rm")
    p.arguments = ["-rf", "--", String(decoding: path.bytes, as: UTF8.self)]
    try? p.run()
    p.waitUntilExit()
  }

  func child(_ name: [UInt8]) -> ItemPath { path.appending(ItemName(bytes: name)) }
  func child(_ name: String) -> ItemPath { child(Array(name.utf8)) }

  @discardableResult
  func makeFile(_ name: [UInt8], in parent: ItemPath? = nil, content: String = "", mode: mode_t = 0o644) -> ItemPath {
    let p = (parent ?? path).appending(ItemName(bytes: name))
    let fd = p.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL, mode) }
    precondition(fd >= 0, "cannot create \(p.displayString): \(errno)")
    _ = content.withCString { write(fd, $0, strlen($0)) }
    close(fd)
    _ = p.withCString { chmod($0, mode) }
    return p
  }

  @discardableResult
  func makeFile(_ name: String, in parent: ItemPath? = nil, content: String = "", mode: mode_t = 0o644) -> ItemPath {
    makeFile(Array(name.utf8), in: parent, content: content, mode: mode)
  }

  @discardableResult
  func makeFolder(_ name: String, in parent: ItemPath? = nil) -> ItemPath {
    let p = (parent ?? path).appending(ItemName(name))
    precondition(p.withCString { mkdir($0, 0o755) } == 0)
    return p
  }

  /// A file's bytes, or nil when it does not exist.
  static func read(_ path: ItemPath) -> [UInt8]? {
    let fd = path.withCString { open($0, O_RDONLY) }
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n <= 0 { break }
      out += buf[0..<n]
    }
    return out
  }

  static func exists(_ path: ItemPath) -> Bool {
    var st = stat()
    return path.withCString { lstat($0, &st) } == 0
  }

  /// An executable shell script that appends each of its arguments, NUL-terminated, to `record`
  /// (NUL rather than newline: names may contain newlines, never NUL), then exits with `status`.
  func recordingScript(_ name: String = "record.sh", record: ItemPath, status: Int = 0) -> ItemPath {
    // The record path is one of ours (/var/tmp/folio-core-test-XXXXXX/...): no quoting issue.
    let body = """
      #!/bin/sh
      for a in "$@"; do printf '%s\\0' "$a"; done >> '\(record.lossyString)'
      exit \(status)

      """
    return makeFile(name, content: body, mode: 0o755)
  }

  /// The arguments a recording script wrote, in order.
  static func recordedArguments(_ record: ItemPath) -> [[UInt8]]? {
    guard let bytes = read(record) else { return nil }
    var out: [[UInt8]] = []
    var current: [UInt8] = []
    for b in bytes {
      if b == 0 {
        out.append(current)
        current = []
      } else {
        current.append(b)
      }
    }
    #expect(current.isEmpty, "the record ends in the middle of an argument")
    return out
  }
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

@Suite struct ProgramRunnerTests {
  @Test func exitStatusIsReported() async throws {
    let ok = try await ProgramRunner.run([bytes("/bin/sh"), bytes("-c"), bytes("exit 0")])
    #expect(ok == ProgramRunner.Outcome(exitStatus: 0, signal: nil))
    #expect(ok.succeeded)

    let failed = try await ProgramRunner.run([bytes("/bin/sh"), bytes("-c"), bytes("exit 3")])
    #expect(failed.exitStatus == 3)
    #expect(failed.signal == nil)
    #expect(!failed.succeeded)

    let high = try await ProgramRunner.run([bytes("/bin/sh"), bytes("-c"), bytes("exit 255")])
    #expect(high.exitStatus == 255)
  }

  @Test func programsAreFoundInPath() async throws {
    // A bare name is looked up in PATH, like execvp.
    let outcome = try await ProgramRunner.run([bytes("sh"), bytes("-c"), bytes("exit 7")])
    #expect(outcome.exitStatus == 7)
  }

  @Test func aSignalIsReportedAsSignalNotStatus() async throws {
    let killed = try await ProgramRunner.run([bytes("/bin/sh"), bytes("-c"), bytes("kill -TERM $$")])
    #expect(killed.exitStatus == nil)
    #expect(killed.signal == SIGTERM)
    #expect(!killed.succeeded)

    let interrupted = try await ProgramRunner.run([bytes("/bin/sh"), bytes("-c"), bytes("kill -INT $$")])
    #expect(interrupted.signal == SIGINT)
  }

  @Test func theChildStartsWithNoBlockedOrIgnoredSignals() throws {
    // Callers run on pool threads, and libdispatch's workers block most signals: without care the
    // child inherits that mask (an editor deaf to Ctrl-C) and ignored dispositions (SIGPIPE).
    // Spawn from a thread with every signal blocked and SIGPIPE ignored, as the worst caller.
    let tmp = ScratchFolder()
    let out = tmp.child("status")
    let argv = [bytes("/bin/sh"), bytes("-c"), bytes("grep -E '^Sig(Blk|Ign):' /proc/self/status > \"$0\""), out.bytes]
    var all = sigset_t()
    sigfillset(&all)
    var previousMask = sigset_t()
    pthread_sigmask(SIG_SETMASK, &all, &previousMask)
    let previousPipe = signal(SIGPIPE, SIG_IGN)
    let spawned = Result { () throws(ProviderError) in try ProgramRunner.spawn(argv, environment: nil) }
    signal(SIGPIPE, previousPipe)
    pthread_sigmask(SIG_SETMASK, &previousMask, nil)
    let pid = try spawned.get()
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    #expect(status == 0)
    let text = String(decoding: ScratchFolder.read(out) ?? [], as: UTF8.self)
    let fields = Dictionary(
      uniqueKeysWithValues: text.split(separator: "\n").map { line -> (String, UInt64) in
        let parts = line.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
        return (parts[0], UInt64(parts[1], radix: 16) ?? .max)
      })
    #expect(fields["SigBlk"] == 0, "blocked signals in the child: \(text)")
    let pipeBit: UInt64 = 1 << (UInt64(SIGPIPE) - 1)
    let intBit: UInt64 = 1 << (UInt64(SIGINT) - 1)
    #expect((fields["SigIgn"] ?? .max) & (pipeBit | intBit) == 0, "ignored signals in the child: \(text)")
  }

  @Test func aMissingProgramIsNoSuchItemAndNamedSafely() async throws {
    let error = await #expect(throws: ProviderError.self) {
      try await ProgramRunner.run([bytes("folio-no-such-program-4f1c"), bytes("x")])
    }
    #expect(error?.code == .noSuchItem)
    #expect(error?.message.contains("folio-no-such-program-4f1c") == true)

    // A hostile program name comes back escaped, never as a raw escape sequence.
    let hostile = await #expect(throws: ProviderError.self) {
      try await ProgramRunner.run([[0x1B] + bytes("[31mnope") + [0xFF]])
    }
    #expect(hostile?.code == .noSuchItem)
    #expect(hostile?.message.unicodeScalars.contains("\u{1B}") == false)
  }

  @Test func aFileThatIsNotExecutableIsNoPermission() async throws {
    let tmp = ScratchFolder()
    let script = tmp.makeFile("plain.sh", content: "#!/bin/sh\nexit 0\n", mode: 0o644)
    let error = await #expect(throws: ProviderError.self) { try await ProgramRunner.run([script.bytes]) }
    #expect(error?.code == .noPermission)
  }

  @Test func anEmptyCommandIsRefused() async throws {
    let none = await #expect(throws: ProviderError.self) { try await ProgramRunner.run([]) }
    #expect(none?.code == .invalidArgument)
    let empty = await #expect(throws: ProviderError.self) { try await ProgramRunner.run([[]]) }
    #expect(empty?.code == .invalidArgument)
  }

  @Test func argumentsAreBytesPassedExactly() async throws {
    let tmp = ScratchFolder()
    let record = tmp.child("argv")
    let script = tmp.recordingScript(record: record)
    let arguments: [[UInt8]] = [
      [0xFF, 0xFE, 0x80],  // not UTF-8 at all
      bytes("caf") + [0xE9],  // Latin-1
      [0xED, 0xA0, 0x80],  // a UTF-16 surrogate, encoded
      bytes("new\nline"),
      bytes("$(touch pwned)"),
      bytes("-rf"),
      bytes("a b\tc"),
      bytes("*"),
      bytes("'\"\\"),
      [],  // an empty argument stays an argument
      bytes("\u{1B}[2J"),
    ]
    let outcome = try await ProgramRunner.run([script.bytes] + arguments)
    #expect(outcome.succeeded)
    #expect(ScratchFolder.recordedArguments(record) == arguments)
  }

  @Test func anExplicitEnvironmentReplacesTheInheritedOne() async throws {
    let tmp = ScratchFolder()
    let out = tmp.child("env")
    let outcome = try await ProgramRunner.run(
      [bytes("/bin/sh"), bytes("-c"), bytes("printf '%s|%s' \"$FOLIO_PROBE\" \"${HOME-unset}\" > \"$0\""), out.bytes],
      environment: ["FOLIO_PROBE": "a=b c"])
    #expect(outcome.succeeded)
    #expect(ScratchFolder.read(out) == bytes("a=b c|unset"))
  }

  @Test func theChildStartsInTheFolderAskedForAndOursDoesNotMove() async throws {
    let tmp = ScratchFolder()
    let folder = tmp.makeFolder("a b $(x)")
    let before = FileManager.default.currentDirectoryPath
    let outcome = try await ProgramRunner.run(
      [bytes("/bin/sh"), bytes("-c"), bytes("pwd -P > here")], currentDirectory: folder)
    #expect(outcome.succeeded)
    #expect(ScratchFolder.read(folder.appending(ItemName("here"))) == folder.bytes + [0x0A])
    #expect(FileManager.default.currentDirectoryPath == before)
  }

  @Test func aFolderGoneBeforeTheSpawnIsSaidAndNothingRuns() async throws {
    let tmp = ScratchFolder()
    let gone = tmp.child("gone")
    await #expect(throws: ProviderError.self) {
      _ = try await ProgramRunner.run([bytes("/bin/true")], currentDirectory: gone)
    }
    do {
      _ = try await ProgramRunner.run([bytes("/bin/true")], currentDirectory: gone)
    } catch {
      #expect(error.code == .noSuchItem)
      #expect(error.message.contains("is gone"), "\(error.message)")
    }
  }

  @Test func isAvailableLooksForExecutableFilesInPath() throws {
    let tmp = ScratchFolder()
    tmp.makeFile("folio-tool", content: "#!/bin/sh\n", mode: 0o755)
    tmp.makeFile("folio-data", content: "", mode: 0o644)
    tmp.makeFolder("folio-folder")
    let dir = tmp.path.lossyString
    #expect(ProgramRunner.isAvailable("folio-tool", path: "/nonexistent:\(dir)"))
    #expect(!ProgramRunner.isAvailable("folio-tool", path: "/usr/bin:/bin"))
    #expect(!ProgramRunner.isAvailable("folio-data", path: dir))
    // A folder is searchable (X_OK) but not a program.
    #expect(!ProgramRunner.isAvailable("folio-folder", path: dir))
    #expect(!ProgramRunner.isAvailable("\(dir)/folio-folder"))
    #expect(ProgramRunner.isAvailable("\(dir)/folio-tool"))
    #expect(!ProgramRunner.isAvailable("\(dir)/folio-data"))
    #expect(ProgramRunner.isAvailable("sh", path: "/usr/bin:/bin"))
  }
}
