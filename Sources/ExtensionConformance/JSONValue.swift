import Foundation

/// A JSON value as the kit reads and writes it on the wire.
///
/// The kit must see exactly what an extension printed (a number where a string belongs, a missing
/// field, a `null`), so it keeps the raw tree rather than decoding into typed structs that would
/// hide those differences. Numbers are `Double`: request ids and sizes stay far below 2^53.
public enum JSONValue: Sendable, Equatable, Decodable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  public init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    if c.decodeNil() {
      self = .null
    } else if let b = try? c.decode(Bool.self) {
      self = .bool(b)
    } else if let n = try? c.decode(Double.self) {
      self = .number(n)
    } else if let s = try? c.decode(String.self) {
      self = .string(s)
    } else if let a = try? c.decode([JSONValue].self) {
      self = .array(a)
    } else {
      self = .object(try c.decode([String: JSONValue].self))
    }
  }

  /// Parses one line; nil when it is not JSON.
  public static func parse(_ bytes: [UInt8]) -> JSONValue? {
    try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
  }

  public subscript(key: String) -> JSONValue? {
    if case .object(let o) = self { return o[key] }
    return nil
  }

  public var string: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  /// A string, or a number read as its decimal text (the host accepts numbers for version parts).
  public var text: String? {
    switch self {
    case .string(let s): return s
    case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
    default: return nil
    }
  }

  public var number: Double? {
    if case .number(let n) = self { return n }
    return nil
  }

  public var int: Int? { number.flatMap { $0 == $0.rounded() && abs($0) < 1e15 ? Int($0) : nil } }

  public var bool: Bool? {
    if case .bool(let b) = self { return b }
    return nil
  }

  public var array: [JSONValue]? {
    if case .array(let a) = self { return a }
    return nil
  }

  public var object: [String: JSONValue]? {
    if case .object(let o) = self { return o }
    return nil
  }

  public var isNull: Bool { self == .null }

  /// Compact JSON text, keys sorted (so transcripts compare and read the same every run).
  public var compact: String {
    var out = ""
    write(to: &out)
    return out
  }

  private func write(to out: inout String) {
    switch self {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .number(let n):
      out += n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
    case .string(let s): Self.writeString(s, to: &out)
    case .array(let a):
      out += "["
      for (i, v) in a.enumerated() {
        if i > 0 { out += "," }
        v.write(to: &out)
      }
      out += "]"
    case .object(let o):
      out += "{"
      for (i, k) in o.keys.sorted().enumerated() {
        if i > 0 { out += "," }
        Self.writeString(k, to: &out)
        out += ":"
        o[k]!.write(to: &out)
      }
      out += "}"
    }
  }

  private static func writeString(_ s: String, to out: inout String) {
    out += "\""
    for u in s.unicodeScalars {
      switch u {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        if u.value < 0x20 || u.value == 0x7F || (0x80...0x9F).contains(u.value) || u.value == 0x2028 || u.value == 0x2029 {
          out += String(format: "\\u%04x", u.value)
        } else {
          out.unicodeScalars.append(u)
        }
      }
    }
    out += "\""
  }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int) { self = .number(Double(value)) }
  public init(floatLiteral value: Double) { self = .number(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
  }
  public init(nilLiteral: ()) { self = .null }
}
