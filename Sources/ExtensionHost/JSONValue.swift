import Foundation

/// A JSON value of FEP/1 (docs/EXTENSIONS.md): what one line of an extension's stdout holds.
///
/// Parsed with Foundation's JSONSerialization (a boolean is told from a number by its NSNumber
/// type) and written by hand: a request is small, and the writer keeps ids integral and the line
/// compact, one object per line, with no escaping surprises (`/` is not escaped, control
/// characters are).
public enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  public subscript(key: String) -> JSONValue? {
    if case .object(let o) = self { return o[key] }
    return nil
  }

  public var string: String? { if case .string(let s) = self { s } else { nil } }
  public var number: Double? { if case .number(let n) = self { n } else { nil } }
  public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
  public var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
  public var object: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
  public var isNull: Bool { self == .null }
  /// An integral number that fits an Int64.
  public var int64: Int64? {
    guard case .number(let n) = self, n == n.rounded(), abs(n) < 9.2e18 else { return nil }
    return Int64(n)
  }
  public var int: Int? { int64.map { Int($0) } }

  /// Parses one line (a UTF-8 JSON document).
  public static func parse(_ bytes: some Collection<UInt8>) -> JSONValue? {
    guard let any = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else { return nil }
    return JSONValue(foundation: any)
  }

  init?(foundation any: Any) {
    switch any {
    case is NSNull: self = .null
    case let s as String: self = .string(s)
    case let n as NSNumber:
      // A JSON true/false is an NSNumber of type "c"; a number literal never is.
      if String(cString: n.objCType) == "c" { self = .bool(n.boolValue) } else { self = .number(n.doubleValue) }
    case let a as [Any]:
      var out: [JSONValue] = []
      out.reserveCapacity(a.count)
      for e in a {
        guard let v = JSONValue(foundation: e) else { return nil }
        out.append(v)
      }
      self = .array(out)
    case let o as [String: Any]:
      var out: [String: JSONValue] = [:]
      out.reserveCapacity(o.count)
      for (k, e) in o {
        guard let v = JSONValue(foundation: e) else { return nil }
        out[k] = v
      }
      self = .object(out)
    default: return nil
    }
  }

  /// The compact UTF-8 text of the value (no newline).
  public var serialized: [UInt8] {
    var out: [UInt8] = []
    write(to: &out)
    return out
  }

  func write(to out: inout [UInt8]) {
    switch self {
    case .null: out += Array("null".utf8)
    case .bool(let b): out += Array((b ? "true" : "false").utf8)
    case .number(let n):
      if n == n.rounded(), abs(n) < 1e15 { out += Array(String(Int64(n)).utf8) } else if n.isFinite {
        out += Array("\(n)".utf8)
      } else {
        out += Array("null".utf8)
      }
    case .string(let s): Self.writeString(s, to: &out)
    case .array(let a):
      out.append(UInt8(ascii: "["))
      for (i, e) in a.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        e.write(to: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let o):
      out.append(UInt8(ascii: "{"))
      // Sorted keys: the same request is the same line (traces, tests).
      for (i, key) in o.keys.sorted().enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        Self.writeString(key, to: &out)
        out.append(UInt8(ascii: ":"))
        o[key]!.write(to: &out)
      }
      out.append(UInt8(ascii: "}"))
    }
  }

  static func writeString(_ s: String, to out: inout [UInt8]) {
    let hex = Array("0123456789abcdef".utf8)
    out.append(UInt8(ascii: "\""))
    for b in s.utf8 {
      switch b {
      case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
      case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
      case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
      case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
      case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
      case 0..<0x20:
        out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)], hex[Int(b & 15)]]
      default: out.append(b)
      }
    }
    out.append(UInt8(ascii: "\""))
  }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int) { self = .number(Double(value)) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, b in b }))
  }
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  public init(nilLiteral: ()) { self = .null }
}
