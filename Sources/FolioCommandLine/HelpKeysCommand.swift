import ArgumentParser
import BrowserUI
import Foundation

/// `folio help-keys [--json]`: the browser's keys as its `?` help lists them (the defaults, not
/// config.toml's `[keys]`), for the man page's KEYS section (scripts/manpage).
///
/// Hidden from `folio --help`: it is for the man page's generator, and a person reads the keys
/// with `?` or in `man folio`. Not `folio keys`: `folio NAME` opens the folder NAME when NAME is no
/// subcommand, and a folder named `keys` (SSH keys) is common; `help-keys` is not.
struct HelpKeysCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "help-keys", abstract: "List the browser's default keys (for the man page).", shouldDisplay: false)

  @Flag(help: "A JSON array of {keys, help, command} objects (command is absent for menu shortcuts).")
  var json = false

  @Flag(help: "The marks drawn beside names and what they mean (the help's legend) instead of the keys; with --json, {glyph, ascii, meaning} objects.")
  var badges = false

  /// One row of the legend's JSON output: the glyph, its `--ascii` form.
  private struct BadgeJSON: Encodable {
    var glyph: String
    var ascii: String
    var meaning: String
  }

  /// One row of the JSON output.
  private struct RowJSON: Encodable {
    var keys: String
    var help: String
    var command: String?
  }

  func run() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    if badges {
      // The legend `?` shows under the keys, from the same glyphs the rows use (BadgeLegend).
      let legend = BadgeLegend.rows(.unicode)
      if json {
        let data = try encoder.encode(legend.map { BadgeJSON(glyph: $0.glyph, ascii: $0.asciiGlyph, meaning: $0.meaning) })
        Console.out(String(decoding: data, as: UTF8.self))
      } else {
        for row in legend { Console.out(row.glyph + " (" + row.asciiGlyph + ")  " + row.meaning) }
      }
      return
    }
    let rows = KeyHelp.rows(for: .standard)
    if json {
      let data = try encoder.encode(rows.map { RowJSON(keys: $0.keys, help: $0.help, command: $0.command) })
      Console.out(String(decoding: data, as: UTF8.self))
      return
    }
    let width = rows.map(\.keys.count).max() ?? 0
    for row in rows {
      Console.out(row.keys.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + row.help)
    }
  }
}
