/// A family of languages and formats the highlighter knows, told from a file's name and first
/// bytes.
///
/// Families, not languages: C, C++ and Objective-C share one table, as do JavaScript and
/// TypeScript, Java and Kotlin, TOML and INI, HTML and XML. A preview is a glance; telling `.h`
/// files of the three C languages apart is not worth a guess that can be wrong.
public enum Language: String, Sendable, Hashable, CaseIterable {
  case swift, c, python, shell, javascript, go, rust, java, ruby
  case json, yaml, toml, markdown, diff, html, css, sql, makefile, dockerfile

  /// How the header names it: "Swift", "C/C++", "Shell".
  public var displayName: String {
    switch self {
    case .swift: "Swift"
    case .c: "C/C++"
    case .python: "Python"
    case .shell: "Shell"
    case .javascript: "JavaScript"
    case .go: "Go"
    case .rust: "Rust"
    case .java: "Java/Kotlin"
    case .ruby: "Ruby"
    case .json: "JSON"
    case .yaml: "YAML"
    case .toml: "TOML/INI"
    case .markdown: "Markdown"
    case .diff: "Diff"
    case .html: "HTML/XML"
    case .css: "CSS"
    case .sql: "SQL"
    case .makefile: "Makefile"
    case .dockerfile: "Dockerfile"
    }
  }

  /// The language a name says, by its extension or the whole name (`Makefile`, `.bashrc`).
  public static func forName(_ name: String) -> Language? {
    let lower = name.lowercased()
    if let whole = byWholeName[lower] { return whole }
    if lower.hasPrefix("dockerfile.") || lower.hasPrefix("containerfile.") { return .dockerfile }
    if lower.hasPrefix("makefile.") { return .makefile }
    guard let dot = lower.lastIndex(of: "."), dot != lower.startIndex else { return nil }
    return byExtension[String(lower[lower.index(after: dot)...])]
  }

  /// The language the first bytes say: a `#!` line, `<?xml`, `<!DOCTYPE html>`, a diff's header.
  /// JSON is not told here (see ``ContentClassifier``): `{` alone says little about a file.
  public static func forContent(_ bytes: some Collection<UInt8>) -> Language? {
    let head = Array(bytes.prefix(512))
    if head.starts(with: Array("#!".utf8)) { return forInterpreterLine(head) }
    let start = head.firstIndex { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D } ?? head.endIndex
    let text = String(decoding: head[start...].prefix(64), as: UTF8.self).lowercased()
    if text.hasPrefix("<?xml") || text.hasPrefix("<!doctype html") || text.hasPrefix("<html") || text.hasPrefix("<svg") {
      return .html
    }
    if text.hasPrefix("diff --git ") || text.hasPrefix("diff -") || text.hasPrefix("index: ")
      || (text.hasPrefix("--- ") && String(decoding: head, as: UTF8.self).contains("\n+++ "))
    {
      return .diff
    }
    return nil
  }

  /// `#!/usr/bin/env python3`, `#!/bin/sh -e`: the interpreter's base name, past `env` and its
  /// options.
  static func forInterpreterLine(_ head: [UInt8]) -> Language? {
    let end = head.firstIndex(of: 0x0A) ?? head.endIndex
    let words = String(decoding: head[2..<end], as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
    guard var program = words.first.map({ $0.split(separator: "/").last.map(String.init) ?? "" }) else { return nil }
    if program == "env" {
      program = words.dropFirst().first { !$0.hasPrefix("-") && !$0.contains("=") }.map(String.init) ?? ""
      program = program.split(separator: "/").last.map(String.init) ?? program
    }
    if program.hasPrefix("python") || program == "pypy" || program == "pypy3" { return .python }
    if ["sh", "bash", "zsh", "ksh", "dash", "ash", "mksh", "busybox"].contains(program) { return .shell }
    if ["node", "nodejs", "deno", "bun", "ts-node"].contains(program) { return .javascript }
    if program.hasPrefix("ruby") { return .ruby }
    if program == "swift" { return .swift }
    if program == "make" || program == "gmake" { return .makefile }
    return nil
  }

  static let byWholeName: [String: Language] = [
    "makefile": .makefile, "gnumakefile": .makefile, "dockerfile": .dockerfile, "containerfile": .dockerfile,
    ".bashrc": .shell, ".bash_profile": .shell, ".profile": .shell, ".zshrc": .shell, ".zprofile": .shell,
    ".bash_aliases": .shell, ".bash_logout": .shell, ".zshenv": .shell, "pkgbuild": .shell, "apkbuild": .shell,
    "gemfile": .ruby, "rakefile": .ruby, "podfile": .ruby, "vagrantfile": .ruby, "brewfile": .ruby,
    ".gitconfig": .toml, ".editorconfig": .toml, ".npmrc": .toml, "cargo.lock": .toml, "pipfile": .toml,
    "package.resolved": .json, ".babelrc": .json, ".eslintrc": .json, "go.mod": .go, "go.sum": .go,
  ]

  static let byExtension: [String: Language] = {
    let groups: [(Language, [String])] = [
      (.swift, ["swift"]),
      (.c, ["c", "h", "cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "m", "mm", "ino", "cu", "inl"]),
      (.python, ["py", "pyw", "pyi", "pyx", "gyp", "bzl"]),
      (.shell, ["sh", "bash", "zsh", "ksh", "dash", "ash", "bats", "ebuild", "command"]),
      (.javascript, ["js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx"]),
      (.go, ["go"]),
      (.rust, ["rs"]),
      (.java, ["java", "kt", "kts", "gradle", "groovy", "scala", "sc", "cs", "dart"]),
      (.ruby, ["rb", "rake", "gemspec", "ru", "erb"]),
      (.json, ["json", "jsonc", "json5", "geojson", "jsonl", "ndjson", "ipynb", "webmanifest", "har"]),
      (.yaml, ["yml", "yaml"]),
      (.toml, ["toml", "ini", "cfg", "conf", "desktop", "service", "socket", "timer", "mount", "properties", "inf"]),
      (.markdown, ["md", "markdown", "mdown", "mkd", "mdx"]),
      (.diff, ["diff", "patch", "rej"]),
      (
        .html,
        [
          "html", "htm", "xhtml", "xml", "svg", "plist", "xsd", "xsl", "xslt", "rss", "atom", "vue", "storyboard", "xib",
          "csproj", "vcxproj",
        ]
      ),
      (.css, ["css", "scss", "sass", "less"]),
      (.sql, ["sql", "psql", "ddl"]),
      (.makefile, ["mk", "mak", "make"]),
      (.dockerfile, ["dockerfile", "containerfile"]),
    ]
    var table: [String: Language] = [:]
    for (language, extensions) in groups { for e in extensions { table[e] = language } }
    return table
  }()
}
