import ExtensionHost
import ProviderAPI

/// One line of an extension's stdout (FEP/1): `JSONValue.parse`, then what the host reads of a
/// message (its id, its error, its result) and of each item (`ExtensionItemCoding.item`).
///
/// Properties: a parsed value writes back (the host writes its requests with the same writer) to a
/// line that parses to the same value, numbers within a relative 1e-9 (Foundation reads an integer
/// literal past 2^64 through Decimal, a few units in the last place away from the Double its written
/// form reads as: found by libFuzzer, harmless); an error from the extension is a `ProviderError`
/// whose message is safe to show; an item the host accepts has a usable name (not empty, `.`,
/// `..`, nor holding `/` or NUL).
enum ExtensionLineTarget {
  static let target = FuzzTarget(
    name: "extension-json", summary: "FEP/1 lines: JSON round-trips; errors and items are checked values",
    dictionary: FuzzDictionary.json
  ) { bytes in
    guard let value = JSONValue.parse(bytes) else { return nil }
    guard let again = JSONValue.parse(value.serialized) else {
      return FuzzViolation("a parsed line does not parse again once written")
    }
    if !same(again, value) { return FuzzViolation("a parsed line written and parsed again is another value") }
    guard case .object(let message) = value else { return nil }
    if let error = message["error"], case .object(let e) = error {
      let mapped = ExtensionErrors.providerError(code: e["code"]?.int ?? 0, message: e["message"]?.string ?? "", data: e["data"])
      if let v = TerminalSafety.check(mapped.message, from: "an extension's error message") { return v }
    }
    let result = message["result"] ?? value
    let capabilities = ExtensionCapabilities(message["capabilities"] ?? result["capabilities"])
    var candidates = result["items"]?.array ?? []
    candidates += result["updated"]?.array ?? []
    if let item = result["item"] { candidates.append(item) }
    candidates.append(result)
    for json in candidates.prefix(64) {
      let item: Item
      do throws(ProviderError) {
        item = try ExtensionItemCoding.item(json, parentPath: .root, capabilities: capabilities)
      } catch {
        if let v = TerminalSafety.check(error.message, from: "an item refusal") { return v }
        continue
      }
      if item.identifier == .root { continue }
      let name = item.filename.bytes
      if name.isEmpty || name == [0x2E] || name == [0x2E, 0x2E] || name.contains(0x2F) || name.contains(0) {
        return FuzzViolation("the host accepted an item named \(TerminalText.escape(bytes: name))")
      }
    }
    return nil
  }

  /// Equal, numbers within a relative 1e-9.
  static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.number(let x), .number(let y)): return x == y || abs(x - y) <= 1e-9 * max(abs(x), abs(y))
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
    case (.object(let x), .object(let y)):
      return x.count == y.count && x.allSatisfy { key, v in y[key].map { same(v, $0) } ?? false }
    default: return a == b
    }
  }
}
