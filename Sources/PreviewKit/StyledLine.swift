/// One line of a preview: runs of text, each with its ink. The text is already safe (no control
/// character, no escape sequence, no bidi control): every producer builds lines through
/// ``StyledLineBuilder``, which escapes what is not.
public struct StyledLine: Sendable, Hashable {
  public struct Run: Sendable, Hashable {
    public var text: String
    public var ink: Ink
    public init(_ text: String, _ ink: Ink = .plain) {
      self.text = text
      self.ink = ink
    }
  }

  public var runs: [Run]

  public init(_ runs: [Run] = []) { self.runs = runs }
  public init(_ text: String, _ ink: Ink = .plain) { runs = text.isEmpty ? [] : [Run(text, ink)] }

  /// The text without inks (for tests and search).
  public var plainText: String { runs.map(\.text).joined() }
}
