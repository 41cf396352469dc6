import Foundation
import S3Client
import Testing

/// Credentials found as the AWS CLI finds them, with temporary files standing in for `~/.aws`.
struct AWSCredentialsLoaderTests {
  /// A temporary home with `.aws/credentials` and `.aws/config` as given; removed at the end.
  final class Home {
    let path: String
    init(credentials: String? = nil, config: String? = nil) throws {
      path = FileManager.default.temporaryDirectory.appendingPathComponent("folio-aws-\(UUID().uuidString)").path
      try FileManager.default.createDirectory(atPath: path + "/.aws", withIntermediateDirectories: true)
      if let credentials {
        try credentials.write(toFile: path + "/.aws/credentials", atomically: true, encoding: .utf8)
      }
      if let config { try config.write(toFile: path + "/.aws/config", atomically: true, encoding: .utf8) }
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    func loader(_ environment: [String: String] = [:]) -> AWSCredentialsLoader {
      AWSCredentialsLoader(environment: environment, homeDirectory: path)
    }
  }

  static let files = (
    credentials: """
    # the CLI writes this
    [default]
    aws_access_key_id = AKIADEFAULT
    aws_secret_access_key = default/secret+key

    [work]
    aws_access_key_id=AKIAWORK
    aws_secret_access_key=work-secret
    aws_session_token = work-token
    """,
    config: """
    [default]
    region = eu-west-3

    [profile work]
    region = ap-south-1
    s3 =
      addressing_style = path
      endpoint_url = https://minio.example:9000

    [profile onlyconfig]
    aws_access_key_id = AKIACONFIG
    aws_secret_access_key = config-secret
    region=us-west-2

    [profile sso]
    sso_session = corp
    sso_account_id = 1234

    [profile tool]
    credential_process = /usr/bin/get-keys
    """
  )

  @Test func theEnvironmentComesFirst() throws {
    let home = try Home(credentials: Self.files.credentials, config: Self.files.config)
    let found = try home.loader([
      "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_SESSION_TOKEN": "env-token",
      "AWS_REGION": "sa-east-1", "AWS_DEFAULT_REGION": "ignored-1",
    ]).load()
    #expect(
      found.credentials
        == S3Credentials(accessKeyID: "AKIAENV", secretAccessKey: "env-secret", sessionToken: "env-token"))
    #expect(found.source == .environment)
    #expect(found.region == "sa-east-1")
  }

  @Test func theDefaultProfileAndItsRegionWithoutEnvironment() throws {
    let home = try Home(credentials: Self.files.credentials, config: Self.files.config)
    let found = try home.loader().load()
    #expect(found.credentials == S3Credentials(accessKeyID: "AKIADEFAULT", secretAccessKey: "default/secret+key"))
    #expect(found.source == .credentialsFile(path: home.path + "/.aws/credentials", profile: "default"))
    #expect(found.region == "eu-west-3")
    #expect(try home.loader(["AWS_DEFAULT_REGION": "ca-central-1"]).load().region == "ca-central-1")
  }

  @Test func aProfileFromAWSProfileOrNamedWithItsConfigSection() throws {
    let home = try Home(credentials: Self.files.credentials, config: Self.files.config)
    let byEnvironment = try home.loader(["AWS_PROFILE": "work"]).load()
    #expect(
      byEnvironment.credentials
        == S3Credentials(accessKeyID: "AKIAWORK", secretAccessKey: "work-secret", sessionToken: "work-token"))
    #expect(byEnvironment.region == "ap-south-1")
    #expect(byEnvironment.endpointURL == "https://minio.example:9000")

    // AWS_PROFILE does not hide the environment's keys; a profile named explicitly does (botocore).
    let keys = ["AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret"]
    #expect(try home.loader(keys.merging(["AWS_PROFILE": "work"]) { a, _ in a }).load().source == .environment)
    let named = try home.loader(keys).load(profile: "work")
    #expect(named.credentials.accessKeyID == "AKIAWORK")
  }

  @Test func keysMayLiveInTheConfigFileUnderProfileName() throws {
    let home = try Home(credentials: Self.files.credentials, config: Self.files.config)
    let found = try home.loader().load(profile: "onlyconfig")
    #expect(found.credentials == S3Credentials(accessKeyID: "AKIACONFIG", secretAccessKey: "config-secret"))
    #expect(found.source == .configFile(path: home.path + "/.aws/config", profile: "onlyconfig"))
    #expect(found.region == "us-west-2")
  }

  @Test func theFileVariablesMoveBothFiles() throws {
    let home = try Home()
    try "[default]\naws_access_key_id = AKIAMOVED\naws_secret_access_key = moved\n"
      .write(toFile: home.path + "/elsewhere-credentials", atomically: true, encoding: .utf8)
    try "[default]\r\nregion = eu-north-1\r\n".write(
      toFile: home.path + "/elsewhere-config", atomically: true, encoding: .utf8)
    let loader = home.loader([
      "AWS_SHARED_CREDENTIALS_FILE": "~/elsewhere-credentials", "AWS_CONFIG_FILE": home.path + "/elsewhere-config",
    ])
    #expect(loader.credentialsFilePath == home.path + "/elsewhere-credentials")
    let found = try loader.load()
    #expect(found.credentials.accessKeyID == "AKIAMOVED")
    #expect(found.region == "eu-north-1")
  }

  @Test func whatCannotBeUsedSaysWhy() throws {
    let home = try Home(credentials: Self.files.credentials, config: Self.files.config)
    let half = #expect(throws: S3Error.self) { try home.loader(["AWS_ACCESS_KEY_ID": "AKIAHALF"]).load() }
    #expect(half?.code == .noCredentials)
    #expect(half?.message.contains("AWS_SECRET_ACCESS_KEY") == true)

    let sso = #expect(throws: S3Error.self) { try home.loader().load(profile: "sso") }
    #expect(sso?.code == .noCredentials)
    #expect(sso?.message.contains("AWS SSO") == true)
    #expect(sso?.message.contains("export-credentials") == true)
    let process = #expect(throws: S3Error.self) { try home.loader().load(profile: "tool") }
    #expect(process?.message.contains("credential_process") == true)

    let missing = #expect(throws: S3Error.self) { try home.loader().load(profile: "nobody") }
    #expect(missing?.message.contains("no AWS profile named nobody") == true)

    let empty = try Home()
    let none = #expect(throws: S3Error.self) { try empty.loader().load() }
    #expect(none?.code == .noCredentials)
    #expect(none?.message.contains("AWS_ACCESS_KEY_ID") == true)
  }
}
