import Foundation
import PreviewTools
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The sandbox and the stopping of helper processes, against real processes (checked in /proc).
@Suite(.offThePool) struct HelperProcessTests {
  /// A helper that never ends and ignores SIGTERM, with a grandchild that ignores it too (the
  /// shell's `trap '' TERM` is inherited): only SIGKILL to the group ends them.
  @Test func aHelperThatHangsIsKilledAtTheDeadlineWithItsWholeGroup() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let hang = try scratch.script("hang", "trap '' TERM\nsleep 1000 &\necho $!\nwhile :; do sleep 1; done")
    var limits = HelperLimits()
    limits.deadline = .milliseconds(300)

    let result = try await HelperProcess.run(
      hang, sandbox: scratch.sandbox, limits: limits)

    #expect(result.stop == .deadline)
    #expect(result.termination == .signaled(SIGKILL))
    let grandchild = try #require(
      Int32(String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(ProcessEntry(pid: result.pid) == nil, "the helper is reaped, not left a zombie")
    #expect(await eventually { ProcessEntry(pid: grandchild)?.isAlive != true }, "the grandchild is gone")
    #expect(await eventually { ProcessEntry.livingMembers(ofGroup: result.pid).isEmpty })
  }

  /// SIGTERM is tried first: a helper that obeys it ends by it, before any SIGKILL.
  @Test func aHelperThatObeysSIGTERMEndsByIt() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    var limits = HelperLimits()
    limits.deadline = .milliseconds(100)
    limits.terminationGrace = .seconds(30)

    let result = try await HelperProcess.run(
      HelperCommand(executable: try #require(installed("sleep")), arguments: ["1000"]), sandbox: scratch.sandbox,
      limits: limits)

    #expect(result.stop == .deadline)
    #expect(result.termination == .signaled(SIGTERM))
    #expect(ProcessEntry(pid: result.pid) == nil)
  }

  @Test func cancellingTheTaskKillsTheHelperAndItsGroup() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let started = scratch.sandbox.directory + "/started"
    let waiter = try scratch.script(
      "wait-forever", "sleep 1000 &\necho $! > grandchild\necho $$ > started.tmp\nmv started.tmp started\nwait")
    var limits = HelperLimits()
    limits.deadline = .seconds(600)  // only the cancellation can end it

    let task = Task {
      try await HelperProcess.run(
        waiter, sandbox: scratch.sandbox, limits: limits)
    }
    #expect(await eventually { access(started, F_OK) == 0 })
    let pid = try #require(
      Int32(try String(contentsOfFile: started, encoding: .utf8).trimmingCharacters(in: .newlines)))
    let grandchild = try #require(
      Int32(
        try String(contentsOfFile: scratch.sandbox.directory + "/grandchild", encoding: .utf8).trimmingCharacters(
          in: .newlines)))
    #expect(ProcessEntry(pid: grandchild)?.isAlive == true)
    task.cancel()

    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(ProcessEntry(pid: pid) == nil, "reaped before the call returned")
    #expect(await eventually { ProcessEntry(pid: grandchild)?.isAlive != true })
    #expect(await eventually { ProcessEntry.livingMembers(ofGroup: pid).isEmpty })
  }

  @Test func aTaskCancelledBeforehandStartsNothing() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let marker = scratch.root + "/ran"
    let touch = try scratch.script("touch-marker", "touch '\(marker)'")
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await HelperProcess.run(
        touch, sandbox: scratch.sandbox)
    }
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(access(marker, F_OK) != 0)
  }

  @Test func anOutputFloodIsCappedAt64KiBAndTheHelperKilled() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    var limits = HelperLimits()
    limits.deadline = .seconds(600)  // only the cap can end it

    let result = try await HelperProcess.run(
      HelperCommand(executable: try #require(installed("yes")), arguments: ["flood"]), sandbox: scratch.sandbox,
      limits: limits)

    #expect(result.output.count == 64 * 1024)
    #expect(result.stop == .outputCap)
    #expect(result.isTruncated)
    #expect(ProcessEntry(pid: result.pid) == nil)
  }

  @Test func aLineCapKeepsExactlyThatManyLinesAndStopsTheHelper() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    var limits = HelperLimits()
    limits.deadline = .seconds(600)
    limits.lineCap = 7

    let result = try await HelperProcess.run(
      HelperCommand(executable: try #require(installed("yes")), arguments: ["entry"]), sandbox: scratch.sandbox,
      limits: limits)

    #expect(String(decoding: result.output, as: UTF8.self) == String(repeating: "entry\n", count: 7))
    #expect(result.stop == .lineCap)
    #expect(ProcessEntry(pid: result.pid) == nil)
  }

  /// With the test runner's stdin, `cat` would wait for input until the deadline.
  @Test func stdinIsDevNull() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let result = try await HelperProcess.run(
      HelperCommand(executable: try #require(installed("cat")), arguments: [String]()), sandbox: scratch.sandbox)
    #expect(result.succeeded)
    #expect(result.stop == nil)
    #expect(result.output.isEmpty)

    let link = try await HelperProcess.run(
      HelperCommand(executable: try #require(installed("readlink")), arguments: ["/proc/self/fd/0"]),
      sandbox: scratch.sandbox)
    #expect(String(decoding: link.output, as: UTF8.self) == "/dev/null\n")
  }

  @Test func aHelperRunsInItsOwnSessionWithItsLimitsInThePrivateFolder() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let cat = try #require(installed("cat"))

    let selfStat = try await HelperProcess.run(
      HelperCommand(executable: cat, arguments: ["/proc/self/stat"]), sandbox: scratch.sandbox)
    let text = String(decoding: selfStat.output, as: UTF8.self)
    let fields = text[text.index(after: try #require(text.lastIndex(of: ")")))...].split(separator: " ")
    #expect(fields[2] == "\(selfStat.pid)", "its own process group")
    #expect(fields[3] == "\(selfStat.pid)", "its own session")
    #expect(fields[4] == "0", "no controlling terminal")

    let limits = try await HelperProcess.run(
      HelperCommand(executable: cat, arguments: ["/proc/self/limits"]), sandbox: scratch.sandbox)
    let table = String(decoding: limits.output, as: UTF8.self).split(separator: "\n").map {
      $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
    #expect(table.contains("Max cpu time 5 5 seconds"))
    #expect(table.contains("Max file size 67108864 67108864 bytes"))
    #expect(table.contains("Max address space 1073741824 1073741824 bytes"))
    #expect(table.contains("Max core file size 0 0 bytes"))

    let cwd = try await HelperProcess.run(
      HelperCommand(executable: try #require(installed("readlink")), arguments: ["/proc/self/cwd"]),
      sandbox: scratch.sandbox)
    #expect(String(decoding: cwd.output, as: UTF8.self) == scratch.sandbox.directory + "\n")
    var info = stat()
    #expect(lstat(scratch.sandbox.directory, &info) == 0 && info.st_mode & 0o777 == 0o700)
  }

  @Test func aHelperGetsOnlyTheMinimalEnvironment() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    setenv("FOLIO_TEST_SECRET", "do-not-pass", 1)
    let result = try await HelperProcess.run(
      HelperCommand(executable: try #require(installed("env")), arguments: [String]()), sandbox: scratch.sandbox)
    let names = String(decoding: result.output, as: UTF8.self).split(separator: "\n").map {
      String($0.prefix { $0 != "=" })
    }
    #expect(Set(names) == Set(["LC_ALL", "PATH", "TMPDIR"] + (scratch.sandbox.home == nil ? [] : ["HOME"])))
    #expect(String(decoding: result.output, as: UTF8.self).contains("LC_ALL=C.UTF-8\n"))
  }

  /// A descriptor another thread opened without O_CLOEXEC does not reach the helper.
  @Test func onlyStdinStdoutAndStderrAreOpenInTheHelper() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let leaked = open("/dev/null", O_RDONLY)  // no O_CLOEXEC, on purpose
    defer { close(leaked) }
    let result = try await HelperProcess.run(
      HelperCommand(executable: try #require(installed("ls")), arguments: ["/proc/self/fd"]), sandbox: scratch.sandbox)
    let open = Set(String(decoding: result.output, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) })
    // ls's own descriptor for the folder it lists is the one above 2.
    #expect(!open.contains(leaked))
    #expect(open.filter { $0 > 2 }.count <= 1)
  }

  @Test func aMissingProgramIsAnErrorValueAndNoProcess() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    await #expect(throws: HelperError.self) {
      try await HelperProcess.run(
        HelperCommand(executable: scratch.root + "/no-such-tool", arguments: [String]()), sandbox: scratch.sandbox)
    }
    #expect(scratch.sandbox.locate("no-such-tool-\(getpid())") == nil)
    #expect(scratch.sandbox.locate("sh")?.hasPrefix("/") == true)
  }

  @Test func aHelperThatEndsLeavesNothingOfItsGroupBehind() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    // The background sleep holds stdout open: the run must end when the leader does, not at EOF.
    let leaver = try scratch.script("leave-a-child", "sleep 1000 &\necho $!")
    var limits = HelperLimits()
    limits.deadline = .seconds(600)

    let result = try await HelperProcess.run(
      leaver, sandbox: scratch.sandbox, limits: limits)

    #expect(result.succeeded)
    let grandchild = try #require(
      Int32(String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .newlines)))
    #expect(ProcessEntry(pid: result.pid) == nil)
    #expect(await eventually { ProcessEntry(pid: grandchild)?.isAlive != true })
  }

  @Test func stderrIsKeptApartAndCapped() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let noisy = try scratch.script("noisy", "echo out\nyes complaint | head -c 100000 >&2\nexit 3")
    let result = try await HelperProcess.run(
      noisy, sandbox: scratch.sandbox)
    #expect(result.output == Array("out\n".utf8))
    #expect(result.errorOutput.count == 4 * 1024)
    #expect(result.termination == .exited(3))
    #expect(result.stop == nil)
  }
}
