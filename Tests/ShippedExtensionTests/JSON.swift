import Foundation

/// A JSON value as an FEP/1 line carries it: the tests build requests from literals and read
/// answers by key, checking which keys are there (a `null` is not a missing key).
enum JSON: Codable, Equatable, Sendable, CustomStringConvertible {
  case null
  case bool(Bool)
  case int(Int)
  case double(Double)
  case string(String)
  case array([JSON])
  case object([String: JSON])

  init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    if c.decodeNil() {
      self = .null
    } else if let b = try? c.decode(Bool.self) {
      self = .bool(b)
    } else if let i = try? c.decode(Int.self) {
      self = .int(i)
    } else if let d = try? c.decode(Double.self) {
      self = .double(d)
    } else if let s = try? c.decode(String.self) {
      self = .string(s)
    } else if let a = try? c.decode([JSON].self) {
      self = .array(a)
    } else {
      self = .object(try c.decode([String: JSON].self))
    }
  }

  func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    switch self {
    case .null: try c.encodeNil()
    case .bool(let b): try c.encode(b)
    case .int(let i): try c.encode(i)
    case .double(let d): try c.encode(d)
    case .string(let s): try c.encode(s)
    case .array(let a): try c.encode(a)
    case .object(let o): try c.encode(o)
    }
  }

  /// One line of the protocol, or nil when the line is not JSON.
  static func parse(_ line: Data) -> JSON? { try? JSONDecoder().decode(JSON.self, from: line) }

  /// Compact text, one line (JSONEncoder escapes every control character).
  var text: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: (try? encoder.encode(self)) ?? Data("null".utf8), as: UTF8.self)
  }

  var description: String { text }

  subscript(key: String) -> JSON {
    if case .object(let o) = self { return o[key] ?? .null }
    return .null
  }

  /// Whether an object has the key at all (even with a null value).
  func has(_ key: String) -> Bool {
    if case .object(let o) = self { return o[key] != nil }
    return false
  }

  var string: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  var int: Int? {
    switch self {
    case .int(let i): return i
    case .double(let d) where d == d.rounded(): return Int(d)
    default: return nil
    }
  }

  var bool: Bool? {
    if case .bool(let b) = self { return b }
    return nil
  }

  var array: [JSON] {
    if case .array(let a) = self { return a }
    return []
  }

  var isNull: Bool { self == .null }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
  init(stringLiteral value: String) { self = .string(value) }
  init(integerLiteral value: Int) { self = .int(value) }
  init(floatLiteral value: Double) { self = .double(value) }
  init(booleanLiteral value: Bool) { self = .bool(value) }
  init(arrayLiteral elements: JSON...) { self = .array(elements) }
  init(dictionaryLiteral elements: (String, JSON)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
  init(nilLiteral: ()) { self = .null }
}
