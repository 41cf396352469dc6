import ProviderAPI

/// Open With… (`o`): a command with its arguments, split as a shell splits words (quotes kept,
/// nothing expanded, no shell run: ``ShellWords``); the file's path is appended as one more
/// argument. The last few commands are remembered for Up and Down in the prompt, and kept between
/// runs (``OpenWithHistory``).
extension AppState {
  static let openWithTitle = "Open with (command; path added)"
  /// Commands remembered for the prompt's Up and Down.
  static let openWithHistoryLimit = 10

  /// Enter in the prompt: an empty line closes it; a line that does not split (an open quote)
  /// keeps it open with the reason; any other runs and is remembered.
  mutating func submitOpenWith(_ text: String, item: Item, domain: DomainIdentifier, prompt: PromptState) -> [Effect] {
    let words: [String]
    do throws(ShellWords.Problem) { words = try ShellWords.split(text) } catch {
      var p = prompt
      p.error = error.message
      overlay = .prompt(p)
      return []
    }
    overlay = nil
    guard !words.isEmpty else { return [] }
    openWithHistory.removeAll { $0 == text }
    openWithHistory.insert(text, at: 0)
    if openWithHistory.count > Self.openWithHistoryLimit { openWithHistory.removeLast() }
    return [.openWith(item, program: text, domain), .saveOpenWithHistory(OpenWithHistory(openWithHistory))]
  }

  /// Up (`older`) or Down in the Open With… prompt: the previous or next remembered command;
  /// Down past the newest comes back to an empty line. False when there is nowhere to go.
  func recallOpenWith(_ older: Bool, in p: inout PromptState) -> Bool {
    guard !openWithHistory.isEmpty else { return false }
    let next: Int?
    switch (p.historyIndex, older) {
    case (nil, true): next = 0
    case (nil, false): return false
    case (let i?, true): next = min(i + 1, openWithHistory.count - 1)
    case (let i?, false): next = i == 0 ? nil : i - 1
    }
    p.historyIndex = next
    p.editor = LineEditor(next.map { openWithHistory[$0] } ?? "")
    p.error = nil
    return true
  }
}
