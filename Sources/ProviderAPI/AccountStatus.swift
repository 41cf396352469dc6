/// How a remote account is doing, for `folio domain list` and the sidebar.
public enum AccountStatus: Sendable, Equatable {
  /// Signed in and under quota (`quotaBytes` nil: no quota, or none the storage states).
  case online(usedBytes: Int64, quotaBytes: Int64?)
  /// Signed in, but the files fill the quota (or the disk): uploads fail with `insufficientQuota`.
  case overQuota(usedBytes: Int64, quotaBytes: Int64)
  /// No password is known, or the storage refused it.
  case needsSignIn(String)
  /// The storage cannot be reached or is failing for now.
  case offline(String)
  /// Something else went wrong (an unreadable answer, a TLS failure).
  case failed(ProviderError)
}

/// A provider whose storage can say how its account is doing (signed in, used space, quota).
/// Optional: the local disk has no account, and a storage without the notion answers nothing.
public protocol AccountStatusProviding: Provider {
  /// One cheap request; never throws (what went wrong is the status).
  func accountStatus() async -> AccountStatus
}

extension AccountStatus {
  /// The status a failed status request means: a refused sign-in asks for one, an unreachable
  /// storage is offline, anything else failed (shared by every remote provider, so a location
  /// reads the same whichever storage it is).
  public init(failure error: ProviderError) {
    switch error.code {
    case .notAuthenticated: self = .needsSignIn(error.message)
    case .serverUnreachable: self = .offline(error.message)
    default: self = .failed(error)
    }
  }
}
