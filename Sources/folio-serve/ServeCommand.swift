import ArgumentParser
import FolioServer
import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// `folio serve`: the FolioServer file server (docs/PROTOCOL.md) and its operator commands, in
/// `folio-serve` (`folio serve` execs it).
struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Run a FolioServer (the multi-user file server of docs/PROTOCOL.md), or manage its users.",
    discussion: """
      folio serve --root DIR [--host H] [--port N]   serve DIR until SIGTERM or Ctrl-C
      folio serve admin --root DIR user add NAME --password-stdin [--quota BYTES]
      Once it accepts connections it prints one line: folio serve: listening on http://HOST:PORT
      """,
    subcommands: [ServeRunCommand.self, ServeAdminCommand.self],
    defaultSubcommand: ServeRunCommand.self)
}

/// `folio serve [run]`: serves a root folder.
struct ServeRunCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Serve a root folder (the default of folio serve).",
    discussion: """
      DIR holds server.sqlite (metadata, users, tokens, change log), content/ and uploads/.
      Requests are logged on stderr, one line each (method, path, status, ms).
      """)

  @Option(help: ArgumentHelp("The server's data folder (created if missing).", valueName: "DIR")) var root: String
  @Option(help: "The address to listen on.") var host = "127.0.0.1"
  @Option(parsing: .unconditional, help: "The port; 0 picks a free one (printed on start).") var port = 8470
  @Option(help: ArgumentHelp("Users to add or update at start: lines name:password[:quota-bytes].", valueName: "FILE"))
  var users: String?
  @Option(name: .customLong("tls-cert"), help: ArgumentHelp("A PEM certificate chain: serve HTTPS.", valueName: "FILE"))
  var tlsCert: String?
  @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "FILE"))
  var tlsKey: String?
  @Flag(help: "Accept /v1/_faults (fault injection, for tests only).") var faults = false
  @Option(name: .customLong("token-lifetime"), parsing: .unconditional, help: ArgumentHelp("Seconds a sign-in token stays valid.", valueName: "S"))
  var tokenLifetime: Double = 30 * 24 * 3600
  @Flag(name: .customLong("stop-at-end-of-input"), help: .hidden) var stopAtEndOfInput = false

  func validate() throws {
    if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
    if !(0...65535).contains(port) { throw ValidationError("--port is 0 to 65535") }
    if tokenLifetime <= 0 { throw ValidationError("--token-lifetime must be positive") }
  }

  func run() async throws {
    let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    let options = ServerOptions(
      root: URL(fileURLWithPath: root, relativeTo: cwd).standardizedFileURL, host: host, port: port,
      usersFile: users.map { URL(fileURLWithPath: $0, relativeTo: cwd) },
      tlsCertificate: tlsCert.map { URL(fileURLWithPath: $0, relativeTo: cwd) },
      tlsKey: tlsKey.map { URL(fileURLWithPath: $0, relativeTo: cwd) }, faultsEnabled: faults,
      tokenLifetime: tokenLifetime)
    if stopAtEndOfInput { EndOfInputStop.start() }
    try await runReporting { () async throws(ProviderError) in
      let server = try ServerRuntime(options: options)
      try await server.run { url in
        // The one line tests and scripts wait for; write(2) is unbuffered, so it is flushed.
        FileHandle.standardOutput.write(Data("folio serve: listening on \(url)\n".utf8))
      }
    }
  }
}

/// `folio serve admin`: users and tokens, while the server runs or not.
struct ServeAdminCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "admin",
    abstract: "Manage a server's users and tokens (works while it runs).",
    subcommands: [AdminUserCommand.self, AdminTokenCommand.self, AdminSeedCommand.self])

  @OptionGroup var root: AdminRoot
}

/// `--root DIR`, shared by every admin command.
struct AdminRoot: ParsableArguments {
  @Option(help: ArgumentHelp("The server's data folder.", valueName: "DIR")) var root: String

  func admin() throws(ProviderError) -> ServerAdmin {
    try ServerAdmin(root: URL(fileURLWithPath: root).standardizedFileURL)
  }
}

struct AdminUserCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "user", abstract: "Add users, set passwords and quotas, list them.",
    subcommands: [Add.self, Passwd.self, Quota.self, List.self])

  struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a user (the password on stdin or asked).")
    @OptionGroup var root: AdminRoot
    @Argument(help: "The user name: letters, digits, '.', '_', '-'.") var name: String
    @Flag(name: .customLong("password-stdin"), help: "Read the password from the first line of stdin.")
    var passwordStdin = false
    @Option(parsing: .unconditional, help: ArgumentHelp("A quota in bytes.", valueName: "BYTES")) var quota: Int64?

    func validate() throws {
      if let quota, quota < 0 { throw ValidationError("--quota is a number of bytes, 0 or more") }
    }

    func run() async throws {
      try await runReporting { () async throws(ProviderError) in
        let password = try readPassword(stdin: passwordStdin)
        try root.admin().addUser(name, password: password, quota: quota)
      }
    }
  }

  struct Passwd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "passwd", abstract: "Change a user's password; their tokens are revoked.")
    @OptionGroup var root: AdminRoot
    @Argument(help: "The user name.") var name: String
    @Flag(name: .customLong("password-stdin"), help: "Read the password from the first line of stdin.")
    var passwordStdin = false

    func run() async throws {
      try await runReporting { () async throws(ProviderError) in
        let password = try readPassword(stdin: passwordStdin)
        try root.admin().setPassword(name, password: password)
      }
    }
  }

  struct Quota: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "quota", abstract: "Set a user's quota in bytes, or none.")
    @OptionGroup var root: AdminRoot
    @Argument(help: "The user name.") var name: String
    @Argument(help: ArgumentHelp("Bytes, or none.", valueName: "BYTES|none")) var quota: String

    func validate() throws {
      if quota != "none" && Int64(quota).map({ $0 < 0 }) ?? true {
        throw ValidationError("the quota is a number of bytes or none")
      }
    }

    func run() async throws {
      try await runReporting { () async throws(ProviderError) in
        try root.admin().setQuota(name, quota: quota == "none" ? nil : Int64(quota))
      }
    }
  }

  struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List users: name, used bytes, quota, active tokens.")
    @OptionGroup var root: AdminRoot

    func run() async throws {
      try await runReporting { () async throws(ProviderError) in
        for user in try root.admin().list() {
          Console.out(
            "\(TerminalText.escape(user.name))\t\(user.usedBytes)\t\(user.quota.map(String.init) ?? "none")\t\(user.activeTokens)")
        }
      }
    }
  }
}

struct AdminTokenCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "token", abstract: "Revoke sign-in tokens.", subcommands: [Revoke.self])

  struct Revoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke every token of a user: they must sign in again.")
    @OptionGroup var root: AdminRoot
    @Argument(help: "The user name.") var name: String

    func run() async throws {
      try await runReporting { () async throws(ProviderError) in
        let n = try root.admin().revokeTokens(of: name)
        Console.out("revoked \(n) token\(n == 1 ? "" : "s") of \(TerminalText.escape(name))")
      }
    }
  }
}

/// The first line of stdin, or a password asked on the terminal without echo.
private func readPassword(stdin: Bool) throws(ProviderError) -> String {
  if stdin {
    guard let line = readLine(strippingNewline: true), !line.isEmpty else {
      throw ProviderError(.invalidArgument, "no password on stdin")
    }
    return line
  }
  guard isatty(0) == 1, let p = getpass("Password: ") else {
    throw ProviderError(.invalidArgument, "no terminal to ask the password on: use --password-stdin")
  }
  let password = String(cString: p)
  guard !password.isEmpty else { throw ProviderError(.invalidArgument, "the password is empty") }
  return password
}
