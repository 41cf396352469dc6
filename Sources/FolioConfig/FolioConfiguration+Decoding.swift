import Foundation
import ProviderAPI

/// The sections of config.toml, one function each, in the order the example config shows them.
extension ConfigDecoder {
  func decode(_ document: [String: ConfigValue]) throws(ProviderError) -> FolioConfiguration {
    let root = ConfigTable(path: "", values: document)
    try checkKeys(
      root,
      allowed: [
        ("theme", .value), ("cache_budget", .value), ("opener", .arrayOfTables), ("action", .arrayOfTables),
        ("domain", .arrayOfTables), ("keys", .table), ("preview", .table), ("previewer", .arrayOfTables),
      ])
    var config = FolioConfiguration()
    if let theme = try string(root, "theme") {
      if theme.trimmingWhitespace().isEmpty { throw error("theme", "must not be empty") }
      config.theme = theme
    }
    if let budget = root["cache_budget"] { config.cacheBudgetBytes = try cacheBudget(budget) }
    for table in try arrayOfTables(root, "opener") { config.openers.append(try opener(table)) }
    for table in try arrayOfTables(root, "action") {
      config.actions.append(try action(table, after: config.actions))
    }
    for table in try arrayOfTables(root, "domain") {
      config.domains.append(try domain(table, after: config.domains))
    }
    if let keys = root["keys"] {
      config.keyBindings = try keyBindings(keys)
      config.keyBindingSource = keyBindingSource(config.keyBindings)
    }
    if let preview = root["preview"] { config.preview = try previewSettings(preview) }
    for table in try arrayOfTables(root, "previewer") { config.previewers.append(try previewer(table)) }
    return config
  }

  // MARK: cache_budget

  func cacheBudget(_ value: ConfigValue) throws(ProviderError) -> Int64 {
    switch value {
    case .integer(let n):
      guard n >= 0 else { throw error("cache_budget", "\(n) is negative: give a size such as \"10 GiB\"") }
      return n
    case .string(let s):
      guard let n = ByteSize.parse(s) else {
        throw error("cache_budget", "\(Self.quote(s)) is not a size (use e.g. \"10 GiB\")")
      }
      return n
    default:
      throw typeError("cache_budget", expected: "a size such as \"10 GiB\" or a number of bytes", found: value)
    }
  }

  // MARK: [[opener]]

  func opener(_ table: ConfigTable) throws(ProviderError) -> OpenerRule {
    try checkKeys(table, allowed: [("extensions", .value), ("content_type", .value), ("command", .value)])
    let match = try fileMatch(table, entry: "opener")
    return OpenerRule(match: match, argv: try command(table, "command"))
  }

  /// Which files an `[[opener]]` or a `[[previewer]]` is for: `extensions` or `content_type`.
  ///
  /// - Parameter entry: the section's name, for the "use two [[entry]] entries" hint.
  func fileMatch(_ table: ConfigTable, entry: String) throws(ProviderError) -> OpenerRule.Match {
    let extensions = try stringArray(table, "extensions")
    let contentType = try string(table, "content_type")
    switch (extensions, contentType) {
    case (let list?, nil):
      var normalized: [String] = []
      for raw in list {
        var ext = raw.trimmingWhitespace().lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        let path = table.path(of: "extensions")
        if ext.contains("*") || ext.contains("?") {
          throw error(path, "\(Self.quote(raw)) is a pattern: write the extension alone, e.g. \"md\"", near: raw)
        }
        if ext.isEmpty || ext.hasSuffix(".") || ext.contains("/") || ext.contains(where: \.isWhitespace) {
          throw error(path, "\(Self.quote(raw)) is not an extension (write e.g. \"md\")", near: raw)
        }
        if let dot = ext.lastIndex(of: ".") {
          let last = Self.quote(String(ext[ext.index(after: dot)...]))
          throw error(
            path, "\(Self.quote(raw)) has a dot: an extension is what follows the last dot (\(last))", near: raw)
        }
        normalized.append(ext)
      }
      if normalized.isEmpty { throw error(table.path(of: "extensions"), "must list at least one extension") }
      return .extensions(normalized)
    case (nil, let type?):
      let id = type.trimmingWhitespace()
      if id.isEmpty || id.contains(where: \.isWhitespace) || id.contains("/") {
        throw error(
          table.path(of: "content_type"),
          "\(Self.quote(type)) is not a content type (use a type identifier such as \"public.image\")")
      }
      return .contentType(ContentType(id))
    case (_?, _?):
      throw error(table.path, "give either \"extensions\" or \"content_type\", not both (use two [[\(entry)]] entries)")
    case (nil, nil):
      throw error(table.path, "missing key \"extensions\" or \"content_type\" (which files this \(entry) is for)")
    }
  }

  // MARK: [[action]]

  func action(_ table: ConfigTable, after earlier: [CustomActionConfig]) throws(ProviderError) -> CustomActionConfig {
    try checkKeys(
      table, allowed: [("name", .value), ("id", .value), ("rule", .value), ("command", .value), ("confirm", .value)])
    let name = try requiredString(table, "name", example: "\"Compress\"")
    let identifier: ActionIdentifier
    if let id = try string(table, "id") {
      guard !id.isEmpty, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
        throw error(table.path(of: "id"), "\(Self.quote(id)) is not an id: use letters, digits, '-', '_' or '.'")
      }
      identifier = ActionIdentifier(id)
    } else if let derived = CustomActionConfig.derivedIdentifier(fromName: name) {
      identifier = derived
    } else {
      throw error(table.path(of: "name"), "cannot make an id from this name: add id = \"user.something\"")
    }
    if let other = earlier.firstIndex(where: { $0.identifier == identifier }) {
      let key = table["id"] == nil ? "name" : "id"
      throw error(
        table.path(of: key),
        "the id \(Self.quote(identifier.rawValue)) is already used by action[\(other)] (give one of them another id)")
    }
    let ruleText = try requiredString(table, "rule", example: "\"TRUEPREDICATE\"")
    let rule: ActivationRule
    do {
      rule = try ActivationRule(parsing: ruleText)
    } catch {
      throw self.error(table.path(of: "rule"), "invalid rule: \(error.message)")
    }
    let command = try command(table, "command")
    let confirm = try bool(table, "confirm") ?? false
    return CustomActionConfig(identifier: identifier, name: name, rule: rule, command: command, confirm: confirm)
  }

  // MARK: [[domain]]

  /// Keys that would hold a secret: they belong in the credentials file, never in config.toml.
  static let secretKeys: Set<String> = [
    "password", "passwd", "pass", "secret", "token", "secret_key", "secret_access_key", "access_key",
    "passphrase", "api_key", "private_key",
  ]

  func domain(_ table: ConfigTable, after earlier: [DomainConfig]) throws(ProviderError) -> DomainConfig {
    let type = try requiredString(table, "type", example: "\"local\"")
    guard DomainConfig.types.contains(type) else {
      let list = DomainConfig.types.map(Self.quote).joined(separator: ", ")
      if let close = Self.suggestion(for: type, among: DomainConfig.types) {
        throw error(table.path(of: "type"), "unknown type \(Self.quote(type)) (did you mean \(Self.quote(close))?)")
      }
      throw error(table.path(of: "type"), "unknown type \(Self.quote(type)) (use one of \(list))")
    }
    let common: [(String, KeyShape)] = [("name", .value), ("type", .value), ("display_name", .value)]
    let remoteKeys = ["server", "url", "user", "password_command", "tls_ca"]
    // An SSH host: ssh signs in (keys, agent, ~/.ssh/config), so no user or password here.
    let sftpKeys = ["host", "port", "path", "ssh_config"]
    // A bucket: its credentials are found as the AWS CLI finds them (or the access key id here and
    // its secret in the credentials file); what the probe found is kept as conditional_writes.
    let s3Keys = ["bucket", "prefix", "endpoint", "region", "profile", "access_key_id", "conditional_writes", "versioning"]
    // A WebDAV folder: what the probe of `folio domain add` found is kept beside the account, and
    // on Nextcloud the size of upload chunks.
    let webdavKeys = remoteKeys + ["conditional_writes", "replaces_in_place", "dialect", "chunk_size_mib"]
    // An extension: its argv and its own settings (docs/EXTENSIONS.md).
    let extensionKeys: [(String, KeyShape)] = [("command", .value), ("config", .table)]
    let specific: [String] =
      type == "local" ? ["root"] : type == "sftp" ? sftpKeys : type == "s3" ? s3Keys : type == "webdav" ? webdavKeys
      : type == "extension" ? [] : remoteKeys
    try checkKeys(table, allowed: common + specific.map { ($0, .value) } + (type == "extension" ? extensionKeys : [])) { key in
      if Self.secretKeys.contains(key.lowercased()) {
        return "secrets do not belong in config.toml: Folio asks for them and keeps them in "
          + self.paths.credentialsFile.path
      }
      // (Elsewhere an SFTP key such as `host` or `path` is an unknown key, which suggests the key
      // meant: `server`, `root`.)
      if type == "local" && remoteKeys.contains(key) || type != "local" && key == "root"
        || (type == "sftp" || type == "s3") && remoteKeys.contains(key)
      {
        return "not used by a domain of type \(Self.quote(type))"
      }
      return nil
    }

    let name = try requiredString(table, "name", example: "\"work\"")
    guard DomainIdentifier.isValid(name) else {
      throw error(
        table.path(of: "name"),
        "\(Self.quote(name)) is not a valid domain name: use 1 to 64 letters, digits, '-', '_' or '.'")
    }
    if name == DomainIdentifier.local.rawValue {
      throw error(table.path(of: "name"), "\"local\" is the built-in local domain: choose another name")
    }
    if let other = earlier.firstIndex(where: { $0.identifier.rawValue == name }) {
      throw error(table.path(of: "name"), "domain[\(other)] already has the name \(Self.quote(name))")
    }
    let displayName = try string(table, "display_name") ?? name
    if displayName.trimmingWhitespace().isEmpty { throw error(table.path(of: "display_name"), "must not be empty") }

    let kind: DomainConfig.Kind
    var passwordCommand: [String]? = nil
    if type == "extension" {
      let (argv, settings) = try extensionSettings(table)
      return DomainConfig(
        identifier: DomainIdentifier(unchecked: name), displayName: displayName, kind: .remote(type: type, settings: [:]),
        extensionCommand: argv, extensionConfig: settings)
    }
    if type == "local" {
      let root = try requiredString(table, "root", example: "\"~/projects\"")
      let expanded = paths.expandingTilde(root)
      guard expanded.hasPrefix("/") else {
        let why = root.hasPrefix("~") ? " (only ~ and ~/ are expanded)" : ""
        throw error(table.path(of: "root"), "\(Self.quote(root)) must be an absolute path or start with ~/\(why)")
      }
      kind = .local(root: URL(fileURLWithPath: expanded).standardized.path)
    } else {
      var settings: [String: String] = [:]
      if table["password_command"] != nil {
        let argv = try command(table, "password_command")
        if let placeholder = argv.first(where: { CommandPlaceholder(rawValue: $0) != nil }) {
          throw error(table.path(of: "password_command"), "\(Self.quote(placeholder)) means nothing here: the command gets no file")
        }
        passwordCommand = argv
      }
      // `port = 2222` (an integer) or a string of digits.
      if type == "sftp", case .integer(let port)? = table["port"] {
        guard (1...65535).contains(port) else { throw error(table.path(of: "port"), "must be from 1 to 65535") }
        settings["port"] = String(port)
      }
      // `chunk_size_mib = 16` (an integer) or a string of digits.
      if type == "webdav", case .integer(let mib)? = table["chunk_size_mib"] { settings["chunk_size_mib"] = String(mib) }
      for key in specific where key != "password_command" && settings[key] == nil {
        if var value = try string(table, key) {
          if value.trimmingWhitespace().isEmpty { throw error(table.path(of: key), "must not be empty") }
          if key == "tls_ca" || key == "ssh_config" {
            // The certificates to trust for https instead of the system's (a server's own).
            value = paths.expandingTilde(value)
            guard value.hasPrefix("/") else {
              throw error(table.path(of: key), "\(Self.quote(value)) must be an absolute path or start with ~/")
            }
          }
          settings[key] = value
        }
      }
      if type == "s3" {
        if settings["bucket"] == nil { throw error(table.path, "missing key \"bucket\" (the S3 bucket's name)") }
        if let value = settings["versioning"], !["enabled", "off"].contains(value) {
          throw error(table.path(of: "versioning"), "\(Self.quote(value)) is not \"enabled\" or \"off\"")
        }
        if let value = settings["conditional_writes"], !["honoured", "ignored", "unknown"].contains(value) {
          throw error(table.path(of: "conditional_writes"), "\(Self.quote(value)) is not one of \"honoured\", \"ignored\", \"unknown\"")
        }
      } else if type == "sftp" {
        if settings["host"] == nil { throw error(table.path, "missing key \"host\" (the SSH host, as ssh takes it)") }
        if let port = settings["port"], Int(port).map({ (1...65535).contains($0) }) != true {
          throw error(table.path(of: "port"), "\(Self.quote(port)) is not a port: a number from 1 to 65535")
        }
      } else if settings["server"] == nil && settings["url"] == nil {
        throw error(table.path, "missing key \"server\" or \"url\" (where the \(type) server is)")
      }
      if type == "webdav" {
        if let value = settings["conditional_writes"], !["honoured", "ignored", "unknown"].contains(value) {
          throw error(table.path(of: "conditional_writes"), "\(Self.quote(value)) is not one of \"honoured\", \"ignored\", \"unknown\"")
        }
        if let value = settings["replaces_in_place"], !["yes", "no", "unknown"].contains(value) {
          throw error(table.path(of: "replaces_in_place"), "\(Self.quote(value)) is not one of \"yes\", \"no\", \"unknown\"")
        }
        if let value = settings["dialect"], !["generic", "nextcloud"].contains(value) {
          throw error(table.path(of: "dialect"), "\(Self.quote(value)) is not \"generic\" or \"nextcloud\"")
        }
        if let value = settings["chunk_size_mib"], Int(value).map({ (5...5120).contains($0) }) != true {
          throw error(
            table.path(of: "chunk_size_mib"), "\(Self.quote(value)) is not a chunk size: a number of MiB from 5 to 5120 (Nextcloud's bounds)")
        }
      }
      kind = .remote(type: type, settings: settings)
    }
    return DomainConfig(
      identifier: DomainIdentifier(unchecked: name), displayName: displayName, kind: kind, passwordCommand: passwordCommand)
  }

  /// `command = ["argv0", …]` (an argv, never a shell string) and `[domain.config]`, a table of
  /// strings (numbers and booleans are taken as their text: the extension gets strings only).
  func extensionSettings(_ table: ConfigTable) throws(ProviderError) -> ([String], [String: String]) {
    let hint = ": an extension runs without a shell, so write each argument apart, e.g. [\"folio-ext-sqlite\", \"--verbose\"]"
    guard let argv = try stringArray(table, "command", hint: table["command"].map(\.isString) == true ? hint : ""), !argv.isEmpty,
      !argv[0].isEmpty
    else {
      throw error(table.path, "missing key \"command\" (the extension to run, e.g. command = [\"folio-ext-sqlite\"])")
    }
    var settings: [String: String] = [:]
    if let value = table["config"] {
      guard case .table(let values) = value else {
        throw typeError(table.path(of: "config"), expected: "a table ([domain.config] with lines such as root = \"/srv/store\")", found: value)
      }
      for (key, v) in values {
        switch v {
        case .string(let s): settings[key] = s
        case .integer(let n): settings[key] = String(n)
        case .bool(let b): settings[key] = b ? "true" : "false"
        default:
          throw typeError(table.path(of: "config") + "." + key, expected: "a string", found: v)
        }
      }
    }
    return (argv, settings)
  }

  // MARK: [keys]

  func keyBindings(_ value: ConfigValue) throws(ProviderError) -> [String: [String]] {
    guard case .table(let values) = value else {
      throw typeError("keys", expected: "a table ([keys] with lines such as open = [\"enter\", \"l\"])", found: value)
    }
    let table = ConfigTable(path: "keys", values: values)
    var bindings: [String: [String]] = [:]
    let ordered = values.keys.sorted {
      (locator.exactLine(of: table.path(of: $0)) ?? .max, $0) < (locator.exactLine(of: table.path(of: $1)) ?? .max, $1)
    }
    for action in ordered {
      let path = table.path(of: action)
      let keys: [String]
      switch values[action]! {
      case .string(let key): keys = [key]
      case .array(let elements):
        var list: [String] = []
        for element in elements {
          guard case .string(let key) = element else {
            throw error(
              path, "expected a key name or an array of key names, but one element is \(element.kindDescription)")
          }
          list.append(key)
        }
        keys = list
      case let other:
        throw typeError(path, expected: "a key name or an array of key names", found: other)
      }
      if let empty = keys.first(where: { $0.trimmingWhitespace().isEmpty }) {
        throw error(path, "\(Self.quote(empty)) is not a key name")
      }
      bindings[action] = keys
    }
    return bindings
  }

  /// The lines of the bindings, for the errors the key map finds in them.
  func keyBindingSource(_ bindings: [String: [String]]) -> KeyBindingSource {
    var source = KeyBindingSource(file: file)
    for (command, keys) in bindings {
      let path = "keys." + command
      source.lines[command] = locator.line(of: path)
      var lines: [String: Int] = [:]
      for key in keys where lines[key] == nil { lines[key] = locator.line(of: path, containing: "\"" + key + "\"") }
      source.keyLines[command] = lines
    }
    return source
  }
}
