import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// nginx with its dav module and the dav-ext module (PROPFIND, OPTIONS) on a free loopback port:
/// the degraded server. It ignores `If-Match` and `If-None-Match` on PUT (its conditionals run only
/// on 200 answers), lists no `getetag`, and hides names that begin with a dot from PROPFIND.
///
/// Its own configuration: `-p` prefix and `-c` file in a temporary folder, `daemon off` and
/// `master_process off`, so that the one process is the one started, stopped by its pid, running
/// as the current user. The body temp folder is on the same filesystem as the files, so a PUT
/// ends in a rename.
public final class NginxDAVServer: WebDAVTestServer, @unchecked Sendable {
  public let folder: String
  public let port: Int
  public let baseURL: URL
  public let user = "alice"
  public let password = "wonderland"
  private let child: ServerChild
  private var stopped = false

  public var files: String { folder + "/files" }
  public var log: String { LoopbackServer.read(folder + "/error.log") + LoopbackServer.read(folder + "/stderr.log") }

  public static let davExtModule = "/usr/lib/nginx/modules/ngx_http_dav_ext_module.so"

  public init() throws {
    let program = try LoopbackServer.program(["/usr/sbin/nginx"], package: "nginx libnginx-mod-http-dav-ext")
    guard FileManager.default.fileExists(atPath: Self.davExtModule) else {
      throw WebDAVFixtureError("\(Self.davExtModule) is missing: apt-get install libnginx-mod-http-dav-ext")
    }
    folder = try LoopbackServer.makeFolder("folio-nginx")
    let folder = self.folder
    for sub in ["files", "tmp"] {
      try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true)
    }
    try LoopbackServer.writePasswordFile(folder + "/htpasswd", user: user, password: password)
    (child, port) = try LoopbackServer.start("nginx", log: { LoopbackServer.read(folder + "/error.log") + LoopbackServer.read(folder + "/stderr.log") }) { port in
      let config = """
        load_module \(Self.davExtModule);
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(folder)/nginx.pid;
        error_log \(folder)/error.log warn;
        events { worker_connections 256; }
        http {
          access_log off;
          client_body_temp_path \(folder)/tmp;
          proxy_temp_path \(folder)/tmp;
          fastcgi_temp_path \(folder)/tmp;
          uwsgi_temp_path \(folder)/tmp;
          scgi_temp_path \(folder)/tmp;
          client_max_body_size 0;
          # As Apache's Timeout 300: a paused request body is waited for, not cut at 60 s.
          client_body_timeout 300s;
          client_header_timeout 300s;
          send_timeout 300s;
          server {
            listen 127.0.0.1:\(port);
            location /dav/ {
              alias \(folder)/files/;
              auth_basic "Folio nginx";
              auth_basic_user_file \(folder)/htpasswd;
              dav_methods PUT DELETE MKCOL COPY MOVE;
              dav_ext_methods PROPFIND OPTIONS;
            }
          }
        }

        """
      try config.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
      return try ServerChild(
        program, ["-p", folder, "-c", folder + "/nginx.conf"], output: folder + "/stderr.log")
    }
    baseURL = URL(string: "http://127.0.0.1:\(port)/dav/")!
  }

  public func stop() {
    guard !stopped else { return }
    stopped = true
    LoopbackServer.stop(child)
    try? FileManager.default.removeItem(atPath: folder)
  }

  deinit { stop() }
}
