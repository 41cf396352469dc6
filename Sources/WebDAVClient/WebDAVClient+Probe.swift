import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What ``WebDAVClient/probe(scratchName:in:)`` found the server really does.
public struct WebDAVProbe: Sendable, Equatable {
  /// A second create with `If-None-Match: *` was refused with 412.
  public var refusesCreateOverExisting: Bool
  /// A write with `If-Match` of a version that is not there was refused with 412.
  public var refusesStaleIfMatch: Bool
  /// A reader saw a PUT's new bytes (or a truncated file) before the PUT ended: the server writes
  /// into the file itself, so an interrupted upload leaves it cut short (wsgidav, rclone's
  /// x/net/webdav). False: readers kept the old bytes until the end (Apache, nginx). Nil: it
  /// could not be told (a read waited for the write to end).
  public var replacesInPlace: Bool?

  /// Both conditional writes were refused as they must be: `If-Match` / `If-None-Match: *` can be
  /// trusted to guard against lost edits. False: the server ignores them (nginx, rclone), and the
  /// location has to say it cannot detect conflicting edits (issue 11 §1).
  public var honoursConditionalWrites: Bool { refusesCreateOverExisting && refusesStaleIfMatch }
}

extension WebDAVClient {
  /// Runs issue 11 §1's probe for HTTP storage on a scratch name in `folder`:
  /// 1. create it with `If-None-Match: *` (must succeed), then again (must be refused);
  /// 2. write it with `If-Match` of a version that does not exist (must be refused);
  /// 3. start replacing it, hold the body one byte before its end, and read it meanwhile: old
  ///    bytes mean the server writes elsewhere and renames at the end, anything else that it
  ///    writes in place;
  /// 4. delete it — also when a step failed.
  ///
  /// - Parameters:
  ///   - scratchName: The name to use; `.folio-probe-<random>` by default. It must not exist.
  ///   - inPlaceBudget: How long step 3 watches for new bytes before it concludes the server does
  ///     not write in place. A server that writes in place shows them within milliseconds; the
  ///     bound only ends the watch on one that does not.
  /// - Throws: `conflict` when the scratch name already exists; the errors of the requests.
  public func probe(
    scratchName: [UInt8]? = nil, in folder: WebDAVPath = .root, inPlaceBudget: Duration = .seconds(5)
  ) async throws(WebDAVError) -> WebDAVProbe {
    let name = scratchName ?? Array((".folio-probe-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)).utf8)
    let path = try folder.appending(name)
    let old = Array(repeating: UInt8(ascii: "o"), count: 64 * 1024)
    do throws(WebDAVError) {
      _ = try await upload(bytes: old, to: path, condition: .ifNoneMatch)
    } catch where error.code == .preconditionFailed {
      throw WebDAVError(.conflict, "the probe's scratch name \(path) already exists on \(server)")
    }
    do throws(WebDAVError) {
      let refusesCreate = try await refused { () async throws(WebDAVError) in
        _ = try await self.upload(bytes: old, to: path, condition: .ifNoneMatch)
      }
      let refusesIfMatch = try await refused { () async throws(WebDAVError) in
        _ = try await self.upload(bytes: Array("stale".utf8), to: path, condition: .ifMatch("\"folio-probe-no-such-version\""))
      }
      if !refusesIfMatch || !refusesCreate { _ = try await upload(bytes: old, to: path) }
      let inPlace = try await watchReplace(path, old: old, budget: inPlaceBudget)
      try? await delete(path)
      return WebDAVProbe(refusesCreateOverExisting: refusesCreate, refusesStaleIfMatch: refusesIfMatch, replacesInPlace: inPlace)
    } catch {
      try? await delete(path)
      throw error
    }
  }

  /// Whether `write` was refused with 412 (true) or done (false).
  private func refused(_ write: () async throws(WebDAVError) -> Void) async throws(WebDAVError) -> Bool {
    do throws(WebDAVError) {
      try await write()
      return false
    } catch where error.code == .preconditionFailed {
      return true
    }
  }

  /// Step 3 of the probe: a PUT held before its last byte, and reads of the file meanwhile.
  private func watchReplace(_ path: WebDAVPath, old: [UInt8], budget: Duration) async throws(WebDAVError) -> Bool? {
    let new = Array(repeating: UInt8(ascii: "n"), count: 256 * 1024)
    let gate = ProbeGate()
    var body = UploadBody(source: .bytes(new), length: Int64(new.count))
    body.holdAt = Int64(new.count - 1)
    body.hold = { await gate.reachedHold() }
    let upload = Task { () async -> Result<WebDAVUpload, WebDAVError> in
      // Whatever happens, the watch must not wait for a hold that will not come.
      defer { gate.release() }
      do throws(WebDAVError) {
        return .success(try await self.put(body, to: path, condition: .none, contentType: nil))
      } catch {
        return .failure(error)
      }
    }
    defer { gate.release() }
    guard await gate.waitUntilHeld() else {
      // The PUT ended before its hold: the server answered early (an error, most likely).
      _ = try await upload.value.get()
      return nil
    }
    let clock = ContinuousClock()
    let deadline = clock.now + budget
    var pause = Duration.milliseconds(10)
    var verdict: Bool? = false
    while true {
      let seen: [UInt8]
      do throws(WebDAVError) {
        seen = try await read(path, limit: new.count + old.count, timeout: .seconds(5))
      } catch where error.code == .unreachable {
        verdict = nil  // the read waited for the write: no telling
        break
      } catch where error.code == .notFound {
        verdict = true  // the old file was removed before the new one was complete
        break
      }
      if seen != old {
        verdict = true
        break
      }
      if clock.now >= deadline { break }
      try? await Task.sleep(for: pause)
      pause = min(pause * 2, .milliseconds(250))
    }
    gate.release()
    _ = try await upload.value.get()
    return verdict
  }

  /// A small file's bytes through the async API, bounded by `limit`.
  private func read(_ path: WebDAVPath, limit: Int, timeout: Duration) async throws(WebDAVError) -> [UInt8] {
    let response = try await send(.GET, try url(path), headers: headers(), operation: .get, subject: path, timeout: timeout)
    do {
      let buffer = try await response.body.collect(upTo: limit)
      return Array(buffer.readableBytesView)
    } catch {
      throw StatusMapping.transport(error, server: server)
    }
  }
}

/// The probe's upload, held before its last byte until the watch is over.
final class ProbeGate: @unchecked Sendable {
  private let lock = NSLock()
  private var held = false
  private var released = false
  private var heldWaiter: CheckedContinuation<Bool, Never>?
  private var releaseWaiter: CheckedContinuation<Void, Never>?

  /// The body reached its hold (in the upload's task): waits for ``release()``.
  func reachedHold() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let (wake, go) = lock.withLock { () -> (CheckedContinuation<Bool, Never>?, Bool) in
        held = true
        defer { heldWaiter = nil }
        if released { return (heldWaiter, true) }
        releaseWaiter = continuation
        return (heldWaiter, false)
      }
      wake?.resume(returning: true)
      if go { continuation.resume() }
    }
  }

  /// True once the body is held; false when it was released first.
  func waitUntilHeld() async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      let answer = lock.withLock { () -> Bool? in
        if held { return true }
        if released { return false }
        heldWaiter = continuation
        return nil
      }
      if let answer { continuation.resume(returning: answer) }
    }
  }

  /// Lets the body go on (safe to call twice).
  func release() {
    let (wake, go) = lock.withLock { () -> (CheckedContinuation<Bool, Never>?, CheckedContinuation<Void, Never>?) in
      released = true
      defer {
        heldWaiter = nil
        releaseWaiter = nil
      }
      return (heldWaiter, releaseWaiter)
    }
    wake?.resume(returning: false)
    go?.resume()
  }
}
