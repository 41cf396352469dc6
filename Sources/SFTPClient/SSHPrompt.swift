import Foundation

/// A question ssh asks through SSH_ASKPASS, as the caller's handler sees it.
public struct SSHPrompt: Sendable, Equatable {
  public enum Kind: Sendable, Equatable {
    /// A password or key passphrase: answer with the secret, never echo it.
    case secret
    /// An unknown host key: accept or refuse. Folio never accepts on the user's behalf.
    case hostKey
    /// A yes/no question of ssh's own (SSH_ASKPASS_PROMPT=confirm, e.g. an agent key confirmation).
    case confirmation
    /// Information only (SSH_ASKPASS_PROMPT=none, e.g. "touch your security key"); ssh dismisses it.
    case notice
  }

  public var kind: Kind
  /// ssh's text, line by line, each escaped for display (it names hosts the user typed).
  public var lines: [String]
  /// For a host key: the fingerprint ssh printed (e.g. "SHA256:…"), for the user to compare.
  public var fingerprint: String?
  /// For a secret: which secret this ssh process asks for (1 for the first). A second one means
  /// ssh did not take the answer before it — a wrong password asks again with the same words —
  /// or it moved on to another key: worth saying in the prompt, and a saved password is tried
  /// only on the first.
  public var attempt: Int

  public init(kind: Kind, lines: [String], fingerprint: String? = nil, attempt: Int = 1) {
    self.kind = kind
    self.lines = lines
    self.fingerprint = fingerprint
    self.attempt = attempt
  }

  /// Builds the prompt from what the askpass helper relays: SSH_ASKPASS_PROMPT and argv[1].
  init(hint: UInt8, text: [UInt8], attempt: Int = 1) {
    self.attempt = attempt
    let raw = String(decoding: text, as: UTF8.self)
    lines = text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { DisplayText.escape($0) }
    while lines.last?.isEmpty == true { lines.removeLast() }
    switch hint {
    case AskpassWire.hintConfirm: kind = .confirmation
    case AskpassWire.hintNone: kind = .notice
    default:
      // sshconnect.c confirm(): the host key question is an ordinary echoed prompt to askpass.
      kind = raw.contains("continue connecting (yes/no") ? .hostKey : .secret
    }
    if kind == .hostKey, let range = raw.range(of: "key fingerprint is ") {
      let rest = raw[range.upperBound...]
      let token = rest.prefix { !$0.isWhitespace }
      fingerprint = DisplayText.escape(Array(token.hasSuffix(".") ? token.dropLast().utf8 : token.utf8))
    }
  }
}

/// The handler's answer.
public enum SSHPromptAnswer: Sendable, Equatable {
  /// The secret for a `.secret` prompt.
  case secret(String)
  /// Yes to a host key or confirmation; dismisses a notice.
  case accept
  /// No, or the user cancelled: ssh gets no answer (askpass exits 1).
  case refuse
}

/// Answers ssh's prompts; called once per prompt, possibly while other connections prompt too.
public typealias SSHPromptHandler = @Sendable (SSHPrompt) async -> SSHPromptAnswer
