/// An access key, its secret and, for temporary credentials, the session token.
///
/// `description` never shows the secret or the token: errors and logs may print a value of this type.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible {
  public var accessKeyID: String
  public var secretAccessKey: String
  /// Sent as `x-amz-security-token` (and signed) when present: STS, SSO and role credentials.
  public var sessionToken: String?

  public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
    self.accessKeyID = accessKeyID
    self.secretAccessKey = secretAccessKey
    self.sessionToken = sessionToken
  }

  public var description: String {
    "access key \(accessKeyID)" + (sessionToken == nil ? "" : " (with a session token)")
  }
}

/// Credentials found as the AWS CLI would find them, with where they came from and the region the
/// same places name.
public struct S3ResolvedCredentials: Sendable, Equatable {
  public enum Source: Sendable, Equatable {
    /// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN).
    case environment
    /// A profile of the shared credentials file (`~/.aws/credentials` or AWS_SHARED_CREDENTIALS_FILE).
    case credentialsFile(path: String, profile: String)
    /// A profile of the config file (`~/.aws/config` or AWS_CONFIG_FILE), which may hold keys too.
    case configFile(path: String, profile: String)
  }

  public var credentials: S3Credentials
  public var source: Source
  /// AWS_REGION, else AWS_DEFAULT_REGION, else the profile's `region` in the config file; nil when
  /// none says (the caller then uses its own default, `us-east-1` for AWS).
  public var region: String?
  /// The profile's `endpoint_url` (or `s3 = … endpoint_url`) in the config file, or AWS_ENDPOINT_URL_S3
  /// / AWS_ENDPOINT_URL: an S3-compatible store named where the CLI would find it.
  public var endpointURL: String?
}
