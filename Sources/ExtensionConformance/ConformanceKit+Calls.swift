import Foundation

/// The calls the checks share, each turning a wrong answer into a ``CheckFailure`` that says
/// what was expected.
extension ConformanceKit {
  func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw CheckFailure(message()) }
  }

  func expectResult(_ reply: Reply, _ what: String) throws -> JSONValue {
    guard let result = reply.result else { throw CheckFailure("\(what): expected a result, got \(reply.summary)") }
    return result
  }

  /// Expects an error answer with one of `codes`. - Returns: the error's data.
  @discardableResult
  func expectError(_ reply: Reply, _ codes: Set<Int>, _ what: String) throws -> JSONValue? {
    guard case .error(let code, _, let data) = reply else {
      throw CheckFailure("\(what): expected error \(codes.sorted().map(String.init).joined(separator: " or ")), got \(reply.summary)")
    }
    guard codes.isEmpty || codes.contains(code) else {
      throw CheckFailure("\(what): expected error \(codes.sorted().map(String.init).joined(separator: " or ")), got \(reply.summary)")
    }
    return data
  }

  func parseItem(_ value: JSONValue?, _ what: String) throws -> WireItem {
    switch WireItem.parse(value) {
    case .success(let item): return item
    case .failure(let failure): throw CheckFailure("\(what): \(failure.reason)")
    }
  }

  func item(_ s: ExtensionSession, _ id: String) throws -> WireItem {
    try parseItem(try expectResult(s.call("item", ["id": .string(id)]), "item \(id)"), "item \(id)")
  }

  /// Lists a container to its end. - Returns: the items and the number of pages.
  func enumerateAll(_ s: ExtensionSession, _ container: String, pageSize: Int = 100) throws -> (items: [WireItem], pages: Int) {
    var items: [WireItem] = []
    var page: JSONValue = .null
    var pages = 0
    var tokens = Set<String>()
    repeat {
      var params: JSONValue = [
        "container": .string(container), "pageSize": .number(Double(pageSize)), "includeHidden": true,
        "sort": ["by": "name", "descending": false, "foldersFirst": false],
      ]
      if case .object(var o) = params, page != .null {
        o["page"] = page
        params = .object(o)
      }
      let result = try expectResult(s.call("enumerateItems", params), "enumerateItems \(container)")
      guard let list = result["items"]?.array else { throw CheckFailure("enumerateItems \(container): no items array") }
      for v in list { items.append(try parseItem(v, "enumerateItems \(container)")) }
      page = result["nextPage"] ?? .null
      pages += 1
      if let token = page.string {
        try expect(token.utf8.count <= 500, "a page token of \(token.utf8.count) bytes (at most 500)")
        try expect(tokens.insert(token).inserted, "enumerateItems \(container): nextPage \(token) came twice; the listing never ends")
      } else {
        try expect(page == .null, "enumerateItems \(container): nextPage \(page.compact) is neither a string nor null")
      }
      try expect(pages <= 10_000, "enumerateItems \(container): more than 10000 pages; nextPage never null")
    } while page != .null
    return (items, pages)
  }

  /// Finds a child by name (the first page walk that finds it).
  func child(_ s: ExtensionSession, of container: String, named name: [UInt8]) throws -> WireItem? {
    try enumerateAll(s, container).items.first { $0.nameBytes == name }
  }

  func nameParams(_ name: [UInt8]) -> [String: JSONValue] {
    if let text = String(validating: name, as: UTF8.self) { return ["name": .string(text)] }
    return ["name": .string(String(decoding: name, as: UTF8.self)), "nameBytes": .string(Data(name).base64EncodedString())]
  }

  /// Sends a createItem. - Returns: the request's id (the caller waits).
  func sendCreate(
    _ s: ExtensionSession, parent: String, name: [UInt8], kind: String = "file", contents: String? = nil, key: String? = nil
  ) -> Int {
    var template = nameParams(name)
    template["parent"] = .string(parent)
    template["kind"] = .string(kind)
    var fields: [JSONValue] = ["name", "parent"]
    var params: [String: JSONValue] = [
      "key": .string(key ?? UUID().uuidString.lowercased()), "template": .object(template),
      "options": ["mayAlreadyExist": false],
    ]
    if let contents {
      params["contents"] = .string(contents)
      fields.append("contents")
    }
    params["fields"] = .array(fields)
    return s.send("createItem", .object(params))
  }

  /// Creates a file with `bytes` (or a folder when `bytes` is nil) and waits for it.
  func create(_ s: ExtensionSession, parent: String, name: String, bytes: [UInt8]?, key: String? = nil) throws -> WireItem {
    try create(s, parent: parent, nameBytes: Array(name.utf8), bytes: bytes, key: key)
  }

  func create(_ s: ExtensionSession, parent: String, nameBytes: [UInt8], bytes: [UInt8]?, key: String? = nil) throws -> WireItem {
    let path = try bytes.map { try stage($0) }
    let id = sendCreate(s, parent: parent, name: nameBytes, kind: bytes == nil ? "folder" : "file", contents: path, key: key)
    let what = "createItem \(String(decoding: nameBytes, as: UTF8.self))"
    let result = try expectResult(s.wait(id, timeout: 60, progressExtends: true), what)
    return try parseItem(result["item"], what)
  }

  /// The kit's own folder in the location's root, made once per run.
  func scratch(_ s: ExtensionSession) throws -> String {
    if let scratchID { return scratchID }
    guard caps.create else { throw CheckSkip("needs write.create (not declared)") }
    let name = "folio-kit-" + String(UUID().uuidString.prefix(8)).lowercased()
    let folder = try create(s, parent: "#root", name: name, bytes: nil)
    try expect(folder.kind == "folder", "the scratch folder came back as a \(folder.kind)")
    scratchID = folder.id
    return folder.id
  }

  /// Fetches an item's whole content. - Returns: the bytes, the answer and the progress notes.
  func fetch(_ s: ExtensionSession, _ id: String, range: (Int, Int)? = nil) throws -> (
    bytes: [UInt8], result: JSONValue, progress: [JSONValue]
  ) {
    let dest = try downloadDestination()
    var params: [String: JSONValue] = ["id": .string(id), "dest": .string(dest)]
    if let range { params["range"] = [.number(Double(range.0)), .number(Double(range.1))] }
    let request = s.send("fetchContents", .object(params))
    let result = try expectResult(s.wait(request, timeout: 60, progressExtends: true), "fetchContents \(id)")
    defer { try? FileManager.default.removeItem(atPath: dest) }
    return (contents(of: dest), result, s.progress[request] ?? [])
  }

  /// A fixture folder's item, when `--fixture` names one: the path's components walked from the root.
  func fixtureItem(_ s: ExtensionSession, _ relative: String) throws -> WireItem? {
    guard let base = options.fixture else { return nil }
    var current = "#root"
    var found: WireItem?
    for component in (base + "/" + relative).split(separator: "/") {
      guard let next = try child(s, of: current, named: Array(component.utf8)) else {
        throw CheckFailure("the fixture has no \(base)/\(relative) (docs/EXTENSIONS.md §6)")
      }
      found = next
      current = next.id
    }
    return found
  }
}
