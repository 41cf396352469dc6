import Foundation
import ProviderAPI

/// The JSON kept in the `userInfo` and `decorations` TEXT columns.
///
/// `UserInfoValue`'s own Codable form writes dates as ISO 8601 strings and reads them back as
/// strings, so the index stores each value tagged with its type ({"s": …}, {"n": …}, {"b": …},
/// {"d": seconds since 1970}) and gets back exactly what it was given.
enum JSONColumn {
  /// One value, exactly one field set: {"s": "text"}, {"n": 1.5}, {"b": true} or {"d": 1.7e9}.
  private struct Tagged: Codable {
    var s: String?
    var n: Double?
    var b: Bool?
    var d: Double?

    init(_ value: UserInfoValue) {
      switch value {
      case .string(let v): s = v
      case .number(let v): n = v
      case .bool(let v): b = v
      case .date(let v): d = v.timeIntervalSince1970
      }
    }

    var value: UserInfoValue {
      if let s { return .string(s) }
      if let n { return .number(n) }
      if let b { return .bool(b) }
      return .date(Date(timeIntervalSince1970: d ?? 0))
    }
  }

  static func encode(_ userInfo: [String: UserInfoValue]) -> String? {
    guard !userInfo.isEmpty else { return nil }
    return text(userInfo.mapValues(Tagged.init))
  }

  static func decodeUserInfo(_ text: String?) -> [String: UserInfoValue] {
    guard let data = text?.data(using: .utf8),
      let tagged = try? JSONDecoder().decode([String: Tagged].self, from: data)
    else { return [:] }
    return tagged.mapValues(\.value)
  }

  static func encode(_ decorations: [DecorationIdentifier]) -> String? {
    decorations.isEmpty ? nil : text(decorations.map(\.rawValue))
  }

  static func decodeDecorations(_ text: String?) -> [DecorationIdentifier] {
    guard let data = text?.data(using: .utf8), let raw = try? JSONDecoder().decode([String].self, from: data)
    else { return [] }
    return raw.map(DecorationIdentifier.init)
  }

  private static func text(_ value: some Encodable) -> String? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    guard let data = try? encoder.encode(value) else { return nil }
    return String(decoding: data, as: UTF8.self)
  }
}
