import Foundation
import TestSupport

/// A Nextcloud account's WebDAV endpoints as Nextcloud's documentation describes them (NC
/// basic.rst, trashbin.rst), for the dialect code path: Nextcloud itself (PHP, a database) cannot
/// run here. Answers are recorded from the documented formats — `d:`/`oc:`/`nc:` namespaces,
/// `oc:fileid`, `oc:permissions` (letters G D N V W C K S), RFC 4331 quota on the top, 404
/// propstats for what an item lacks, the trash bin at `remote.php/dav/trashbin/USER/trash/` with
/// `nc:trashbin-filename`, `-original-location`, `-deletion-time`, Put Back as a MOVE to
/// `…/restore/NAME`, 507 with a Sabre error body over quota, `If-Match` / `If-None-Match: *`
/// honoured (ownCloud's protocol tests; SabreDAV), favorites as `oc:favorite` (`0`/`1`) set by a
/// PROPPATCH and answered 207 with the property's propstat (NC basic.rst "Settings favorites";
/// the server's TagsPlugin answers 200 for it; a favorite does not change the ETag:
/// owncloud/core#16589), and paginated PROPFIND (`X-NC-Paginate`, `-Count`, `-Token`,
/// `-Offset`; `-Total` in the answer) as `apps/dav/lib/Paginate/PaginatePlugin.php` does it: the
/// first page and a token for a snapshot of the rest, later pages served from that snapshot, an
/// unknown token answered with a fresh listing from the offset. A folder's ETag changes whenever
/// anything below it changes, up to the top (Nextcloud propagates it to every ancestor:
/// remote-providers.md §4.2, §4.5), but not for a favorite.
///
/// Chunked upload v2 at `remote.php/dav/uploads/USER/` is in ``NextcloudDouble+Uploads.swift``,
/// system tags (`nc:system-tags`, `systemtags/`, `systemtags-relations/`) in ``NextcloudDouble+Tags.swift``.
///
/// The state is in memory: files by path relative to the user's top, the bin, and upload folders.
public final class NextcloudDouble: @unchecked Sendable {
  public let user = "alice"
  public let password = "correct horse"
  let lock = NSLock()
  private var server: ScriptedHTTPServer?

  struct Node {
    var isFolder: Bool
    var bytes: [UInt8] = []
    var etag: Int
    var modified: Date
    var fileID: Int
    var permissions: String
    var favorite = false
  }

  struct Binned {
    var name: String
    var original: String
    var deleted: Date
    /// The item and what was below it, by path relative to the item ("" for itself).
    var nodes: [String: Node]
  }

  var nodes: [String: Node] = [:]
  private var bin: [String: Binned] = [:]
  var counter = 1000
  private var clock = Date(timeIntervalSince1970: 1_700_000_000)
  /// Bytes the account may hold.
  public var quotaBytes: Int64 {
    get { lock.withLock { quota } }
    set { lock.withLock { quota = newValue } }
  }
  var quota: Int64 = 1 << 30

  public init() throws {
    nodes[""] = Node(isFolder: true, etag: 1, modified: clock, fileID: 1, permissions: "RGDNVCK")
    server = try ScriptedHTTPServer { [unowned self] request, _ in self.answer(request) }
  }

  public func stop() { server?.stop() }

  public var origin: String { "http://127.0.0.1:\(server!.port)" }
  /// The user's files, as a Nextcloud client is pointed at them.
  public var filesURL: URL { URL(string: origin + "/remote.php/dav/files/\(user)/")! }

  /// Makes a folder (the owner's, with every permission, or `permissions`) or a file directly.
  public func put(_ path: String, folder: Bool = false, _ text: String = "", permissions: String? = nil) {
    lock.withLock {
      counter += 1
      nodes[path] = Node(
        isFolder: folder, bytes: Array(text.utf8), etag: counter, modified: tick(), fileID: counter,
        permissions: permissions ?? (folder ? "RGDNVCK" : "RGDNVW"))
      changedBelow(path)
    }
  }

  /// The ETag of every folder above `path`, up to the top, moves (what Nextcloud does when
  /// anything below a folder is created, written, moved or deleted).
  func changedBelow(_ path: String) {
    var folder = path
    while !folder.isEmpty {
      folder = folder.contains("/") ? String(folder[..<folder.lastIndex(of: "/")!]) : ""
      counter += 1
      nodes[folder]?.etag = counter
    }
  }

  /// The bytes of the file at `path` (nil: none).
  public func bytes(_ path: String) -> [UInt8]? { lock.withLock { nodes[path].flatMap { $0.isFolder ? nil : $0.bytes } } }

  public func contents(_ path: String) -> String? {
    lock.withLock { nodes[path].map { String(decoding: $0.bytes, as: UTF8.self) } }
  }

  public var binNames: [String] { lock.withLock { Array(bin.keys) } }

  /// Whether the account has the item as a favorite (nil: no such item).
  public func isFavorite(_ path: String) -> Bool? { lock.withLock { nodes[path]?.favorite } }

  /// Another client (the web interface, the phone) marks or unmarks a favorite.
  public func setFavorite(_ path: String, _ on: Bool) { lock.withLock { nodes[path]?.favorite = on } }

  /// Whether the server pages listings (false: a server without the plugin, which ignores the
  /// headers and answers whole).
  public var paginates: Bool {
    get { lock.withLock { paging } }
    set { lock.withLock { paging = newValue } }
  }
  private var paging = true
  /// PROPFINDs that asked for pages, and how many of them got one.
  public var pageRequests: (asked: Int, paged: Int) { lock.withLock { (pagesAsked, pagesServed) } }
  private var pagesAsked = 0
  private var pagesServed = 0
  /// Snapshots of paged listings by token: the URL listed and every response of it.
  private var pageCache: [String: (url: String, responses: [String])] = [:]

  /// The server forgets its paged listings (Nextcloud's cache expires them).
  public func expirePages() { lock.withLock { pageCache.removeAll() } }

  /// The PROPFINDs of the user's files answered, in order, as "DEPTH PATH" (the path relative
  /// to the user's top, "" for the top): what a test of the poller's sweep counts.
  public var propfinds: [String] { lock.withLock { propfindLog } }
  private var propfindLog: [String] = []

  /// Chunked uploads under way, by folder name: the `Destination` given at MKCOL and the chunks
  /// by number (NextcloudDouble+Uploads.swift).
  var uploadFolders: [String: (destination: String, chunks: [Int: [UInt8]])] = [:]
  /// System tags by id, and which tags each file id has (NextcloudDouble+Tags.swift).
  var systemTagNames: [Int: String] = [:]
  var tagRelations: [Int: Set<Int>] = [:]
  var chunkPutLog: [Int] = []
  /// A chunk PUT held before it is answered (NextcloudDouble+Uploads.swift).
  let chunkHold = ChunkHold()
  var chunkMinimum = 5 << 20
  /// Chunk numbers whose next PUT fails (a connection lost mid-upload, as the client sees it).
  var failingChunks: Set<Int> = []
  /// What another client writes just before the next assembly (between the chunks and the MOVE).
  var writeBeforeAssembly: (path: String, bytes: [UInt8])?

  /// PROPPATCHes received, for a test that checks none was sent.
  public var propPatches: Int { lock.withLock { propPatchCount } }
  private var propPatchCount = 0

  func tick() -> Date {
    clock += 1
    return clock
  }

  // MARK: Requests

  private func answer(_ r: ScriptedHTTPServer.Received) -> [UInt8] {
    guard r.headers["authorization"] == "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() else {
      return ScriptedHTTPServer.answer(
        "401 Unauthorized", headers: [("WWW-Authenticate", "Basic realm=\"Nextcloud\", charset=\"UTF-8\"")],
        xml: sabreError("Sabre\\DAV\\Exception\\NotAuthenticated", "No public access to this resource."))
    }
    let target = String(r.target.prefix { $0 != "?" })
    guard let decoded = target.removingPercentEncoding else { return status("400 Bad Request") }
    let filesBase = "/remote.php/dav/files/\(user)"
    let trashBase = "/remote.php/dav/trashbin/\(user)/trash"
    let uploadsBase = "/remote.php/dav/uploads/\(user)"
    if r.method == "PUT", decoded.hasPrefix(uploadsBase + "/"), let n = decoded.split(separator: "/").last.flatMap({ Int($0) }) {
      chunkHold.wait(ifHeld: n)  // outside the lock: the test reads the double meanwhile
    }
    return lock.withLock {
      if decoded.hasPrefix("/remote.php/dav/systemtags") {
        return systemTags(r, String(decoded.dropFirst("/remote.php/dav/".count)))
      }
      if decoded == uploadsBase || decoded.hasPrefix(uploadsBase + "/") {
        return uploads(r, relative(decoded, uploadsBase))
      }
      if decoded == filesBase || decoded.hasPrefix(filesBase + "/") {
        return files(r, relative(decoded, filesBase))
      }
      if decoded == trashBase || decoded.hasPrefix(trashBase + "/") {
        return binned(r, relative(decoded, trashBase))
      }
      return status("404 Not Found")
    }
  }

  func relative(_ decoded: String, _ base: String) -> String {
    String(decoded.dropFirst(base.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
  }

  func destination(_ r: ScriptedHTTPServer.Received, under base: String) -> String? {
    guard let text = r.headers["destination"], let url = URL(string: text), url.path.hasPrefix(base) else { return nil }
    return relative(url.path, base)
  }

  private func files(_ r: ScriptedHTTPServer.Received, _ path: String) -> [UInt8] {
    let parent = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : ""
    switch r.method {
    case "PROPFIND":
      propfindLog.append("\(r.headers["depth"] ?? "infinity") \(path)")
      guard let node = nodes[path] else { return status("404 Not Found") }
      var responses = [response(path, node)]
      if r.headers["depth"] == "1" && node.isFolder {
        for (child, n) in nodes.sorted(by: { $0.key < $1.key }) where isChild(child, of: path) {
          responses.append(response(child, n))
        }
      }
      if r.headers["x-nc-paginate"] != nil { pagesAsked += 1 }
      if paging, r.headers["x-nc-paginate"] == "true" { return paged(r, responses) }
      return multistatus(responses)
    case "GET":
      guard let node = nodes[path], !node.isFolder else { return status("404 Not Found") }
      return ScriptedHTTPServer.answer(
        "200 OK", headers: [("ETag", "\"\(node.etag)\""), ("Last-Modified", httpDate(node.modified))], body: node.bytes)
    case "PUT":
      guard let folder = nodes[parent], folder.isFolder else { return status("409 Conflict") }
      if let existing = nodes[path] {
        if existing.isFolder { return status("405 Method Not Allowed") }
        if r.headers["if-none-match"] == "*" { return status("412 Precondition Failed") }
        if let ifMatch = r.headers["if-match"], ifMatch != "\"\(existing.etag)\"" { return status("412 Precondition Failed") }
        if !existing.permissions.contains("W") { return forbidden() }
      } else {
        if r.headers["if-match"] != nil { return status("412 Precondition Failed") }
        if !folder.permissions.contains("C") { return forbidden() }
      }
      let used = nodes.filter { $0.key != path }.values.reduce(Int64(0)) { $0 + Int64($1.bytes.count) }
      if used + Int64(r.body.count) > quota {
        return ScriptedHTTPServer.answer(
          "507 Insufficient Storage",
          xml: sabreError("Sabre\\DAV\\Exception\\InsufficientStorage", "Insufficient space in /files, \(r.body.count) required"))
      }
      let created = nodes[path] == nil
      counter += 1
      let etag = counter
      nodes[path] = Node(
        isFolder: false, bytes: r.body, etag: etag, modified: tick(), fileID: nodes[path]?.fileID ?? etag,
        permissions: nodes[path]?.permissions ?? "RGDNVW")
      changedBelow(path)
      return ScriptedHTTPServer.answer(
        created ? "201 Created" : "204 No Content", headers: [("ETag", "\"\(etag)\""), ("OC-ETag", "\"\(etag)\"")])
    case "PROPPATCH":
      guard nodes[path] != nil else { return status("404 Not Found") }
      propPatchCount += 1
      // Only what this double knows: `oc:favorite` (the TagsPlugin's property). Anything else is
      // refused in its propstat, as SabreDAV does for a property no plugin takes.
      let body = String(decoding: r.body, as: UTF8.self)
      let href = "/remote.php/dav/files/\(user)/" + encode(path) + (nodes[path]!.isFolder && !path.isEmpty ? "/" : "")
      guard body.contains("http://owncloud.org/ns"), let value = favoriteValue(body) else {
        return multistatus([
          "<d:response><d:href>\(href)</d:href><d:propstat><d:prop/><d:status>HTTP/1.1 403 Forbidden</d:status></d:propstat></d:response>"
        ])
      }
      nodes[path]!.favorite = value
      return multistatus([
        "<d:response><d:href>\(href)</d:href><d:propstat><d:prop><oc:favorite/></d:prop>"
          + "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
      ])
    case "MKCOL":
      if nodes[path] != nil { return status("405 Method Not Allowed") }
      guard nodes[parent]?.isFolder == true else { return status("409 Conflict") }
      counter += 1
      nodes[path] = Node(isFolder: true, etag: counter, modified: tick(), fileID: counter, permissions: "RGDNVCK")
      changedBelow(path)
      return status("201 Created")
    case "DELETE":
      guard let node = nodes[path], !path.isEmpty else { return status("404 Not Found") }
      if !node.permissions.contains("D") { return forbidden() }
      let moved = subtree(path)
      for key in moved.keys { nodes[key == "" ? path : path + "/" + key] = nil }
      let deleted = tick()
      let name = (path.split(separator: "/").last.map(String.init) ?? path) + ".d\(Int(deleted.timeIntervalSince1970))"
      bin[name] = Binned(name: name, original: path, deleted: deleted, nodes: moved)
      changedBelow(path)
      return status("204 No Content")
    case "MOVE", "COPY":
      guard let node = nodes[path] else { return status("404 Not Found") }
      guard let target = destination(r, under: "/remote.php/dav/files/\(user)") else { return status("502 Bad Gateway") }
      if nodes[target] != nil {
        if r.headers["overwrite"] == "F" { return status("412 Precondition Failed") }
      }
      if r.method == "MOVE" && !(node.permissions.contains("N") || node.permissions.contains("V")) { return forbidden() }
      let moving = subtree(path)
      if r.method == "MOVE" { for key in moving.keys { nodes[key == "" ? path : path + "/" + key] = nil } }
      for (key, var n) in moving {
        if r.method == "COPY" {
          counter += 1
          n.fileID = counter
          n.favorite = false  // a favorite is the account's mark on one file id, not copied with it
        }
        nodes[key == "" ? target : target + "/" + key] = n
      }
      if r.method == "MOVE" { changedBelow(path) }
      changedBelow(target)
      return status("201 Created")
    default:
      return status("405 Method Not Allowed")
    }
  }

  private func binned(_ r: ScriptedHTTPServer.Received, _ name: String) -> [UInt8] {
    switch r.method {
    case "PROPFIND":
      if name.isEmpty {
        var responses = [trashResponse(nil)]
        if r.headers["depth"] == "1" { responses += bin.values.sorted { $0.name < $1.name }.map(trashResponse) }
        return multistatus(responses)
      }
      guard let item = bin[name] else { return status("404 Not Found") }
      return multistatus([trashResponse(item)])
    case "MOVE":
      guard let item = bin[name] else { return status("404 Not Found") }
      guard destination(r, under: "/remote.php/dav/trashbin/\(user)/restore") == name else { return status("403 Forbidden") }
      if nodes[item.original] != nil { return status("412 Precondition Failed") }
      for (key, n) in item.nodes { nodes[key == "" ? item.original : item.original + "/" + key] = n }
      changedBelow(item.original)
      bin[name] = nil
      return status("201 Created")
    case "DELETE":
      guard bin.removeValue(forKey: name) != nil else { return status("404 Not Found") }
      return status("204 No Content")
    default:
      return status("405 Method Not Allowed")
    }
  }

  /// A page of a listing (PaginatePlugin): a known token with an offset is served from its
  /// snapshot, marked `X-NC-Paginate: true`; otherwise the listing is cut at the offset, and when
  /// more follows it is kept under a new token named in the answer with the total.
  private func paged(_ r: ScriptedHTTPServer.Received, _ responses: [String]) -> [UInt8] {
    let count = Int(r.headers["x-nc-paginate-count"] ?? "").flatMap { $0 > 0 ? $0 : nil } ?? 100
    let offset = max(0, Int(r.headers["x-nc-paginate-offset"] ?? "") ?? 0)
    let url = String(r.target.prefix { $0 != "?" })
    if let token = r.headers["x-nc-paginate-token"], r.headers["x-nc-paginate-offset"] != nil,
      let cached = pageCache[token], cached.url == url
    {
      pagesServed += 1
      let page = Array(cached.responses.dropFirst(offset).prefix(count))
      return ScriptedHTTPServer.answer("207 Multi-Status", headers: [("X-NC-Paginate", "true")], xml: multistatusXML(page))
    }
    let page = Array(responses.dropFirst(offset).prefix(count))
    guard offset + count < responses.count else { return multistatus(page) }
    pagesServed += 1
    counter += 1
    let token = "tok\(counter)"
    pageCache[token] = (url, responses)
    return ScriptedHTTPServer.answer(
      "207 Multi-Status",
      headers: [("X-NC-Paginate", "true"), ("X-NC-Paginate-Token", token), ("X-NC-Paginate-Total", String(responses.count))],
      xml: multistatusXML(page))
  }

  /// The value set for `oc:favorite` ("1" or "true" marks, anything else unmarks: the TagsPlugin).
  private func favoriteValue(_ body: String) -> Bool? {
    guard let open = body.range(of: ":favorite>") ?? body.range(of: "<favorite>"),
      let close = body.range(of: "</", range: open.upperBound..<body.endIndex)
    else { return nil }
    let value = body[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
    return value == "1" || value == "true"
  }

  /// The item at `path` and everything below it, keyed relative to it.
  private func subtree(_ path: String) -> [String: Node] {
    var out: [String: Node] = [:]
    for (key, n) in nodes where key == path || key.hasPrefix(path + "/") {
      out[key == path ? "" : String(key.dropFirst(path.count + 1))] = n
    }
    return out
  }

  private func isChild(_ key: String, of folder: String) -> Bool {
    guard !key.isEmpty, key != folder else { return false }
    if folder.isEmpty { return !key.contains("/") }
    return key.hasPrefix(folder + "/") && !key.dropFirst(folder.count + 1).contains("/")
  }

  // MARK: Answers

  private func response(_ path: String, _ n: Node) -> String {
    let href = "/remote.php/dav/files/\(user)/" + encode(path) + (n.isFolder && !path.isEmpty ? "/" : "")
    var found = "<d:getlastmodified>\(httpDate(n.modified))</d:getlastmodified>"
    found += "<d:getetag>&quot;\(n.etag)&quot;</d:getetag>"
    found += "<oc:fileid>\(n.fileID)</oc:fileid><oc:permissions>\(n.permissions)</oc:permissions>"
    found += "<oc:favorite>\(n.favorite ? 1 : 0)</oc:favorite>"
    found += systemTagsProperty(n.fileID)
    var missing = ""
    if n.isFolder {
      found += "<d:resourcetype><d:collection/></d:resourcetype>"
      missing = "<d:getcontentlength/><d:getcontenttype/>"
      if path.isEmpty {
        let used = nodes.values.reduce(Int64(0)) { $0 + Int64($1.bytes.count) }
        found += "<d:quota-used-bytes>\(used)</d:quota-used-bytes>"
        found += "<d:quota-available-bytes>\(max(0, quota - used))</d:quota-available-bytes>"
      }
    } else {
      found += "<d:resourcetype/><d:getcontentlength>\(n.bytes.count)</d:getcontentlength>"
      found += "<d:getcontenttype>application/octet-stream</d:getcontenttype>"
      missing = "<d:quota-used-bytes/><d:quota-available-bytes/>"
    }
    return "<d:response><d:href>\(href)</d:href>"
      + "<d:propstat><d:prop>\(found)</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>"
      + "<d:propstat><d:prop>\(missing)</d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat></d:response>"
  }

  private func trashResponse(_ item: Binned?) -> String {
    guard let item else {
      return "<d:response><d:href>/remote.php/dav/trashbin/\(user)/trash/</d:href><d:propstat><d:prop>"
        + "<d:resourcetype><d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
    }
    let n = item.nodes[""]!
    let original = escapeXML(item.original)
    let filename = escapeXML(item.original.split(separator: "/").last.map(String.init) ?? item.original)
    var found = "<nc:trashbin-filename>\(filename)</nc:trashbin-filename>"
    found += "<nc:trashbin-original-location>\(original)</nc:trashbin-original-location>"
    found += "<nc:trashbin-deletion-time>\(Int(item.deleted.timeIntervalSince1970))</nc:trashbin-deletion-time>"
    found += "<d:getlastmodified>\(httpDate(n.modified))</d:getlastmodified><d:getetag>&quot;\(n.etag)&quot;</d:getetag>"
    found +=
      n.isFolder
      ? "<d:resourcetype><d:collection/></d:resourcetype>"
      : "<d:resourcetype/><d:getcontentlength>\(n.bytes.count)</d:getcontentlength>"
    return "<d:response><d:href>/remote.php/dav/trashbin/\(user)/trash/\(encode(item.name))\(n.isFolder ? "/" : "")</d:href>"
      + "<d:propstat><d:prop>\(found)</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
  }

  func multistatus(_ responses: [String]) -> [UInt8] {
    ScriptedHTTPServer.answer("207 Multi-Status", xml: multistatusXML(responses))
  }

  private func multistatusXML(_ responses: [String]) -> String {
    "<?xml version=\"1.0\"?>\n<d:multistatus xmlns:d=\"DAV:\" xmlns:s=\"http://sabredav.org/ns\" "
      + "xmlns:oc=\"http://owncloud.org/ns\" xmlns:nc=\"http://nextcloud.org/ns\">" + responses.joined() + "</d:multistatus>"
  }

  func status(_ line: String) -> [UInt8] { ScriptedHTTPServer.answer(line) }

  func forbidden() -> [UInt8] {
    ScriptedHTTPServer.answer("403 Forbidden", xml: sabreError("Sabre\\DAV\\Exception\\Forbidden", "Permission denied"))
  }

  func sabreError(_ exception: String, _ message: String) -> String {
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<d:error xmlns:d=\"DAV:\" xmlns:s=\"http://sabredav.org/ns\">"
      + "<s:exception>\(exception)</s:exception><s:message>\(escapeXML(message))</s:message></d:error>"
  }

  func encode(_ path: String) -> String {
    path.addingPercentEncoding(
      withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/"))
      ?? path
  }

  func escapeXML(_ s: String) -> String {
    s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
  }

  func httpDate(_ date: Date) -> String {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.timeZone = TimeZone(identifier: "GMT")
    f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return f.string(from: date)
  }
}
