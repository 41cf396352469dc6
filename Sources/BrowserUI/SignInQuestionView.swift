/// The question box: ssh's words, the fingerprint of an unknown host key on a line of its own,
/// and the field — masked for a secret, plain for the "yes" a host key needs.
enum SignInQuestionView {
  static func draw(_ box: SignInQuestionState, _ s: AppState, _ g: Glyphs, _ screen: inout Screen) {
    let q = box.question
    let w = min(s.width - 2, 76)
    let inner = max(1, w - 4)
    var text: [(String, StyleRole)] = []
    for line in q.lines { text += DisplayWidth.wrap(line, to: inner).map { ($0, StyleRole.prompt) } }
    if let f = q.fingerprint { text.append(("Fingerprint: " + f, .promptLabel)) }
    if q.askedAgain { text.append(("ssh refused the previous answer: try again", .error)) }
    let keys: String
    let title: String
    switch q.kind {
    case .secret:
      title = "Sign in to " + box.locationName
      keys = "enter answer · esc cancel"
    case .hostKey:
      title = "Unknown host key: " + box.locationName
      text.append(("Compare it with the server's own. Type yes to trust it and connect.", .prompt))
      keys = "yes + enter trust · esc refuse"
    case .confirmation, .notice:
      title = box.locationName + " asks"
      keys = "yes + enter · esc refuse"
    }
    let errorLines = box.error.map { DisplayWidth.wrap($0, to: inner) } ?? []
    let h = OverlayView.fitted(height: text.count + 5, s)
    let (bx, by) = OverlayView.box(&screen, s, g, width: w, height: h, title: title, role: .prompt)
    // The field and the keys (or what was wrong with the answer) keep their rows at the bottom;
    // ssh's words take what is above.
    let fieldRow = by + h - 3
    var y = by + 1
    for (line, role) in text {
      guard y < fieldRow - 1 else { break }
      screen.put(line, x: bx + 2, y: y, maxWidth: inner, role: role, ascii: s.ascii)
      y += 1
    }
    guard fieldRow > by else { return }
    screen.fill(x: bx + 2, y: fieldRow, width: inner, height: 1, role: .promptInput)
    // A secret is never drawn, not even its length past the box: one mark per character typed.
    let shown =
      q.kind == .secret ? String(repeating: s.ascii ? "*" : "•", count: box.editor.text.count) : box.editor.string
    let used = screen.put(shown, x: bx + 2, y: fieldRow, maxWidth: inner - 1, role: .promptInput, ascii: s.ascii)
    if used < inner { screen[bx + 2 + used, fieldRow] = Cell(" ", role: .menuSelected) }
    if fieldRow + 1 < by + h - 1 {
      let line = errorLines.first ?? keys
      screen.put(line, x: bx + 2, y: fieldRow + 1, maxWidth: inner, role: errorLines.isEmpty ? .promptLabel : .error, ascii: s.ascii)
    }
  }
}
