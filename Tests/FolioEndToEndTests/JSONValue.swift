import Foundation

/// Any JSON value, decoded exactly as printed.
///
/// The tests check which keys are present and what type each value has (a `null` size is not a
/// missing size), which fixed `Decodable` structs would blur.
enum JSONValue: Decodable, Equatable, CustomStringConvertible {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  init(from decoder: any Decoder) throws {
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

  subscript(key: String) -> JSONValue? {
    if case .object(let o) = self { return o[key] }
    return nil
  }

  var array: [JSONValue]? {
    if case .array(let a) = self { return a }
    return nil
  }

  var object: [String: JSONValue]? {
    if case .object(let o) = self { return o }
    return nil
  }

  var string: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  var bool: Bool? {
    if case .bool(let b) = self { return b }
    return nil
  }

  var number: Double? {
    if case .number(let n) = self { return n }
    return nil
  }

  var isNull: Bool { self == .null }

  /// The strings of an array of strings (nil if it is not one).
  var strings: [String]? {
    guard let a = array else { return nil }
    let s = a.compactMap(\.string)
    return s.count == a.count ? s : nil
  }

  var description: String {
    switch self {
    case .null: return "null"
    case .bool(let b): return String(b)
    case .number(let n): return String(n)
    case .string(let s): return "\"\(s)\""
    case .array(let a): return "[" + a.map(\.description).joined(separator: ", ") + "]"
    case .object(let o): return "{" + o.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
    }
  }
}
