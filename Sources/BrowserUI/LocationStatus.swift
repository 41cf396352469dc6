import ProviderAPI

/// How a remote location is doing, as the sidebar shows it next to its name: from status checks
/// (the composition root asks the provider, off the loop) and from the sync engine's events.
public enum LocationStatus: Sendable, Equatable {
  /// Not asked yet, or being asked.
  case checking
  case online
  /// The server cannot be reached or keeps failing for now.
  case offline(String)
  /// No password is known, or the server refused it.
  case needsSignIn(String)
  /// Uploads fail until files are removed on the server (or the quota is raised).
  case overQuota
  /// Something else (an unreadable answer, a TLS failure).
  case error(String)
  /// The server is not the one known (its SSH host key changed): refused until the person checks.
  case untrusted(String)

  /// The word in the sidebar.
  public var label: String {
    switch self {
    case .checking: return "checking"
    case .online: return "online"
    case .offline: return "offline"
    case .needsSignIn: return "needs sign-in"
    case .overQuota: return "over quota"
    case .error: return "error"
    case .untrusted: return "host key changed"
    }
  }

  /// Whether the state needs a person (drawn in the error color).
  public var isProblem: Bool {
    switch self {
    case .checking, .online: return false
    case .offline, .needsSignIn, .overQuota, .error, .untrusted: return true
    }
  }

  /// "online", "syncing 3", "offline, 2 waiting": what the sidebar writes in parentheses.
  public func text(syncing: Int) -> String {
    guard syncing > 0 else { return label }
    switch self {
    case .online, .checking: return "syncing \(syncing)"
    default: return "\(label), \(syncing) waiting"
    }
  }

  /// The status an error from the location implies, if it says anything about the location.
  public static func implied(by error: ProviderError) -> LocationStatus? {
    switch error.code {
    case .notAuthenticated: return .needsSignIn(error.message)
    case .serverUnreachable: return .offline(error.message)
    case .insufficientQuota: return .overQuota
    case .serverNotTrusted: return .untrusted(error.message)
    default: return nil
    }
  }
}
