import GRDB
import ProviderAPI

/// Every failure leaves the index as a `ProviderError(.ioError)` with one line saying what was
/// being done and what SQLite answered; the SQLite extended result code is kept in `underlying`.
extension WorkingSetIndex {
  static func wrap<T>(_ what: String, _ body: () throws -> T) throws(ProviderError) -> T {
    do {
      return try body()
    } catch let error as ProviderError {
      throw error
    } catch let error as DatabaseError {
      let code = error.extendedResultCode
      let detail = oneLine(error.message ?? "\(code)")
      throw ProviderError(
        .ioError, "index: \(what) failed: \(detail) (SQLite \(code.rawValue))", underlying: code.rawValue)
    } catch {
      throw ProviderError(.ioError, "index: \(what) failed: \(oneLine("\(error)"))")
    }
  }

  /// One write transaction.
  @discardableResult
  func write<T>(_ what: String, _ updates: (Database) throws -> T) throws(ProviderError) -> T {
    if let step = DurableSteps.willWrite { try step(writer.path, ObjectIdentifier(writer)) }
    return try Self.wrap(what) { try writer.write(updates) }
  }

  /// One read transaction (a snapshot: several statements see the same state).
  func read<T>(_ what: String, _ value: (Database) throws -> T) throws(ProviderError) -> T {
    try Self.wrap(what) { try writer.read(value) }
  }

  private static func oneLine(_ s: String) -> String {
    s.split(whereSeparator: \.isNewline).joined(separator: " ")
  }
}
