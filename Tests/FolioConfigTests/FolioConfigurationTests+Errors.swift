import FolioConfig
import Foundation
import ProviderAPI
import Testing

/// Every problem in a config is one line, `<file>:<line>: <key>: <what is wrong>`.
@Suite struct FolioConfigurationErrorTests {
  @Test func aSyntaxErrorCarriesLineAndColumn() throws {
    let message = try #require(parseError("theme = \"dark\"\ncache_budget = \n"))
    #expect(message.hasPrefix("config.toml:2:16: syntax error: "), "\(message)")
  }

  @Test func aValueOfTheWrongKind() {
    #expect(
      parseError(
        """
        [[action]]
        name = "a"
        rule = "TRUEPREDICATE"
        command = ["a"]

        [[action]]
        name = "b"
        rule = "TRUEPREDICATE"
        command = 7
        """) == "config.toml:9: action[1].command: expected an array of strings, found an integer")
    #expect(parseError("theme = 3") == "config.toml:1: theme: expected a string, found an integer")
    #expect(
      parseError("[[action]]\nname = \"x\"\nrule = \"TRUEPREDICATE\"\ncommand = [\"a\"]\nconfirm = \"yes\"")
        == "config.toml:5: action[0].confirm: expected true or false, found a string")
  }

  @Test func aCommandWrittenAsOneStringGetsAHint() throws {
    let message = try #require(parseError("[[opener]]\nextensions = [\"md\"]\ncommand = \"nvim {path}\""))
    #expect(message.hasPrefix("config.toml:3: opener[0].command: expected an array of strings, found a string: "))
    #expect(message.contains("without a shell"))
  }

  @Test func aBadSize() {
    #expect(
      parseError("theme = \"x\"\n\ncache_budget = \"ten gigs\"")
        == "config.toml:3: cache_budget: \"ten gigs\" is not a size (use e.g. \"10 GiB\")")
    #expect(
      parseError("cache_budget = \"10 G\"")
        == "config.toml:1: cache_budget: \"10 G\" is not a size (use e.g. \"10 GiB\")")
    #expect(
      parseError("cache_budget = -1") == "config.toml:1: cache_budget: -1 is negative: give a size such as \"10 GiB\"")
    #expect(
      parseError("cache_budget = 1.5")
        == "config.toml:1: cache_budget: expected a size such as \"10 GiB\" or a number of bytes, found a floating-point number"
    )
  }

  @Test(arguments: [
    ("theme = \"x\"\nthem = \"y\"", "config.toml:2: them: unknown key (did you mean \"theme\"?)"),
    ("cache-budget = 1", "config.toml:1: cache-budget: unknown key (did you mean \"cache_budget\"?)"),
    ("[openers]\nmd = \"nvim\"", "config.toml:1: openers: unknown key (did you mean [[opener]]?)"),
    ("[[actions]]\nname = \"x\"", "config.toml:1: actions: unknown key (did you mean [[action]]?)"),
    ("[keymap]\nopen = \"l\"", "config.toml:1: keymap: unknown key (did you mean [keys]?)"),
    (
      "[[action]]\nname = \"x\"\nrule = \"TRUEPREDICATE\"\ncmd = [\"a\"]",
      "config.toml:4: action[0].cmd: unknown key (did you mean \"command\"?)"
    ),
    (
      "[[domain]]\nname = \"p\"\ntype = \"local\"\npath = \"/srv\"",
      "config.toml:4: domain[0].path: unknown key (did you mean \"root\"?)"
    ),
    (
      "colour = \"red\"",
      "config.toml:1: colour: unknown key (expected one of: theme, cache_budget, [[opener]], [[action]], [[domain]], [keys], [preview], [[previewer]])"
    ),
  ])
  func anUnknownKeyIsNamedWithASuggestion(text: String, expected: String) {
    #expect(parseError(text) == expected)
  }

  @Test func theFirstUnknownKeyInFileOrderIsReported() {
    #expect(
      parseError("zzz = 1\naaa = 2")
        == "config.toml:1: zzz: unknown key (expected one of: theme, cache_budget, [[opener]], [[action]], [[domain]], [keys], [preview], [[previewer]])"
    )
  }

  @Test func aBadRuleCarriesTheRuleParsersMessage() throws {
    let rule = "filename ==="
    var ruleMessage = ""
    do {
      _ = try ActivationRule(parsing: rule)
    } catch {
      ruleMessage = error.message
    }
    #expect(!ruleMessage.isEmpty)
    let message = try #require(
      parseError(
        """
        [[action]]
        name = "Broken"
        command = ["true"]
        rule = "\(rule)"
        """))
    #expect(message == "config.toml:4: action[0].rule: invalid rule: \(ruleMessage)")
  }

  @Test func aPlaceholderInsideAnArgumentIsRefused() throws {
    let message = try #require(
      parseError(
        """
        [[action]]
        name = "Convert"
        rule = "TRUEPREDICATE"
        command = [
          "convert",
          "{path}",
          "--out={path}.png",
        ]
        """))
    #expect(
      message
        == "config.toml:7: action[0].command: \"--out={path}.png\" puts {path} inside an argument; a placeholder"
        + " must be a whole argument (Folio never splices paths into strings or runs a shell): split it, e.g."
        + " \"--out\", \"{path}\"")
    #expect(
      parseError("[[opener]]\nextensions = [\"md\"]\ncommand = [\"open\", \"{file}\"]")
        == "config.toml:3: opener[0].command: unknown placeholder \"{file}\" (use {path}, {paths}, {name}, {folder})")
  }

  @Test func aBadDomainName() {
    #expect(
      parseError("[[domain]]\ntype = \"local\"\nname = \"my files\"\nroot = \"/srv\"")
        == "config.toml:3: domain[0].name: \"my files\" is not a valid domain name: use 1 to 64 letters, digits, '-', '_' or '.'"
    )
    #expect(
      parseError("[[domain]]\ntype = \"local\"\nname = \"local\"\nroot = \"/srv\"")
        == "config.toml:3: domain[0].name: \"local\" is the built-in local domain: choose another name")
  }

  @Test func aRelativeRoot() {
    #expect(
      parseError("[[domain]]\nname = \"p\"\ntype = \"local\"\nroot = \"projects\"")
        == "config.toml:4: domain[0].root: \"projects\" must be an absolute path or start with ~/")
    #expect(
      parseError("[[domain]]\nname = \"p\"\ntype = \"local\"\nroot = \"~bob/projects\"")
        == "config.toml:4: domain[0].root: \"~bob/projects\" must be an absolute path or start with ~/ (only ~ and ~/ are expanded)"
    )
  }

  /// `tls_ca`: a server's own certificates, by absolute path or from ~/; not a local folder's key.
  @Test func theCertificatesToTrustOfAServer() throws {
    let text = "[[domain]]\nname = \"w\"\ntype = \"folio\"\nserver = \"https://x\"\nuser = \"ana\"\n"
    let config = try parse(text + "tls_ca = \"~/certs/w.pem\"")
    guard case .remote(_, let settings) = config.domains.first?.kind else {
      Issue.record("not a remote domain")
      return
    }
    #expect(settings["tls_ca"] == "/home/ana/certs/w.pem")
    #expect(
      parseError(text + "tls_ca = \"certs/w.pem\"")
        == "config.toml:6: domain[0].tls_ca: \"certs/w.pem\" must be an absolute path or start with ~/")
    #expect(
      parseError("[[domain]]\nname = \"p\"\ntype = \"local\"\nroot = \"/srv\"\ntls_ca = \"/c.pem\"")
        == "config.toml:5: domain[0].tls_ca: not used by a domain of type \"local\"")
  }

  @Test func domainTypesAndTheirKeys() {
    #expect(
      parseError("[[domain]]\nname = \"x\"\ntype = \"webdavs\"\nurl = \"https://x\"")
        == "config.toml:3: domain[0].type: unknown type \"webdavs\" (did you mean \"webdav\"?)")
    #expect(
      parseError("[[domain]]\nname = \"x\"\ntype = \"gopher\"")
        == "config.toml:3: domain[0].type: unknown type \"gopher\" (use one of \"local\", \"folio\", \"webdav\", \"s3\", \"sftp\", \"extension\")"
    )
    #expect(
      parseError("[[domain]]\nname = \"x\"\ntype = \"folio\"\nuser = \"ana\"")
        == "config.toml:1: domain[0]: missing key \"server\" or \"url\" (where the folio server is)")
    // An SSH host: ssh signs in, so no user here; its host is required, its port a port.
    #expect(
      parseError("[[domain]]\nname = \"x\"\ntype = \"sftp\"\nhost = \"h\"\nuser = \"ana\"")
        == "config.toml:5: domain[0].user: not used by a domain of type \"sftp\"")
    #expect(
      parseError("[[domain]]\nname = \"x\"\ntype = \"sftp\"\npath = \"/srv\"")
        == "config.toml:1: domain[0]: missing key \"host\" (the SSH host, as ssh takes it)")
    #expect(
      parseError("[[domain]]\nname = \"x\"\ntype = \"sftp\"\nhost = \"h\"\nport = 70000")
        == "config.toml:5: domain[0].port: must be from 1 to 65535")
    #expect(
      parseError("[[domain]]\nname = \"x\"\ntype = \"local\"\nroot = \"/\"\nserver = \"a\"")
        == "config.toml:5: domain[0].server: not used by a domain of type \"local\"")
    let secret = parseError("[[domain]]\nname = \"x\"\ntype = \"folio\"\nserver = \"a\"\npassword = \"hunter2\"")
    #expect(
      secret
        == "config.toml:5: domain[0].password: secrets do not belong in config.toml: Folio asks for them and keeps"
        + " them in /home/ana/.config/folio/credentials")
  }

  @Test func missingKeysPointAtTheirTablesHeader() {
    #expect(
      parseError(
        "theme = \"x\"\n\n[[action]]\nname = \"a\"\nrule = \"TRUEPREDICATE\"\ncommand = [\"a\"]\n\n[[action]]\nname = \"b\"\nrule = \"TRUEPREDICATE\""
      )
        == "config.toml:8: action[1]: missing key \"command\" (e.g. command = [\"xdg-open\", \"{path}\"])")
    #expect(
      parseError("[[opener]]\ncommand = [\"a\"]")
        == "config.toml:1: opener[0]: missing key \"extensions\" or \"content_type\" (which files this opener is for)")
  }

  @Test func duplicateIdentifiersAreRefused() {
    #expect(
      parseError(
        """
        [[action]]
        name = "Pack"
        rule = "TRUEPREDICATE"
        command = ["a"]
        [[action]]
        name = "pack!"
        rule = "TRUEPREDICATE"
        command = ["b"]
        """)
        == "config.toml:6: action[1].name: the id \"user.pack\" is already used by action[0] (give one of them another id)"
    )
    #expect(
      parseError(
        "[[domain]]\nname = \"a\"\ntype = \"local\"\nroot = \"/\"\n[[domain]]\nname = \"a\"\ntype = \"local\"\nroot = \"/srv\""
      )
        == "config.toml:6: domain[1].name: domain[0] already has the name \"a\"")
  }

  @Test func openerRulesNameTheirFiles() {
    #expect(
      parseError("[[opener]]\nextensions = [\"md\",\n  \"*.txt\"]\ncommand = [\"a\"]")
        == "config.toml:3: opener[0].extensions: \"*.txt\" is a pattern: write the extension alone, e.g. \"md\"")
    #expect(
      parseError("[[opener]]\nextensions = [\"tar.gz\"]\ncommand = [\"a\"]")
        == "config.toml:2: opener[0].extensions: \"tar.gz\" has a dot: an extension is what follows the last dot (\"gz\")"
    )
    #expect(
      parseError("[[opener]]\nextensions = []\ncommand = [\"a\"]")
        == "config.toml:2: opener[0].extensions: must list at least one extension")
    #expect(
      parseError("[[opener]]\nextensions = [\"md\"]\ncontent_type = \"public.text\"\ncommand = [\"a\"]")
        == "config.toml:1: opener[0]: give either \"extensions\" or \"content_type\", not both (use two [[opener]] entries)"
    )
    #expect(
      parseError("[[opener]]\ncontent_type = \"image/png\"\ncommand = [\"a\"]")
        == "config.toml:2: opener[0].content_type: \"image/png\" is not a content type (use a type identifier such as \"public.image\")"
    )
    #expect(
      parseError("[[opener]]\ncontent_type = \"public.image\"\ncommand = []")
        == "config.toml:3: opener[0].command: the command is empty: give at least the program, e.g. [\"xdg-open\", \"{path}\"]"
    )
  }

  @Test func suggestionsIgnoreCaseAndDashes() {
    #expect(parseError("Theme = \"x\"") == "config.toml:1: Theme: unknown key (did you mean \"theme\"?)")
    #expect(
      parseError("[[domain]]\nname = \"x\"\ntype = \"local\"\nroot = \"/\"\ndisplay-name = \"X\"")
        == "config.toml:5: domain[0].display-name: unknown key (did you mean \"display_name\"?)")
    #expect(
      parseError("[[domain]]\nname = \"x\"\ntype = \"ftp\"")
        == "config.toml:3: domain[0].type: unknown type \"ftp\" (did you mean \"sftp\"?)")
  }

  @Test func keyBindingsMustBeKeyNames() {
    #expect(
      parseError("[keys]\nopen = \"l\"\nquit = 4")
        == "config.toml:3: keys.quit: expected a key name or an array of key names, found an integer")
    #expect(
      parseError("[keys]\nopen = [\"l\", true]")
        == "config.toml:2: keys.open: expected a key name or an array of key names, but one element is a boolean")
    #expect(
      parseError("keys = 3")
        == "config.toml:1: keys: expected a table ([keys] with lines such as open = [\"enter\", \"l\"]), found an integer"
    )
  }

  /// The key map (BrowserUI) reads the key names; its complaints are said on their line.
  @Test func keyBindingErrorsAreOnTheirLines() throws {
    let config = try parse("theme = \"light\"\n[keys]\nquit = \"hyper-q\"\nopen = [\n  \"enter\",\n  \"hyperl\",\n]\n\"user.x\" = \"ctrl-t\"")
    let source = config.keyBindingSource
    #expect(source.error(command: "quit", key: "hyper-q", "unknown key").message == "config.toml:3: keys.quit: unknown key")
    #expect(source.error(command: "open", key: "hyperl", "unknown key").message == "config.toml:6: keys.open: unknown key")
    #expect(source.error(command: "open", key: nil, "x").message == "config.toml:4: keys.open: x")
    #expect(source.error(command: "user.x", key: "ctrl-t", "y").message == "config.toml:8: keys.user.x: y")
    #expect(source.error(command: "quit", key: nil, "a\nb").code == .badConfig)
    #expect(!source.error(command: "quit", key: nil, "a\nb").message.contains("\n"))
  }

  @Test func valuesInMessagesAreEscapedAndMessagesAreOneLine() throws {
    let message = try #require(parseError("cache_budget = \"1\\n\\u001b[2J GiB\""))
    #expect(message == "config.toml:1: cache_budget: \"1\\n\\e[2J GiB\" is not a size (use e.g. \"10 GiB\")")
    #expect(!message.contains("\n"))
    let syntax = try #require(parseError("a = \"unterminated\nb = 1"))
    #expect(!syntax.contains("\n"))
  }

  @Test func unreadableAndNonUTF8FilesAreErrors() throws {
    let dir = try TemporaryDirectory()
    #expect(throws: ProviderError(.badConfig, "\(dir.url.path): cannot read the config: it is a directory")) {
      try FolioConfiguration.load(from: dir.url, paths: anaPaths)
    }
    let file = dir.url.appendingPathComponent("config.toml")
    try Data([0x74, 0x3D, 0x22, 0x22, 0x0A, 0x61, 0x3D, 0x22, 0xFF, 0x22]).write(to: file)
    #expect(throws: ProviderError(.badConfig, "\(file.path):2: the config is not valid UTF-8 text")) {
      try FolioConfiguration.load(from: file, paths: anaPaths)
    }
  }
}

extension FolioConfigurationErrorTests {
  /// Nextcloud's upload chunks: a number of MiB within the server's bounds (5 MB to 5 GB).
  @Test func aNextcloudChunkSize() throws {
    let text = "[[domain]]\nname = \"c\"\ntype = \"webdav\"\nurl = \"https://c/remote.php/dav/files/ana/\"\nuser = \"ana\"\n"
    let config = try parse(text + "chunk_size_mib = \"16\"")
    guard case .remote(_, let settings) = config.domains.first?.kind else {
      Issue.record("not a remote domain")
      return
    }
    #expect(settings["chunk_size_mib"] == "16")
    let integer = try parse(text + "chunk_size_mib = 32")
    if case .remote(_, let written)? = integer.domains.first?.kind { #expect(written["chunk_size_mib"] == "32") }
    #expect(
      parseError(text + "chunk_size_mib = \"1\"")
        == "config.toml:6: domain[0].chunk_size_mib: \"1\" is not a chunk size: a number of MiB from 5 to 5120 (Nextcloud's bounds)")
  }
}
