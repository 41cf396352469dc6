import Foundation
import Testing

/// `scripts/install` into a private prefix, and the installed folio in a real terminal: it finds
/// the themes the install put next to it, from nothing but its own path.
extension TerminalEndToEndTests {
  @Suite("Installation")
  struct Installation {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().path

    /// What an install puts under its prefix, besides the themes.
    static let installed = [
      "bin/folio", "bin/folio-serve", "share/man/man1/folio.1", "share/bash-completion/completions/folio",
      "share/zsh/site-functions/_folio", "share/fish/vendor_completions.d/folio.fish",
    ]

    @Test("scripts/install puts every file in place, and the installed folio finds its themes there")
    func installedFolioFindsItsThemes() throws {
      let sandbox = try Sandbox()
      // Under the sandbox (a temporary folder), never under the package: the source tree's Themes/
      // must not be what the installed binary finds.
      let prefix = sandbox.root + "/prefix"
      let install = try Programs.run(
        "/bin/bash",
        [Self.packageRoot + "/scripts/install", "--no-build", "--binary", try FolioBinary.path(), "--prefix", prefix],
        environment: sandbox.environment)
      #expect(install.status == 0, "scripts/install failed:\n\(install.stdout)\(install.stderr)")
      let themes = try FileManager.default.contentsOfDirectory(atPath: Self.packageRoot + "/Themes")
        .filter { $0.hasSuffix(".toml") }.map { "share/folio/themes/" + $0 }
      #expect(themes.contains("share/folio/themes/light.toml"))
      for file in Self.installed + themes {
        #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file) is not installed")
      }
      #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/folio"))
      // The shipped extensions, beside the binary where a location's `command` finds them.
      for program in ["folio-ext-sqlite", "folio-ext-shdir", "folio-rclone"] {
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/" + program), "\(program) is not installed")
      }

      // The server is its own executable: the installed folio finds the folio-serve installed beside
      // it, PATH aside (the sandbox's PATH has no build directory).
      let serveHelp = try Programs.run(prefix + "/bin/folio", ["serve", "--help"], environment: sandbox.environment)
      #expect(serveHelp.status == 0 && serveHelp.stdout.contains("USAGE: folio serve"), "\(serveHelp.stdout)\(serveHelp.stderr)")

      try sandbox.file("hello.txt", "hi")
      // No system data directory has Folio's themes: only PREFIX/share, found from bin/folio.
      let environment = ["XDG_DATA_DIRS": sandbox.root + "/no-such-share"]
      let folio = prefix + "/bin/folio"
      // The control: a theme that is nowhere stops folio before the browser (exit 3).
      let missing = try TmuxTerminal(
        sandbox, name: "missing", environment: environment, arguments: ["--theme", "no-such-theme"], folio: folio)
      try missing.wait(for: "EXITED 3")
      missing.kill()
      // `light` is not built in: the browser opens only if the installed file is found.
      let term = try TmuxTerminal(sandbox, environment: environment, arguments: ["--theme", "light"], folio: folio)
      let screen = try term.wait(for: "hello.txt")
      #expect(!screen.contains("EXITED"), "\(screen.framed)")
      try term.send("q")
      try term.wait(for: "EXITED 0")
    }
  }
}
