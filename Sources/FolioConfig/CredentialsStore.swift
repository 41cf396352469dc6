import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The secrets of remote domains: `$XDG_CONFIG_HOME/folio/credentials`.
///
/// The format is one line per domain, `NAME=SECRET`: the secret is everything after the first
/// `=` up to the end of the line, exactly (no quoting, no trimming; it cannot contain a line
/// break). Blank lines and lines starting with `#` are ignored; a later line for the same name
/// wins. Example:
///
///     # Folio credentials: keep this file mode 0600.
///     work=correct horse battery staple
///
/// The file must belong to the user and be readable by nobody else: a file that group or others
/// may read is refused with an error naming the `chmod` that fixes it, rather than used (test-plan
/// §0.11: obscuring is not encryption, so permissions are the protection). It is written
/// atomically — a new file created 0600, fsynced, renamed over the old one — so a crash leaves
/// either the old or the new secrets, never a half-written file, and there is no moment when the
/// secrets are readable by others. Comments and the order of the other lines are kept.
///
/// The command line writes it (`folio domain add`/`login`); the terminal UI can save what its
/// sign-in prompt collected with ``setSecret(_:for:)``.
public struct CredentialsStore: Sendable {
  public let file: URL

  public init(file: URL) { self.file = file }

  /// The store at ``FolioPaths/credentialsFile``.
  public init(paths: FolioPaths) { self.init(file: paths.credentialsFile) }

  /// The secret saved for a domain, or nil.
  ///
  /// - Throws: `badConfig` when the file is readable by group or others, belongs to someone else,
  ///   or is not a regular file; `ioError` when it cannot be read.
  public func secret(for domain: DomainIdentifier) throws(ProviderError) -> String? {
    var found: String?
    for line in try lines() {
      if case .entry(let name, let secret) = line, name == domain.rawValue { found = secret }
    }
    return found
  }

  /// The domains that have a saved secret, in file order.
  public func domains() throws(ProviderError) -> [DomainIdentifier] {
    var out: [DomainIdentifier] = []
    for line in try lines() {
      if case .entry(let name, _) = line, !out.contains(where: { $0.rawValue == name }) {
        out.append(DomainIdentifier(unchecked: name))
      }
    }
    return out
  }

  /// Saves (or replaces) a domain's secret.
  ///
  /// - Throws: `invalidArgument` for a secret with a line break or a NUL (the format cannot hold
  ///   it), `badConfig`/`ioError` as ``secret(for:)`` and when the file cannot be written.
  public func setSecret(_ secret: String, for domain: DomainIdentifier) throws(ProviderError) {
    guard !secret.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }), !secret.contains("\0") else {
      throw ProviderError(.invalidArgument, "a password with a line break or a NUL character cannot be saved")
    }
    var out = try lines()
    var replaced = false
    out = out.compactMap { line in
      guard case .entry(let name, _) = line, name == domain.rawValue else { return line }
      if replaced { return nil }
      replaced = true
      return .entry(domain.rawValue, secret)
    }
    if !replaced {
      if out.isEmpty { out.append(.other("# Folio credentials (NAME=SECRET, one per line). Keep this file mode 0600.")) }
      out.append(.entry(domain.rawValue, secret))
    }
    try writeLines(out)
  }

  /// Forgets a domain's secret.
  ///
  /// - Returns: False when there was none.
  @discardableResult
  public func removeSecret(for domain: DomainIdentifier) throws(ProviderError) -> Bool {
    let before = try lines()
    let after = before.filter { line in
      if case .entry(let name, _) = line, name == domain.rawValue { return false }
      return true
    }
    guard after.count != before.count else { return false }
    try writeLines(after)
    return true
  }

  // MARK: - The file

  private enum Line: Equatable {
    case entry(String, String)
    /// A comment, a blank line or anything else, kept as it was.
    case other(String)
  }

  private func lines() throws(ProviderError) -> [Line] {
    guard let text = try readText() else { return [] }
    var out: [Line] = []
    for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let line = String(raw)
      if line.hasPrefix("#") || line.allSatisfy(\.isWhitespace) {
        out.append(.other(line))
        continue
      }
      guard let eq = line.firstIndex(of: "="), eq != line.startIndex else {
        out.append(.other(line))
        continue
      }
      out.append(.entry(String(line[..<eq]), String(line[line.index(after: eq)...])))
    }
    while out.last == .other("") { out.removeLast() }
    return out
  }

  /// The file's text, or nil when there is none. Refuses a file others could read.
  private func readText() throws(ProviderError) -> String? {
    let path = file.path
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    if fd < 0 {
      let code = errno
      if code == ENOENT { return nil }
      if code == ELOOP {
        throw ProviderError(.badConfig, "\(path) is a symbolic link: Folio reads credentials only from a regular file")
      }
      throw ProviderError(.ioError, "cannot read \(path): \(String(cString: strerror(code)))", underlying: code)
    }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0 else {
      throw ProviderError(.ioError, "cannot read \(path): \(String(cString: strerror(errno)))", underlying: errno)
    }
    guard st.st_mode & S_IFMT == S_IFREG else { throw ProviderError(.badConfig, "\(path) is not a regular file") }
    guard st.st_uid == getuid() else {
      throw ProviderError(.badConfig, "\(path) belongs to another user: Folio does not read secrets from it")
    }
    let mode = st.st_mode & 0o777
    guard mode & 0o077 == 0 else {
      throw ProviderError(
        .badConfig,
        "\(path) can be read by others (mode \(String(mode, radix: 8))): run `chmod 600 \(path)` and sign in again if the password may have leaked")
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n == 0 { break }
      if n < 0 {
        if errno == EINTR { continue }
        throw ProviderError(.ioError, "cannot read \(path): \(String(cString: strerror(errno)))", underlying: errno)
      }
      bytes.append(contentsOf: chunk[0..<n])
      if bytes.count > 1 << 20 { throw ProviderError(.badConfig, "\(path) is larger than 1 MiB: not a credentials file") }
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw ProviderError(.badConfig, "\(path) is not UTF-8 text")
    }
    return text
  }

  /// Writes the lines to a new 0600 file next to the old one, fsyncs it and renames it into place.
  private func writeLines(_ lines: [Line]) throws(ProviderError) {
    let dir = file.deletingLastPathComponent().path
    if mkdir(dir, 0o700) != 0 && errno != EEXIST {
      // A missing parent (~/.config itself): create the chain, still private at the last step.
      do {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
      } catch {
        throw ProviderError(.ioError, "cannot create \(dir): \(error.localizedDescription)")
      }
    }
    var text = lines.map { line -> String in
      switch line {
      case .entry(let name, let secret): return name + "=" + secret
      case .other(let s): return s
      }
    }.joined(separator: "\n")
    text += "\n"
    var template = Array((file.path + ".tmp-XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    if fd < 0 {
      throw ProviderError(.ioError, "cannot write in \(dir): \(String(cString: strerror(errno)))", underlying: errno)
    }
    let tmp = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var ok = fchmod(fd, 0o600) == 0
    let bytes = Array(text.utf8)
    var done = 0
    while ok && done < bytes.count {
      let n = bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        ok = false
      } else {
        done += n
      }
    }
    ok = ok && fsync(fd) == 0
    let code = errno
    close(fd)
    guard ok, rename(tmp, file.path) == 0 else {
      let failure = ok ? errno : code
      unlink(tmp)
      throw ProviderError(
        .ioError, "cannot write \(file.path): \(String(cString: strerror(failure)))", underlying: failure)
    }
    let dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if dfd >= 0 {
      fsync(dfd)
      close(dfd)
    }
  }
}
