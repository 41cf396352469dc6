import ProviderAPI

/// The shell, as lf, ranger and nnn users reach for it: `!` runs a command on the selection, `S`
/// opens `$SHELL` in the folder, `Y` copies the selection's paths.
///
/// A program is given paths, never a string with names pasted in: the command typed is the
/// shell's script (`$SHELL -c COMMAND folio PATH…`) and the selection its `"$@"`, so a name with
/// spaces, quotes or `$(…)` reaches the command as one argument, exactly (docs/DECISIONS.md).
extension AppState {
  /// The folder being browsed when it is a folder of this computer — where a shell can run and
  /// whose items are files a program can be given. Nil in Recently Deleted and on a remote
  /// location (its items are on a server: there is no folder here to `cd` into).
  public var localFolder: FolderLocation? {
    guard case .folder(let f) = browse.location, !isRemote(f.domain) else { return nil }
    return f
  }

  /// The folder a shell would run in, or nil with the reason in the status line.
  mutating func shellFolder(for what: String) -> FolderLocation? {
    guard tab == .browse else {
      message = StatusMessage("\(what) runs in a folder: switch to Browse first", isError: true)
      return nil
    }
    guard case .folder(let f) = browse.location else {
      message = StatusMessage("\(what) runs in a folder, not in Recently Deleted", isError: true)
      return nil
    }
    guard !isRemote(f.domain) else {
      let name = sidebar.locations.first { $0.domain == f.domain }?.name ?? f.domain.rawValue
      message = StatusMessage(
        "\(what) works on this computer's folders only: \(TerminalText.escape(name)) is a remote location", isError: true)
      return nil
    }
    return f
  }

  /// `!`: the prompt for a command. The selection is taken now (the marked items, else the one
  /// under the cursor), so what the title says is what the command gets.
  mutating func promptForShellCommand() -> [Effect] {
    guard let folder = shellFolder(for: "A shell command") else { return [] }
    let paths = selection.map(\.path)
    let what = paths.count == 1 ? "1 item" : "\(paths.count) items"
    // The last command is proposed: Enter runs it again, the first character typed replaces it.
    let editor = lastShellCommand.map { LineEditor(proposing: $0) } ?? LineEditor("")
    overlay = .prompt(
      PromptState(title: "Shell command (\"$@\": \(what))", purpose: .shellCommand(folder, arguments: paths), editor: editor))
    return []
  }

  /// Enter in the `!` prompt: an empty command closes it; any other runs.
  mutating func submitShellCommand(_ text: String, in folder: FolderLocation, arguments: [ItemPath]) -> [Effect] {
    overlay = nil
    guard text.contains(where: { $0 != " " }) else { return [] }
    lastShellCommand = text
    return [.runShellCommand(text, arguments: arguments, in: folder.path)]
  }

  /// `S`: `$SHELL` in the folder being browsed.
  mutating func openShell() -> [Effect] {
    guard let folder = shellFolder(for: "A shell") else { return [] }
    return [.openShell(in: folder.path)]
  }

  /// `Y`: the selection's paths, one per line, to Folio's clipboard as text and to the system
  /// clipboard (OSC 52). A local item's path is its real path; a remote one's is the `NAME:/path`
  /// address every `folio` command takes. No newline after the last path: pasted into a shell,
  /// it would run the line.
  mutating func copyPaths() -> [Effect] {
    let items = selection
    guard !items.isEmpty else { return [] }
    let domain = currentDomain
    if tab == .browse, case .trash = browse.location {
      message = StatusMessage("Restore it first: items in Recently Deleted have no path to copy", isError: true)
      return []
    }
    let prefix: [UInt8] = isRemote(domain) ? Array(domain.rawValue.utf8) + [UInt8(ascii: ":")] : []
    let lines = items.map { prefix + $0.path.bytes }
    let text = Array(lines.joined(separator: [UInt8(ascii: "\n")]))
    clipboard = Clipboard(items: [], domain: domain, text: text)
    message = StatusMessage(
      lines.count == 1 ? "Copied the path \(TerminalText.escape(bytes: lines[0]))" : "Copied \(lines.count) paths")
    return [.copyToSystemClipboard(text)]
  }
}
