import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Apache 2.4 with mod_dav and mod_dav_fs on a free loopback port: the server that honours
/// `If-Match` and `If-None-Match: *` and replaces files atomically (a temporary file, then a rename).
///
/// Its own configuration, not Debian's: `ServerRoot`, the pid file, the logs, the password file and
/// `DavLockDB` all live in a temporary folder; `-DFOREGROUND` keeps the parent in the foreground so
/// that it is stopped by its pid. Debian's `apache2` binary reads no `APACHE_*` variables when
/// given `-f` with a configuration that names everything itself.
///
/// Apache refuses to serve as root ("Apache has not been designed to serve pages while running as
/// root"), so when the tests run as root (CI) its children run as `nobody:nogroup`, and the served
/// folder and the lock folder are theirs. Files a test writes into ``files`` directly stay root's:
/// readable, not writable, by the server.
public final class ApacheDAVServer: WebDAVTestServer, @unchecked Sendable {
  public let folder: String
  public let port: Int
  public let baseURL: URL
  public let user = "alice"
  public let password = "wonderland"
  /// For https: the certificate (PEM) a client must trust.
  public let certificate: String?
  private let child: ServerChild
  private var stopped = false

  public var files: String { folder + "/files" }
  public var log: String { LoopbackServer.read(folder + "/error.log") + LoopbackServer.read(folder + "/stderr.log") }

  /// - Parameter https: Serve https with a self-signed certificate for 127.0.0.1 (mod_ssl).
  public init(https: Bool = false) throws {
    let program = try LoopbackServer.program(["/usr/sbin/apache2", "/usr/sbin/httpd"], package: "apache2 apache2-utils")
    let modules = "/usr/lib/apache2/modules"
    guard FileManager.default.fileExists(atPath: modules + "/mod_dav_fs.so") else {
      throw WebDAVFixtureError("mod_dav_fs is missing from \(modules): apt-get install apache2")
    }
    folder = try LoopbackServer.makeFolder("folio-apache")
    let folder = self.folder
    for sub in ["files", "lock"] {
      try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true)
    }
    try LoopbackServer.writePasswordFile(folder + "/htpasswd", user: user, password: password)
    var identity = ""
    if getuid() == 0 {
      guard let nobody = getpwnam("nobody"), let nogroup = getgrnam("nogroup") else {
        throw WebDAVFixtureError("Apache must not run as root, and there is no nobody:nogroup to run it as")
      }
      for sub in ["files", "lock"] { chown(folder + "/" + sub, nobody.pointee.pw_uid, nogroup.pointee.gr_gid) }
      identity = "User nobody\nGroup nogroup\n"
    }
    var tls = ""
    if https {
      let cert = try LoopbackServer.makeCertificate(in: folder)
      certificate = cert
      tls = """
        LoadModule ssl_module \(modules)/mod_ssl.so
        SSLEngine on
        SSLCertificateFile \(cert)
        SSLCertificateKeyFile \(folder)/tls-key.pem

        """
    } else {
      certificate = nil
    }
    (child, port) = try LoopbackServer.start("apache2", log: { LoopbackServer.read(folder + "/error.log") + LoopbackServer.read(folder + "/stderr.log") }) { port in
      let config = """
        ServerRoot \(folder)
        ServerName 127.0.0.1
        Listen 127.0.0.1:\(port)
        PidFile \(folder)/httpd.pid
        ErrorLog \(folder)/error.log
        LogLevel warn
        \(identity)
        LoadModule mpm_event_module \(modules)/mod_mpm_event.so
        LoadModule authn_core_module \(modules)/mod_authn_core.so
        LoadModule authn_file_module \(modules)/mod_authn_file.so
        LoadModule authz_core_module \(modules)/mod_authz_core.so
        LoadModule authz_user_module \(modules)/mod_authz_user.so
        LoadModule auth_basic_module \(modules)/mod_auth_basic.so
        LoadModule dav_module \(modules)/mod_dav.so
        LoadModule dav_fs_module \(modules)/mod_dav_fs.so
        LoadModule mime_module \(modules)/mod_mime.so
        LoadModule alias_module \(modules)/mod_alias.so
        \(tls)
        # A request body may pause longer than Apache's 60 s default under load (the client's
        # body producer was seen stalled at the start of a test run): wait it out, do not answer 408.
        Timeout 300
        StartServers 1
        ServerLimit 1
        ThreadsPerChild 16
        MaxRequestWorkers 16
        TypesConfig /etc/mime.types
        DavLockDB \(folder)/lock/davlock
        Alias /dav \(folder)/files
        <Directory \(folder)/files>
          Dav On
          AuthType Basic
          AuthName "Folio test"
          AuthUserFile \(folder)/htpasswd
          Require valid-user
        </Directory>

        """
      try config.write(toFile: folder + "/httpd.conf", atomically: true, encoding: .utf8)
      unlink(folder + "/httpd.pid")
      return try ServerChild(
        program, ["-f", folder + "/httpd.conf", "-DFOREGROUND"], output: folder + "/stderr.log")
    }
    baseURL = URL(string: "\(https ? "https" : "http")://127.0.0.1:\(port)/dav/")!
  }

  public func stop() {
    guard !stopped else { return }
    stopped = true
    LoopbackServer.stop(child)
    try? FileManager.default.removeItem(atPath: folder)
  }

  deinit { stop() }
}
