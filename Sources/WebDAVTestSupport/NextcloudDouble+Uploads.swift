import Foundation
import TestSupport

/// Chunked upload v2 as the Nextcloud developer manual describes it ("Chunked file upload",
/// client_apis/WebDAV/chunking.rst), at `remote.php/dav/uploads/USER/`:
///
/// - MKCOL of an upload folder, with a `Destination` naming the file in the user's files;
/// - PUT of chunks named by a number from 1 to 10000 (leading zeros allowed, as the manual's
///   `00001`), each with `Destination`; `OC-Total-Length` over the quota is refused with 507 at
///   once (the manual: "It will reject the chunk with a 507 Insufficient Storage error");
/// - MOVE of `.file` to the destination assembles the chunks in the order of their numbers, and
///   refuses (400) chunks smaller than 5 MB but the last ("The size of chunks must be between 5MB
///   and 5GB (except for the last chunk, which can be smaller)"; a test may lower the minimum)
///   and a size other than `OC-Total-Length`; the upload folder goes once the file is there;
/// - DELETE of the folder gives the upload up; chunks cannot be read back (no GET).
///
/// The assembling MOVE is conditional as SabreDAV evaluates it: `Overwrite: F` over an existing
/// file is 412, and RFC 4918's tagged `If: <destination> (["etag"])` (what Nextcloud's desktop
/// client sends on this MOVE, since a plain `If-Match` would be about the `.file`) is 412 unless
/// the destination is at that ETag.
extension NextcloudDouble {
  /// The numbers of the chunks stored so far, in the order their PUTs came (201 answers only).
  public var chunkPuts: [Int] { lock.withLock { chunkPutLog } }

  /// The PUT of chunk `n` waits, its body received, until ``releaseHeldChunk()``: a test catches an
  /// upload in the middle (and may `kill -9` the client); the chunk is then stored as the server
  /// would store a body it received whole.
  public func holdPut(ofChunk n: Int) { chunkHold.hold(n) }

  /// Whether the held chunk's PUT has arrived.
  public var heldChunkArrived: Bool { chunkHold.arrived }

  /// Lets the held chunk's PUT go on.
  public func releaseHeldChunk() { chunkHold.release() }

  /// The next PUT of chunk `n` fails with 503, as if the connection were lost during it.
  public func failNextPut(ofChunk n: Int) { lock.withLock { _ = failingChunks.insert(n) } }

  /// Another client writes `text` to `path` just before the next assembly: after the chunks,
  /// before the MOVE that would replace it.
  public func writeBeforeNextAssembly(_ path: String, _ text: String) {
    lock.withLock { writeBeforeAssembly = (path, Array(text.utf8)) }
  }

  /// The smallest chunk, but the last, that an assembly accepts (5 MB, as documented; tests
  /// lower it to keep files small).
  public var chunkMinimumBytes: Int {
    get { lock.withLock { chunkMinimum } }
    set { lock.withLock { chunkMinimum = newValue } }
  }

  /// The upload folders on the server (started, not assembled or given up).
  public var uploadFolderNames: [String] { lock.withLock { Array(uploadFolders.keys).sorted() } }

  /// Answers a request below the uploads collection (the lock is held).
  func uploads(_ r: ScriptedHTTPServer.Received, _ path: String) -> [UInt8] {
    let parts = path.split(separator: "/").map(String.init)
    let filesBase = "/remote.php/dav/files/\(user)"
    guard let id = parts.first else { return status("405 Method Not Allowed") }
    switch (r.method, parts.count) {
    case ("MKCOL", 1):
      if uploadFolders[id] != nil { return status("405 Method Not Allowed") }
      guard let target = destination(r, under: filesBase) else { return status("400 Bad Request") }
      uploadFolders[id] = (target, [:])
      return status("201 Created")
    case ("PROPFIND", 1):
      guard let folder = uploadFolders[id] else { return status("404 Not Found") }
      let base = "/remote.php/dav/uploads/\(user)/\(encode(id))/"
      var responses = [
        "<d:response><d:href>\(base)</d:href><d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop>"
          + "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
      ]
      if r.headers["depth"] == "1" {
        for (n, bytes) in folder.chunks.sorted(by: { $0.key < $1.key }) {
          responses.append(
            "<d:response><d:href>\(base)\(String(format: "%05d", n))</d:href><d:propstat><d:prop><d:resourcetype/>"
              + "<d:getcontentlength>\(bytes.count)</d:getcontentlength></d:prop><d:status>HTTP/1.1 200 OK</d:status>"
              + "</d:propstat></d:response>")
        }
      }
      return multistatus(responses)
    case ("PUT", 2):
      guard uploadFolders[id] != nil else { return status("404 Not Found") }
      guard destination(r, under: filesBase) != nil, let n = Int(parts[1]), (1...10_000).contains(n) else {
        return status("400 Bad Request")
      }
      if r.body.count > 5 << 30 { return status("400 Bad Request") }
      if let total = r.headers["oc-total-length"].flatMap({ Int64($0) }), total > quotaLeft() {
        return ScriptedHTTPServer.answer(
          "507 Insufficient Storage",
          xml: sabreError("Sabre\\DAV\\Exception\\InsufficientStorage", "Insufficient space in /files, \(total) required"))
      }
      if failingChunks.remove(n) != nil { return status("503 Service Unavailable") }
      uploadFolders[id]!.chunks[n] = r.body
      chunkPutLog.append(n)
      return status("201 Created")
    case ("MOVE", 2) where parts[1] == ".file":
      guard let folder = uploadFolders[id] else { return status("404 Not Found") }
      guard let target = destination(r, under: filesBase) else { return status("400 Bad Request") }
      return assemble(r, id, folder.chunks, to: target)
    case ("DELETE", 1):
      guard uploadFolders.removeValue(forKey: id) != nil else { return status("404 Not Found") }
      return status("204 No Content")
    case ("GET", _):
      return status("403 Forbidden")  // "Chunks cannot be downloaded from the upload directory"
    default:
      return status("405 Method Not Allowed")
    }
  }

  private func quotaLeft() -> Int64 {
    quota - nodes.values.reduce(Int64(0)) { $0 + Int64($1.bytes.count) }
  }

  private func assemble(_ r: ScriptedHTTPServer.Received, _ id: String, _ chunks: [Int: [UInt8]], to target: String) -> [UInt8] {
    if let (path, bytes) = writeBeforeAssembly, let node = nodes[path] {
      writeBeforeAssembly = nil
      counter += 1
      nodes[path] = Node(isFolder: false, bytes: bytes, etag: counter, modified: tick(), fileID: node.fileID, permissions: node.permissions)
      changedBelow(path)
    }
    let ordered = chunks.sorted { $0.key < $1.key }
    if ordered.dropLast().contains(where: { $0.value.count < chunkMinimum }) {
      return ScriptedHTTPServer.answer(
        "400 Bad Request", xml: sabreError("Sabre\\DAV\\Exception\\BadRequest", "Chunk too small (all but the last must be 5 MB or more)"))
    }
    let bytes = ordered.flatMap(\.value)
    if let total = r.headers["oc-total-length"].flatMap({ Int($0) }), total != bytes.count {
      return ScriptedHTTPServer.answer(
        "400 Bad Request", xml: sabreError("Sabre\\DAV\\Exception\\BadRequest", "Expected \(total) bytes, got \(bytes.count)"))
    }
    let parent = target.contains("/") ? String(target[..<target.lastIndex(of: "/")!]) : ""
    guard let folder = nodes[parent], folder.isFolder else { return status("409 Conflict") }
    let existing = nodes[target]
    if let existing {
      if existing.isFolder { return status("405 Method Not Allowed") }
      if r.headers["overwrite"] == "F" { return status("412 Precondition Failed") }
      if !existing.permissions.contains("W") { return forbidden() }
    } else if !folder.permissions.contains("C") {
      return forbidden()
    }
    if let condition = r.headers["if"], let open = condition.firstIndex(of: "["), let close = condition.lastIndex(of: "]") {
      let etag = condition[condition.index(after: open)..<close].trimmingCharacters(in: .whitespaces)
      guard let existing, etag == "\"\(existing.etag)\"" else { return status("412 Precondition Failed") }
    }
    if Int64(bytes.count) > quotaLeft() + Int64(existing?.bytes.count ?? 0) {
      return ScriptedHTTPServer.answer(
        "507 Insufficient Storage",
        xml: sabreError("Sabre\\DAV\\Exception\\InsufficientStorage", "Insufficient space in /files, \(bytes.count) required"))
    }
    counter += 1
    let etag = counter
    let fileID = existing?.fileID ?? etag
    nodes[target] = Node(
      isFolder: false, bytes: bytes, etag: etag, modified: tick(), fileID: fileID, permissions: existing?.permissions ?? "RGDNVW")
    changedBelow(target)
    uploadFolders[id] = nil
    return ScriptedHTTPServer.answer(
      existing == nil ? "201 Created" : "204 No Content",
      headers: [("ETag", "\"\(etag)\""), ("OC-ETag", "\"\(etag)\""), ("OC-FileId", String(format: "%08docinstance", fileID))])
  }
}

/// One chunk number whose PUT waits until released.
final class ChunkHold: @unchecked Sendable {
  private let lock = NSLock()
  private var held: Int?
  private var came = false
  private let gate = DispatchSemaphore(value: 0)

  func hold(_ n: Int) { lock.withLock { held = n } }
  var arrived: Bool { lock.withLock { came } }
  func release() {
    let waiting = lock.withLock { () -> Bool in
      defer { held = nil }
      return came && held != nil
    }
    if waiting { gate.signal() }
  }

  func wait(ifHeld n: Int) {
    let hold = lock.withLock { () -> Bool in
      guard held == n, !came else { return false }
      came = true
      return true
    }
    if hold { gate.wait() }
  }
}
