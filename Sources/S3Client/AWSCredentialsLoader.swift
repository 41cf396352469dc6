import Foundation

/// Finds credentials where people already keep them for the AWS CLI, in the CLI's order (botocore's
/// credential chain, the parts that need no process or network):
///
/// 1. The environment: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN` — unless a
///    profile is named explicitly (`--profile`), which, as in botocore, skips the environment's keys.
/// 2. The profile's section in the shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`, else
///    `~/.aws/credentials`).
/// 3. The profile's section in the config file (`AWS_CONFIG_FILE`, else `~/.aws/config`), where a
///    profile is `[profile NAME]`.
///
/// The profile is the one named, else `AWS_PROFILE`, else `default`. The region is `AWS_REGION`,
/// else `AWS_DEFAULT_REGION`, else the profile's `region`.
///
/// Profiles that get credentials by running something (`credential_process`, SSO, `role_arn`, web
/// identity) are refused with a message naming what to do instead: running programs or calling
/// STS on the person's behalf is out of this client's scope.
public struct AWSCredentialsLoader: Sendable {
  public var environment: [String: String]
  /// `~` of the files' default paths.
  public var homeDirectory: String

  public init(environment: [String: String] = ProcessInfo.processInfo.environment, homeDirectory: String? = nil) {
    self.environment = environment
    self.homeDirectory = homeDirectory ?? environment["HOME"] ?? NSHomeDirectory()
  }

  /// The credentials file's path: `AWS_SHARED_CREDENTIALS_FILE` (with `~` expanded) or `~/.aws/credentials`.
  public var credentialsFilePath: String {
    expand(nonEmpty("AWS_SHARED_CREDENTIALS_FILE") ?? "~/.aws/credentials")
  }

  /// The config file's path: `AWS_CONFIG_FILE` (with `~` expanded) or `~/.aws/config`.
  public var configFilePath: String {
    expand(nonEmpty("AWS_CONFIG_FILE") ?? "~/.aws/config")
  }

  /// - Parameter explicitProfile: A profile the person named (`--profile`): the environment's keys
  ///   are then not used, and a profile that is in neither file is an error.
  /// - Throws: ``S3Error`` `.noCredentials` when nothing usable is found, with what was looked at.
  public func load(profile explicitProfile: String? = nil) throws -> S3ResolvedCredentials {
    let profile = explicitProfile ?? nonEmpty("AWS_PROFILE") ?? nonEmpty("AWS_DEFAULT_PROFILE") ?? "default"
    let credentialsFile = try read(credentialsFilePath)
    let configFile = try read(configFilePath)
    let fromCredentials = credentialsFile?.settings(profile: profile, kind: .credentials)
    let fromConfig = configFile?.settings(profile: profile, kind: .config)

    let region =
      nonEmpty("AWS_REGION") ?? nonEmpty("AWS_DEFAULT_REGION") ?? fromConfig?["region"].flatMap(Self.nonEmpty)
    let endpoint =
      nonEmpty("AWS_ENDPOINT_URL_S3") ?? nonEmpty("AWS_ENDPOINT_URL")
      ?? fromConfig?["s3.endpoint_url"].flatMap(Self.nonEmpty) ?? fromConfig?["endpoint_url"].flatMap(Self.nonEmpty)
    func resolved(_ credentials: S3Credentials, _ source: S3ResolvedCredentials.Source) -> S3ResolvedCredentials {
      S3ResolvedCredentials(credentials: credentials, source: source, region: region, endpointURL: endpoint)
    }

    if explicitProfile == nil {
      let id = nonEmpty("AWS_ACCESS_KEY_ID")
      let secret = nonEmpty("AWS_SECRET_ACCESS_KEY")
      switch (id, secret) {
      case (let id?, let secret?):
        let token = nonEmpty("AWS_SESSION_TOKEN") ?? nonEmpty("AWS_SECURITY_TOKEN")
        return resolved(S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token), .environment)
      case (.some, nil):
        throw S3Error(.noCredentials, "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")
      case (nil, .some):
        throw S3Error(.noCredentials, "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not")
      case (nil, nil):
        break
      }
    }

    if let settings = fromCredentials,
      let credentials = try keys(in: settings, profile: profile, path: credentialsFilePath)
    {
      return resolved(credentials, .credentialsFile(path: credentialsFilePath, profile: profile))
    }
    if let settings = fromConfig, let credentials = try keys(in: settings, profile: profile, path: configFilePath) {
      return resolved(credentials, .configFile(path: configFilePath, profile: profile))
    }
    for settings in [fromCredentials, fromConfig].compactMap({ $0 }) {
      if let how = Self.unsupportedSource(settings) {
        throw S3Error(
          .noCredentials,
          "the AWS profile \(profile) gets its credentials through \(how), which Folio does not run; "
            + "export them first (aws configure export-credentials --profile \(profile) --format env) "
            + "or give an access key")
      }
    }
    if fromCredentials == nil && fromConfig == nil && (explicitProfile != nil || profile != "default") {
      throw S3Error(.noCredentials, "no AWS profile named \(profile) in \(credentialsFilePath) or \(configFilePath)")
    }
    throw S3Error(
      .noCredentials,
      "no AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set, and the profile \(profile) "
        + "has no aws_access_key_id in \(credentialsFilePath) or \(configFilePath)")
  }

  /// The access key of a section; nil when it has none; an error when half of it is there.
  private func keys(in settings: [String: String], profile: String, path: String) throws -> S3Credentials? {
    let id = settings["aws_access_key_id"].flatMap(Self.nonEmpty)
    let secret = settings["aws_secret_access_key"].flatMap(Self.nonEmpty)
    switch (id, secret) {
    case (let id?, let secret?):
      let token =
        settings["aws_session_token"].flatMap(Self.nonEmpty) ?? settings["aws_security_token"].flatMap(Self.nonEmpty)
      return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
    case (nil, nil):
      return nil
    default:
      let missing = id == nil ? "aws_access_key_id" : "aws_secret_access_key"
      throw S3Error(.noCredentials, "the AWS profile \(profile) in \(path) has no \(missing)")
    }
  }

  private static func unsupportedSource(_ settings: [String: String]) -> String? {
    if settings["credential_process"] != nil { return "credential_process" }
    if settings["sso_session"] != nil || settings["sso_start_url"] != nil { return "AWS SSO" }
    if settings["web_identity_token_file"] != nil { return "a web identity token" }
    if settings["role_arn"] != nil { return "an assumed role (role_arn)" }
    return nil
  }

  /// The file parsed; nil when it does not exist. A file that exists but cannot be read is an error:
  /// silently falling back to another profile would sign in as someone else.
  private func read(_ path: String) throws -> AWSSharedConfigFile? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw S3Error(.noCredentials, "cannot read \(path)")
    }
    return AWSSharedConfigFile(text: String(decoding: data, as: UTF8.self))
  }

  private func nonEmpty(_ name: String) -> String? { environment[name].flatMap(Self.nonEmpty) }

  private static func nonEmpty(_ value: String) -> String? { value.isEmpty ? nil : value }

  private func expand(_ path: String) -> String {
    if path == "~" { return homeDirectory }
    if path.hasPrefix("~/") { return homeDirectory + path.dropFirst() }
    return path
  }
}
