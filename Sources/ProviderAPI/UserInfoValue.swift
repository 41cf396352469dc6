import Foundation

/// A value in an item's `userInfo`: String, Number, Bool or Date, as the File Provider allows.
/// Activation rules read them (`userInfo.pinned == true`).
public enum UserInfoValue: Hashable, Sendable, Codable, CustomStringConvertible {
  case string(String)
  case number(Double)
  case bool(Bool)
  case date(Date)

  public var description: String {
    switch self {
    case .string(let s): return s
    case .number(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    case .bool(let b): return b ? "true" : "false"
    case .date(let d): return ISO8601DateFormatter().string(from: d)
    }
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    if let b = try? c.decode(Bool.self) {
      self = .bool(b)
    } else if let d = try? c.decode(Double.self) {
      self = .number(d)
    } else {
      let s = try c.decode(String.self)
      self = .string(s)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    switch self {
    case .string(let s): try c.encode(s)
    case .number(let d): try c.encode(d)
    case .bool(let b): try c.encode(b)
    case .date(let d): try c.encode(ISO8601DateFormatter().string(from: d))
    }
  }
}
