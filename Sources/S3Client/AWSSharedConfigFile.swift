/// One of the AWS CLI's INI files (`~/.aws/credentials`, `~/.aws/config`), parsed as botocore does.
///
/// Sections are `[name]`; in the config file a profile other than `default` is `[profile name]`
/// (botocore also accepts `[name]` there, and we do the same, the prefixed form winning). A line
/// `key = value` sets a setting; `#` or `;` at the start of a line is a comment. A setting with an
/// empty value followed by indented lines is a sub-section (`s3 =` then `  addressing_style = path`),
/// kept as `s3.addressing_style`. Names are compared as written except for surrounding spaces.
struct AWSSharedConfigFile: Sendable {
  enum Kind { case credentials, config }

  /// Settings per section name as written between the brackets.
  private(set) var sections: [String: [String: String]] = [:]

  init(text: String) {
    var current: String?
    var parent: String?
    for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
      var line = Substring(rawLine)
      if line.hasSuffix("\r") { line = line.dropLast() }
      let indented = line.first == " " || line.first == "\t"
      let trimmed = line.strippingBlanks()
      if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
      if !indented && trimmed.hasPrefix("[") && trimmed.hasSuffix("]") {
        let name = String(trimmed.dropFirst().dropLast()).strippingBlanks()
        current = name
        parent = nil
        if sections[name] == nil { sections[name] = [:] }
        continue
      }
      guard let section = current, let equals = trimmed.firstIndex(of: "=") else { continue }
      let key = String(trimmed[..<equals]).strippingBlanks().lowercased()
      let value = String(trimmed[trimmed.index(after: equals)...]).strippingBlanks()
      if indented, let parent {
        sections[section]?["\(parent).\(key)"] = value
      } else if value.isEmpty {
        parent = key
      } else {
        parent = nil
        sections[section]?[key] = value
      }
    }
  }

  /// The settings of `profile`: `[profile NAME]` in a config file (or `[NAME]`, or `[default]`
  /// for the default profile), `[NAME]` in a credentials file. Nil when the file has no such section.
  func settings(profile: String, kind: Kind) -> [String: String]? {
    switch kind {
    case .credentials:
      return sections[profile]
    case .config:
      if profile == "default" { return sections["default"] ?? sections["profile default"] }
      return sections["profile \(profile)"] ?? sections[profile]
    }
  }
}

extension StringProtocol {
  fileprivate func strippingBlanks() -> String {
    let set: Set<Character> = [" ", "\t"]
    var slice = Substring(self)
    while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
    while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
    return String(slice)
  }
}
