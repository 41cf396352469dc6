import ProviderAPI

/// A question a location asks while it connects (ssh's password, key passphrase or unknown host
/// key), put to the person in the browser's own box.
///
/// The browser owns the terminal, so the program that connects (ssh, in its own session) cannot
/// ask on it; its question comes here instead and the connection waits for the answer, so the
/// work that needed it goes on by itself. Text is already escaped for display: it comes from ssh
/// and names hosts and files the user or a server chose.
public struct SignInQuestion: Sendable, Equatable, Identifiable {
  public enum Kind: Sendable, Equatable {
    /// A password or passphrase: typed masked, never shown.
    case secret
    /// An unknown host key: accepted only when the person types "yes" after reading the fingerprint.
    case hostKey
    /// Another yes/no question of ssh's own (a key confirmation): "yes" too.
    case confirmation
    /// Information only ("touch your security key"): said in the status line.
    case notice
  }

  /// Given by the app's broker; the answer names it.
  public var id: UInt64
  public var domain: DomainIdentifier
  public var kind: Kind
  /// ssh's words, line by line, escaped.
  public var lines: [String]
  /// A host key's fingerprint as ssh printed it (escaped), shown on a line of its own.
  public var fingerprint: String?
  /// The previous answer to this connection's question was not taken (ssh asks again).
  public var askedAgain: Bool

  public init(
    id: UInt64, domain: DomainIdentifier, kind: Kind, lines: [String], fingerprint: String? = nil, askedAgain: Bool = false
  ) {
    self.id = id
    self.domain = domain
    self.kind = kind
    self.lines = lines
    self.fingerprint = fingerprint
    self.askedAgain = askedAgain
  }

  /// Whether `other` asks the same thing of the same location (two connections of one location
  /// asking for one passphrase get one box, and both the answer).
  /// The same question: one box answers both. A host key belongs to the host, not to a
  /// location: two locations on one server ask the same thing (ssh names the host in its lines),
  /// and one "yes" answers both.
  public func isSame(as other: SignInQuestion) -> Bool {
    (domain == other.domain || kind == .hostKey) && kind == other.kind && lines == other.lines
      && fingerprint == other.fingerprint
  }
}

/// What the person answered.
public enum SignInAnswer: Sendable, Equatable {
  case secret(String)
  /// "yes" typed to a host key or a confirmation; a notice seen.
  case accept
  /// Esc (or "no"): the connection gets no answer and fails with ssh's own reason.
  case refuse
}

/// The question box on screen: the question and what is typed so far.
public struct SignInQuestionState: Sendable, Equatable {
  public var question: SignInQuestion
  public var locationName: String
  /// Other connections of the location asking the same question meanwhile: one box, and the
  /// answer goes to each.
  public var alsoAsking: [UInt64] = []
  public var editor = LineEditor("")
  /// Said under the field: a host key answered with something other than "yes" or "no".
  public var error: String?

  public init(question: SignInQuestion, locationName: String) {
    self.question = question
    self.locationName = locationName
  }
}
