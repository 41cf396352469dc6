import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Groups 1 and 2: the handshake, the exit, and what may appear on stdout.
extension ConformanceKit {
  func runHandshake() {
    var s: ExtensionSession?
    check("describe-before-initialize") {
      let session = try start()
      s = session
      let result = try expectResult(session.call("describe", [:], timeout: 10), "describe")
      try expect(result["extension"]?["name"]?.string?.isEmpty == false, "describe: no extension.name")
      let protocols = result["protocols"]?.array?.compactMap(\.int) ?? []
      try expect(protocols.contains(1), "describe: protocols \(result["protocols"]?.compact ?? "missing") does not list 1")
      describeResult = result
    }
    check("request-before-initialize-is-32002") {
      guard let s else { throw CheckSkip("the extension did not start") }
      try expectError(s.call("item", ["id": "#root"], timeout: 10), [-32002], "item before initialize")
    }
    check("initialize-within-10s") {
      guard let s else { throw CheckSkip("the extension did not start") }
      let result = try expectResult(s.call("initialize", initializeParams(config: options.config), timeout: 10), "initialize")
      try expect(result["protocol"]?.int == 1, "initialize: protocol \(result["protocol"]?.compact ?? "missing"), expected 1")
      try expect(result["capabilities"] == nil || result["capabilities"]?.object != nil, "initialize: capabilities is not an object")
      initializeResult = result
      caps = DeclaredCapabilities(result["capabilities"])
    }
    check("unknown-method-is-32601") {
      guard let s, initializeResult != nil else { throw CheckSkip("not initialized") }
      try expectError(s.call("folio.kit/frobnicate", ["x": 1], timeout: 10), [-32601], "an unknown method")
    }
    check("exit-0-after-shutdown-and-eof") {
      guard let s else { throw CheckSkip("the extension did not start") }
      let reply = s.call("shutdown", [:], timeout: 10)
      try expect(reply.result == .null, "shutdown: expected the result null, got \(reply.summary)")
      s.process.closeInput()
      let status = s.process.waitForExit(until: Date().addingTimeInterval(2))
      guard let status else {
        s.process.terminate()
        throw CheckFailure("still running 2 s after shutdown and EOF on stdin")
      }
      try expect(status == 0, "after shutdown and EOF: \(ExtensionProcess.describe(status: status)), expected exit 0")
    }
    check("exit-within-2s-after-sigterm") {
      let session = try open()
      _ = session.call("item", ["id": "#root"])
      session.process.signal(SIGTERM)
      let status = session.process.waitForExit(until: Date().addingTimeInterval(2))
      session.transcript.record("!!", "SIGTERM sent to the process group")
      if status == nil {
        session.process.terminate()
        throw CheckFailure("still running 2 s after SIGTERM")
      }
    }
  }

  func runPurity() {
    var s: ExtensionSession?
    check("nothing-before-the-first-answer") {
      let session = try start()
      s = session
      _ = try expectResult(session.call("describe", [:], timeout: 10), "describe")
      try expect(
        session.beforeFirstAnswer.isEmpty,
        "printed before its first answer: \(session.beforeFirstAnswer.first.map { String($0.prefix(200)) } ?? "")")
    }
    check("malformed-host-line-survived") {
      guard let s else { throw CheckSkip("the extension did not start") }
      learn(try expectResult(s.call("initialize", initializeParams(config: options.config), timeout: 10), "initialize"))
      s.sendLine("this is not JSON")
      s.sendLine("{\"jsonrpc\":\"2.0\",\"id\":")
      let root = s.call("item", ["id": "#root"], timeout: 10)
      if let answer = s.takeNullIDAnswer() {
        try expect(
          answer.errorCode == -32700 || answer.errorCode == -32600,
          "a malformed line: expected -32700 (or nothing), got \(answer.summary)")
      }
      try expect(root.result != nil || root.errorCode != nil, "after two malformed lines, item #root: \(root.summary)")
    }
    check("every-stdout-line-is-json-rpc") {
      guard let s else { throw CheckSkip("the extension did not start") }
      _ = s.call("item", ["id": "#root"], timeout: 10)
      _ = s.call(
        "enumerateItems", ["container": "#root", "pageSize": 100, "includeHidden": true], timeout: 30)
      if caps.feed { _ = s.call("currentSyncAnchor", ["container": "#working-set"], timeout: 30) }
      let ended = s.shutdown()
      try expect(s.noise.isEmpty, "stdout noise: \(s.noise.first.map { String($0.prefix(200)) } ?? "")")
      try expect(s.strayAnswers.isEmpty, "an answer to an id never sent: \(s.strayAnswers.first ?? "")")
      try expect(ended.graceful, "did not exit after shutdown and EOF")
    }
  }

  /// Group 11, and the whole run's stdout.
  func runCapabilities() {
    check("stdout-pure-in-every-session") {
      let noisy = sessions.flatMap(\.noise)
      try expect(noisy.isEmpty, "\(noisy.count) line(s) of stdout noise in this run, first: \(noisy.first.map { String($0.prefix(200)) } ?? "")")
      let stray = sessions.flatMap(\.strayAnswers)
      try expect(stray.isEmpty, "an answer to an id never sent: \(stray.first ?? "")")
    }
    check("no-crash-during-the-run") {
      try expect(
        unexpectedExits.isEmpty,
        "the extension stopped \(unexpectedExits.count) time(s) without being asked: \(unexpectedExits.joined(separator: ", "))")
    }
    check("declared-capabilities-are-valid") {
      _ = try session()
      let c = caps.raw
      for key in ["metadata", "downloads", "uploads"] {
        if let n = c["concurrency"]?[key] {
          try expect(n.int.map { (1...128).contains($0) } ?? false, "concurrency.\(key) = \(n.compact), expected 1 to 128")
        }
      }
      let known: Set<String> = ["name", "parent", "contents", "modified", "tags", "favoriteRank", "lastUsed"]
      let unknown = caps.modify.subtracting(known)
      try expect(unknown.isEmpty, "write.modify names unknown fields: \(unknown.sorted())")
      if let identity = c["identity"] {
        try expect(identity == "stable" || identity == "path", "identity \(identity.compact), expected stable or path")
      }
      var undeclared: [String] = []
      if caps.readOnly { undeclared.append("writes") }
      if !caps.feed { undeclared.append("changes") }
      if !caps.ranges { undeclared.append("ranges") }
      if !caps.byteNames { undeclared.append("byteNames") }
      if !undeclared.isEmpty { transcript.record("!!", "not declared, so not exercised: \(undeclared.joined(separator: ", "))") }
    }
  }
}
