import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Serves ssh's prompts to the caller's handler over a Unix socket in a private folder.
///
/// ssh runs SSH_ASKPASS as a child with the prompt as argv[1] and reads the answer from its stdout
/// (OpenSSH `readpass.c`). That child is the askpass helper (`folio askpass` or ``AskpassHelper``);
/// it finds this relay through `FOLIO_ASKPASS_SOCKET` in the environment it inherits from ssh. The
/// socket lives in a fresh 0700 folder, so only our own user can connect, and the relay also checks
/// the peer's uid (SO_PEERCRED). A socket rather than a FIFO pair: each prompt gets its own
/// connection, so concurrent prompts of several ssh processes cannot interleave.
public final class AskpassRelay: @unchecked Sendable {
  /// Where the helper connects: give it as `FOLIO_ASKPASS_SOCKET` to whatever runs the helper.
  public let socketPath: String
  private let folder: String
  private let listener: Int32
  private let handler: SSHPromptHandler
  private let lock = NSLock()
  private var stopped = false
  /// The secrets this ssh process asked for so far (one relay per connection): numbers each
  /// secret prompt (``SSHPrompt/attempt``).
  private var secretsAsked = 0

  public init(handler: @escaping SSHPromptHandler) throws {
    var template = Array((NSTemporaryDirectory() + "/folio-askpass-XXXXXX").utf8CString)
    guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw SFTPError(.sshFailed, "could not make the askpass folder: \(String(cString: strerror(errno)))")
    }
    folder = String(cString: created)
    socketPath = folder + "/socket"
    guard let fd = UnixSocket.listen(at: socketPath) else {
      rmdir(folder)
      throw SFTPError(.sshFailed, "could not listen for askpass prompts at \(socketPath)")
    }
    listener = fd
    self.handler = handler
    let thread = Thread { [self] in acceptLoop() }
    thread.name = "askpass relay"
    thread.start()
  }

  /// Stops accepting and removes the socket and its folder.
  public func stop() {
    lock.lock()
    let wasStopped = stopped
    stopped = true
    lock.unlock()
    guard !wasStopped else { return }
    shutdown(listener, Int32(SHUT_RDWR))  // wakes accept() on Linux
    unlink(socketPath)
    rmdir(folder)
  }

  deinit { stop() }

  private func acceptLoop() {
    while true {
      let client = accept(listener, nil, nil)
      if client < 0 {
        if errno == EINTR || errno == ECONNABORTED { continue }
        break
      }
      guard Self.peerIsOurUser(client) else {
        close(client)
        continue
      }
      let handler = handler
      Thread.detachNewThread { [self] in
        serve(client, handler: handler)
      }
    }
    close(listener)
  }

  /// One prompt: read it, ask the handler (async; this thread waits), write the answer.
  private func serve(_ client: Int32, handler: @escaping SSHPromptHandler) {
    defer { close(client) }
    guard let frame = UnixSocket.readFrame(client), let (hint, text) = AskpassWire.parse(frame) else { return }
    var prompt = SSHPrompt(hint: hint, text: text)
    if prompt.kind == .secret {
      // ssh asks one question at a time, so the count is the order it asked them in.
      lock.lock()
      secretsAsked += 1
      prompt.attempt = secretsAsked
      lock.unlock()
    }
    // The handler runs on this thread (a task executor whose jobs this thread runs while it
    // waits), not on the cooperative pool: with the pool's few threads busy (two cores, blocking
    // work elsewhere) a prompt once waited until ssh gave up — "host key refused" without the
    // person ever being asked. Hops to other actors (the browser's loop) go to their own
    // executors, and come back here.
    let executor = AnswerExecutor()
    Task(executorPreference: executor) { executor.put(await handler(prompt)) }
    let answer = executor.runUntilAnswered()
    let reply: [UInt8] =
      switch answer {
      case .secret(let secret): AskpassWire.frame(AskpassWire.answered, Array(secret.utf8))
      case .accept: AskpassWire.frame(AskpassWire.answered, Array((prompt.kind == .secret ? "" : "yes").utf8))
      case .refuse: AskpassWire.frame(AskpassWire.refused, [])
      }
    _ = UnixSocket.writeAll(client, reply)
  }

  private static func peerIsOurUser(_ fd: Int32) -> Bool {
    #if canImport(Glibc)
      // struct ucred {pid_t pid; uid_t uid; gid_t gid;}: declared only under _GNU_SOURCE.
      var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
      var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
      guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return false }
      return credentials.uid == getuid()
    #else
      return true
    #endif
  }
}

/// Runs one prompt's handler on the relay's own thread, and hands its answer back: the thread
/// that waits for the answer runs the handler's jobs meanwhile.
private final class AnswerExecutor: TaskExecutor, @unchecked Sendable {
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []
  private var answer: SSHPromptAnswer?

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  func put(_ value: SSHPromptAnswer) {
    condition.lock()
    answer = value
    condition.signal()
    condition.unlock()
  }

  /// Runs the jobs given to this executor until the handler answered.
  func runUntilAnswered() -> SSHPromptAnswer {
    let me = asUnownedTaskExecutor()
    while true {
      condition.lock()
      while answer == nil && jobs.isEmpty { condition.wait() }
      if let answer {
        condition.unlock()
        return answer
      }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(on: me)
    }
  }
}
