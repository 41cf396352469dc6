import FolioProtocol
import Foundation

/// `--users FILE`: lines `name:password[:quota-bytes]`, `#` comments and blank lines ignored.
///
/// Applied at every start (adding or updating those users), so a test or a small deployment can
/// keep its accounts in one file. The password may itself contain ':' only when a quota follows,
/// so the quota is the last field when it is all digits.
struct UsersFile {
  struct Entry: Equatable {
    var name: String
    var password: String
    var quota: Int64?
  }

  static func parse(_ text: String) throws(ServerError) -> [Entry] {
    var out: [Entry] = []
    // `\r\n` is one Character in Swift: split on every newline kind, not on "\n".
    for (n, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
      let line = String(raw)
      if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
      guard let colon = line.firstIndex(of: ":") else {
        throw .invalid("users file line \(n + 1): expected name:password[:quota-bytes]")
      }
      let name = String(line[..<colon])
      var password = String(line[line.index(after: colon)...])
      var quota: Int64? = nil
      if let last = password.lastIndex(of: ":"), let q = Int64(password[password.index(after: last)...]), q >= 0 {
        quota = q
        password = String(password[..<last])
      }
      try UserStore.validateName(name)
      guard !password.isEmpty else { throw .invalid("users file line \(n + 1): empty password") }
      out.append(Entry(name: name, password: password, quota: quota))
    }
    return out
  }
}
