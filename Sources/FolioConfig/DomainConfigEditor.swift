import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Adds and removes `[[domain]]` tables in config.toml as text, so that everything else in the
/// file — comments, order, the user's spacing — stays byte for byte.
///
/// Re-serializing the parsed TOML would lose every comment of a hand-written config. Instead a new
/// table is appended at the end, and a removed one is cut out from its header to its last line
/// (comments right before the next table stay: they usually describe that one). Each edit is
/// checked before it is written: the new text must parse, and its configuration must equal the old
/// one with exactly that domain added or removed; anything else is refused, and the file is left
/// as it was, with a message asking for the edit by hand.
public enum DomainConfigEditor {
  /// The config text with a `[[domain]]` table for `domain` appended.
  ///
  /// - Parameters:
  ///   - settings: Keys of the table after `name` and `type`, in order (`server`, `user`).
  ///   - file: How messages name the file.
  /// - Throws: `badConfig` when the current text does not parse, the name is taken, or the result
  ///   would not be the same configuration plus this domain.
  public static func adding(
    name: DomainIdentifier, type: String, settings: [(String, String)], displayName: String?, to text: String,
    file: String, paths: FolioPaths
  ) throws(ProviderError) -> String {
    var block = "[[domain]]\nname = \(quoted(name.rawValue))\ntype = \(quoted(type))\n"
    if let displayName, displayName != name.rawValue { block += "display_name = \(quoted(displayName))\n" }
    for (key, value) in settings { block += "\(key) = \(quoted(value))\n" }
    return try appending(block, named: name, to: text, file: file, paths: paths)
  }

  /// `text` with a new domain's table appended, after a blank line, checked: the name must be
  /// free, and the result must parse as the same configuration plus that one domain.
  static func appending(
    _ block: String, named name: DomainIdentifier, to text: String, file: String, paths: FolioPaths
  ) throws(ProviderError) -> String {
    let before = try FolioConfiguration.parse(text, file: file, paths: paths)
    if before.domains.contains(where: { $0.identifier == name }) {
      throw ProviderError(.badConfig, "\(file) already has a location named '\(name)'")
    }
    var out = text
    if !out.isEmpty && !out.hasSuffix("\n") { out += "\n" }
    if !out.isEmpty && !out.hasSuffix("\n\n") { out += "\n" }
    out += block
    let after = try FolioConfiguration.parse(out, file: file, paths: paths)
    var expected = before
    if let added = after.domains.last, added.identifier == name { expected.domains.append(added) }
    guard after == expected else {
      throw ProviderError(
        .badConfig, "\(file): adding the location '\(name)' would change more than that location; add it by hand")
    }
    return out
  }

  /// The config text without the `[[domain]]` table named `name`.
  ///
  /// - Throws: `noSuchItem` when there is none, `badConfig` when it cannot be cut out cleanly.
  public static func removing(_ name: DomainIdentifier, from text: String, file: String, paths: FolioPaths)
    throws(ProviderError) -> String
  {
    let before = try FolioConfiguration.parse(text, file: file, paths: paths)
    guard before.domains.contains(where: { $0.identifier == name }) else {
      throw ProviderError(.noSuchItem, "\(file) has no location named '\(name)'")
    }
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let headers = lines.indices.filter { isTableHeader(lines[$0]) }
    var result: String?
    for (n, start) in headers.enumerated() where isDomainHeader(lines[start]) {
      var end = n + 1 < headers.count ? headers[n + 1] : lines.count
      // Comments and blank lines just before the next table belong to it.
      while end > start + 1, lines[end - 1].trimmingWhitespace().isEmpty || lines[end - 1].trimmingWhitespace().hasPrefix("#") {
        end -= 1
      }
      let block = lines[start..<end].joined(separator: "\n")
      guard let document = try? ConfigValue.parseDocument(block), case .array(let tables)? = document["domain"],
        case .table(let table)? = tables.first, case .string(let blockName)? = table["name"], blockName == name.rawValue
      else { continue }
      var kept = Array(lines[..<start]) + Array(lines[end...])
      // Drop the blank line that separated the table from what came before, if that leaves two.
      if start > 0, start < kept.count, kept[start - 1].trimmingWhitespace().isEmpty,
        kept[start].trimmingWhitespace().isEmpty
      {
        kept.remove(at: start)
      }
      result = kept.joined(separator: "\n")
      break
    }
    guard let result else {
      throw ProviderError(.badConfig, "\(file): cannot find the [[domain]] table of '\(name)'; remove it by hand")
    }
    let after = try FolioConfiguration.parse(result, file: file, paths: paths)
    var expected = before
    expected.domains.removeAll { $0.identifier == name }
    guard after == expected else {
      throw ProviderError(
        .badConfig, "\(file): removing the location '\(name)' would change more than that location; remove it by hand")
    }
    return result
  }

  /// The config text with `key = value` set in the `[[domain]]` table named `name`: the line
  /// replaced where the table has the key, else added at the table's end. Comments and every other
  /// line stay as they are.
  ///
  /// - Throws: `noSuchItem` when there is no such table, `badConfig` when the result would change
  ///   more than that key.
  public static func setting(
    _ key: String, to value: String, in name: DomainIdentifier, text: String, file: String, paths: FolioPaths
  ) throws(ProviderError) -> String {
    let before = try FolioConfiguration.parse(text, file: file, paths: paths)
    guard before.domains.contains(where: { $0.identifier == name }) else {
      throw ProviderError(.noSuchItem, "\(file) has no location named '\(name)'")
    }
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let headers = lines.indices.filter { isTableHeader(lines[$0]) }
    var done = false
    for (n, start) in headers.enumerated() where isDomainHeader(lines[start]) {
      var end = n + 1 < headers.count ? headers[n + 1] : lines.count
      while end > start + 1, lines[end - 1].trimmingWhitespace().isEmpty || lines[end - 1].trimmingWhitespace().hasPrefix("#") {
        end -= 1
      }
      guard let document = try? ConfigValue.parseDocument(lines[start..<end].joined(separator: "\n")),
        case .array(let tables)? = document["domain"], case .table(let table)? = tables.first,
        case .string(let blockName)? = table["name"], blockName == name.rawValue
      else { continue }
      let line = "\(key) = \(quoted(value))"
      if let i = (start + 1..<end).first(where: {
        lines[$0].trimmingWhitespace().hasPrefix(key + " ") || lines[$0].trimmingWhitespace().hasPrefix(key + "=")
      }) {
        lines[i] = line
      } else {
        lines.insert(line, at: end)
      }
      done = true
      break
    }
    guard done else { throw ProviderError(.badConfig, "\(file): cannot find the [[domain]] table of '\(name)'; edit it by hand") }
    let result = lines.joined(separator: "\n")
    let after = try FolioConfiguration.parse(result, file: file, paths: paths)
    guard after.domains.count == before.domains.count,
      zip(after.domains, before.domains).allSatisfy({ $0.identifier == name || $0 == $1 })
    else {
      throw ProviderError(.badConfig, "\(file): setting \(key) of '\(name)' would change more than that; edit it by hand")
    }
    return result
  }

  /// Reads config.toml as text ("" when it does not exist).
  public static func read(_ url: URL) throws(ProviderError) -> String {
    do {
      let data = try Data(contentsOf: url)
      guard let text = String(data: data, encoding: .utf8) else {
        throw ProviderError(.badConfig, "\(url.path) is not UTF-8 text")
      }
      return text
    } catch let error as ProviderError {
      throw error
    } catch CocoaError.fileReadNoSuchFile {
      return ""
    } catch {
      throw ProviderError(.ioError, "cannot read \(url.path): \(error.localizedDescription)")
    }
  }

  /// Replaces config.toml atomically (a new file with the old one's mode, fsynced, renamed).
  public static func write(_ text: String, to url: URL) throws(ProviderError) {
    let dir = url.deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    } catch {
      throw ProviderError(.ioError, "cannot create \(dir.path): \(error.localizedDescription)")
    }
    var st = stat()
    let mode: mode_t = stat(url.path, &st) == 0 ? st.st_mode & 0o777 : 0o644
    let tmp = url.path + ".tmp-\(getpid())"
    let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
    guard fd >= 0 else {
      throw ProviderError(.ioError, "cannot write \(tmp): \(String(cString: strerror(errno)))", underlying: errno)
    }
    let bytes = Array(text.utf8)
    var done = 0
    var ok = fchmod(fd, mode) == 0
    while ok && done < bytes.count {
      let n = bytes[done...].withUnsafeBytes { posixWrite(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n < 0 { ok = false } else { done += n }
    }
    ok = ok && fsync(fd) == 0
    close(fd)
    guard ok, rename(tmp, url.path) == 0 else {
      let code = errno
      unlink(tmp)
      throw ProviderError(.ioError, "cannot write \(url.path): \(String(cString: strerror(code)))", underlying: code)
    }
  }

  // MARK: Text

  /// A TOML basic string: quotes, backslashes and control characters escaped.
  static func quoted(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      case "\r": out += "\\r"
      default:
        if scalar.value < 0x20 || scalar.value == 0x7F {
          out += String(format: "\\u%04X", scalar.value)
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }

  /// `[table]` or `[[array]]` on a line of its own (an optional comment after it).
  static func isTableHeader(_ line: String) -> Bool {
    var s = Substring(line.trimmingWhitespace())
    guard s.hasPrefix("[") else { return false }
    if let hash = s.firstIndex(of: "#") { s = s[..<hash] }
    s = Substring(String(s).trimmingWhitespace())
    guard s.hasSuffix("]") else { return false }
    let inner = s.drop(while: { $0 == "[" }).reversed().drop(while: { $0 == "]" })
    let name = String(inner.reversed())
    return !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || "_-. \"".contains($0) }
  }

  static func isDomainHeader(_ line: String) -> Bool {
    let compact = line.filter { !$0.isWhitespace }
    return compact == "[[domain]]" || compact.hasPrefix("[[domain]]#")
  }
}

/// `write(2)`, reachable from inside ``DomainConfigEditor`` (whose own `write` hides the global).
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
