import ArgumentParser

/// `folio serve`: the FolioServer, which is its own executable, `folio-serve` (``ServeExecutable``,
/// docs/DECISIONS.md). `FolioCommand.start` execs it with the arguments as given before any
/// parse, so `folio serve --help` is the server's own help; this type is here so that
/// `folio --help` lists the command.
struct ServeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Run a FolioServer (the multi-user file server of docs/PROTOCOL.md), or manage its users.",
    discussion: """
      folio serve --root DIR [--host H] [--port N]   serve DIR until SIGTERM or Ctrl-C
      folio serve admin --root DIR user add NAME --password-stdin [--quota BYTES]
      Runs folio-serve, installed beside folio: see folio serve --help.
      """)

  @Argument(parsing: .captureForPassthrough, help: .hidden) var arguments: [String] = []

  func run() throws { ServeExecutable.exec(arguments) }
}
