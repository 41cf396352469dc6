import ProviderAPI
import TOMLKit

/// A parsed TOML value, copied out of TOMLKit into plain Swift values.
///
/// TOMLKit's tables and arrays are classes over toml++ nodes: not `Sendable`, and their keys come
/// back sorted rather than in file order. Copying the document once into this enum right after
/// parsing keeps the decoding code pure and no TOMLKit object escapes `parseDocument`.
/// (TOMLKit 0.6.0's `TOMLTable` has no `deinit`, so the toml++ document itself is never freed: a
/// few kilobytes per parse, and the config is parsed once per start or reload.)
indirect enum ConfigValue: Equatable, Sendable {
  case string(String)
  case integer(Int64)
  case float(Double)
  case bool(Bool)
  /// A TOML date, time or date-time; Folio's config has no use for them, so only the kind is kept.
  case dateTime(String)
  case array([ConfigValue])
  case table([String: ConfigValue])

  /// "a string", "an integer", …: the kind of value, for "expected X, found Y" messages.
  var kindDescription: String {
    switch self {
    case .string: return "a string"
    case .integer: return "an integer"
    case .float: return "a floating-point number"
    case .bool: return "a boolean"
    case .dateTime(let kind): return "a \(kind)"
    case .array: return "an array"
    case .table: return "a table"
    }
  }

  /// A TOML syntax error, where TOMLKit (toml++) found it.
  struct SyntaxError: Error {
    var line: Int
    var column: Int
    var message: String
  }

  /// Parses a TOML document.
  ///
  /// - Throws: the syntax error TOMLKit reported, with its line and column.
  static func parseDocument(_ text: String) throws(SyntaxError) -> [String: ConfigValue] {
    let table: TOMLTable
    // toml++ must not see what its parser asserts never happens (TOMLPreflight).
    if let p = TOMLPreflight.problem(in: text) {
      throw SyntaxError(line: p.line, column: p.column, message: p.message)
    }
    do {
      table = try TOMLTable(string: text)
    } catch let error as TOMLParseError {
      throw SyntaxError(line: error.source.begin.line, column: error.source.begin.column, message: error.description)
    } catch {
      // TOMLTable(string:) only throws TOMLParseError; keep the compiler honest without crashing.
      preconditionFailure("TOMLKit threw an unexpected error: \(error)")
    }
    return convert(table)
  }

  private static func convert(_ table: TOMLTable) -> [String: ConfigValue] {
    var result: [String: ConfigValue] = [:]
    for (key, value) in table {
      result[key] = convert(value)
    }
    return result
  }

  private static func convert(_ value: any TOMLValueConvertible) -> ConfigValue {
    switch value.type {
    case .string: return .string(value.string ?? "")
    case .int: return .integer(Int64(value.int ?? 0))
    case .double: return .float(value.double ?? 0)
    case .bool: return .bool(value.bool ?? false)
    case .date: return .dateTime("date")
    case .time: return .dateTime("time")
    case .dateTime: return .dateTime("date-time")
    case .array:
      guard let array = value.array else { return .array([]) }
      return .array(array.map { convert($0) })
    case .table:
      guard let table = value.table else { return .table([:]) }
      return .table(convert(table))
    }
  }
}
