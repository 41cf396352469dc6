#!/usr/bin/env python3
"""Seeds Fuzz/corpus/ with real answers: folio serve, moto (S3), rclone serve webdav, OpenSSH's
sftp-server, the shipped folio-ext-shdir extension, plus the hostile names of test-plan §4.1.

Run from the package root after `swift build` (it runs .build/debug/folio). Each server runs on a
loopback port in a temporary folder and is stopped at the end. Files are named by what they hold;
running it again rewrites them. Nothing here is needed to run the fuzzers: the corpus is committed.
"""
import base64, hashlib, json, os, shutil, socket, struct, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "corpus")
FOLIO = os.path.join(ROOT, ".build", "debug", "folio")
procs = []

# test-plan §4.1: N01–N11 (bytes as written there).
HOSTILE = [
    b"", b".", b"..", b"a/b", b"../x", b"/etc/passwd", b"..\\x", b"nul\x00byte", bytes(range(1, 32)) + b"\x7f",
    b"\r\n\t\x0b lead and trail \t", b"   ", b"caf\xc2\x80\xc2\x9f", b"csi\x9b31m8bit", b"\x1b[31mred", b"\x1b[2J",
    b"\x1b[1A\rharmless", b"\x1b]0;pwn\x07", b"\x1b]52;c;cHduZWQ=\x07", b"\x1b]8;;http://x\x1b\\y\x1b]8;;\x1b\\",
    b"\x1bP$q;touch /tmp/p\x1b\\", b"\x1b[21t", b"\x1b]50;?\x07", b"\x1bG", b"\x1b]", b"-rf", b"--help", b"$(touch x)",
    b"`id`", b"a'b", b"a\"b", b"; rm -rf ~", b"%s%n", b"test%46.txt", b"!\"#$%&'()*+,-./:;<=>?@[\\]^_{|}~", b"\xfe",
    b"\x80", b"\xc0\xaf", b"\xe2\x82", b"\xed\xa0\x80", b"caf\xe9", "é".encode(), "e\u0301".encode(),
    "invoice\u202efdp.exe".encode(), "\u2066x\u2069\u200e\u200f\u061c".encode(), "fi\u200ble".encode(),
    "\u200d".encode(), "\ufeffbom".encode(), ("a" + "\u0301" * 50).encode(), "👸🏼🧝🏾‍♀️🧑🏻‍🔧🧑‍🌾🇯🇵".encode(),
    "測試_Русский___ě_áñ／？".encode(), b"x.partial", b"CON", b"nul.txt", b"\\u{1B}[31m", b"\\e\\x1B\\\\",
]

def put(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def wait_port(port, seconds=30):
    end = time.time() + seconds
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close(); return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on {port}")

def http(method, url, body=None, headers=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()

def names_fs():
    """Hostile names a filesystem accepts (no '/', no NUL, not '.', '..', '')."""
    return [n for n in HOSTILE if n and b"/" not in n and b"\x00" not in n and n not in (b".", b"..")]

# --- terminal text -------------------------------------------------------------------------------
def terminal():
    for i, n in enumerate(HOSTILE):
        put("terminal-text", f"n{i:02d}", n)

# --- folio serve ------------------------------------------------------------------------------------
def folio_serve(tmp):
    root = os.path.join(tmp, "serve")
    os.makedirs(root)
    subprocess.run([FOLIO, "serve", "admin", "--root", root, "user", "add", "ana", "--password-stdin"],
                   input=b"ana-password\n", check=True, capture_output=True)
    port = free_port()
    p = subprocess.Popen([FOLIO, "serve", "--root", root, "--host", "127.0.0.1", "--port", str(port)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs.append(p)
    wait_port(port)
    base = f"http://127.0.0.1:{port}/v1"
    _, login = http("POST", base + "/login", json.dumps({"user": "ana", "password": "ana-password"}).encode(),
                    {"Content-Type": "application/json"})
    put("folio-wire-client", "login", login)
    put("folio-wire-server", "login-request", json.dumps({"user": "ana", "password": "ana-password"}))
    token = json.loads(login)["token"]
    auth = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
    _, anchor = http("GET", base + "/anchor", headers=auth)
    put("folio-wire-client", "anchor", anchor)
    _, folder = http("POST", base + "/items", json.dumps({"parent": "root", "name": "Docs"}).encode(), auth)
    put("folio-wire-client", "created-folder", folder)
    put("folio-wire-server", "create-folder", json.dumps({"parent": "root", "name": "Docs"}))
    fid = json.loads(folder)["id"]
    for i, name in enumerate(names_fs()[:24]):
        text = name.decode("utf-8", "surrogateescape")
        try:
            q = urllib.parse.quote(name, safe="")
        except Exception:
            continue
        body = b"content %d" % i
        h = dict(auth); h["Content-Type"] = "application/octet-stream"
        h["X-Folio-SHA256"] = hashlib.sha256(body).hexdigest()
        status, up = http("POST", f"{base}/uploads?parent={fid}&name={q}", body, h)
        put("folio-wire-client", f"upload-{i:02d}-{status}", up)
    status, page = http("GET", f"{base}/items/{fid}/children?limit=3", headers=auth)
    put("folio-wire-client", "page-1", page)
    nxt = json.loads(page).get("nextPage")
    if nxt:
        put("folio-wire-server", "page-token", nxt)
        put("tokens", "folio-serve-page-token", nxt)
        _, page2 = http("GET", f"{base}/items/{fid}/children?limit=3&page={urllib.parse.quote(nxt)}", headers=auth)
        put("folio-wire-client", "page-2", page2)
    for sort in ["date", "size"]:
        _, p2 = http("GET", f"{base}/items/{fid}/children?limit=2&sort={sort}&order=desc&foldersFirst=1", headers=auth)
        t = json.loads(p2).get("nextPage")
        if t:
            put("tokens", f"folio-serve-page-token-{sort}", t)
    a = json.loads(anchor)["anchor"]
    put("folio-wire-server", "anchor", a)
    put("tokens", "folio-serve-anchor", a)
    _, changes = http("GET", f"{base}/changes?since={urllib.parse.quote(a)}&limit=5", headers=auth)
    put("folio-wire-client", "changes", changes)
    _, account = http("GET", base + "/account", headers=auth)
    put("folio-wire-client", "account", account)
    _, decl = http("GET", base + "/declarations", headers=auth)
    put("folio-wire-client", "declarations", decl)
    _, nosuch = http("GET", base + "/items/nosuch", headers=auth)
    put("folio-wire-client", "error-no-such-item", nosuch)
    _, expired = http("GET", f"{base}/changes?since=other.5", headers=auth)
    put("folio-wire-client", "error-anchor-expired", expired)
    _, collision = http("POST", base + "/items", json.dumps({"parent": "root", "name": "Docs"}).encode(), auth)
    put("folio-wire-client", "error-collision", collision)
    _, bad = http("POST", base + "/items", json.dumps({"parent": "root", "name": "a/b"}).encode(), auth)
    put("folio-wire-client", "error-invalid-name", bad)
    first = json.loads(page)["items"][0]
    put("folio-wire-server", "modify", json.dumps({"name": "renamed", "parent": "root", "tags": ["Red"],
                                                   "favoriteRank": 3, "lastUsed": 1.7e9,
                                                   "baseMetadata": first["version"]["metadata"]}))
    put("folio-wire-server", "restore", json.dumps({"parent": None, "name": "x"}))
    put("folio-wire-server", "copy", json.dumps({"parent": "root", "name": "copy"}))
    put("folio-wire-server", "resolve", json.dumps({"keep": "both"}))
    put("folio-wire-server", "action", json.dumps({"items": [first["id"]]}))

# --- S3 (moto) ----------------------------------------------------------------------------------------
def s3(tmp):
    port = free_port()
    p = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    procs.append(p)
    wait_port(port)
    base = f"http://127.0.0.1:{port}"
    http("PUT", base + "/fuzz-bucket")
    keys = [b"root/docs/a.txt", b"root/docs/sub/x", b"root/docs/caf\xc3\xa9", b"root/docs/\xe2\x80\xaeevil",
            b"root/docs/%41 space", b"root/docs/a+b=c&d"]
    for k in keys:
        http("PUT", base + "/fuzz-bucket/" + urllib.parse.quote(k, safe="/"), b"x" * 5)
    q = urllib.parse.urlencode
    for name, params in [
        ("list-v2", {"list-type": "2", "prefix": "root/docs/", "delimiter": "/", "encoding-type": "url"}),
        ("list-v2-truncated", {"list-type": "2", "prefix": "root/docs/", "max-keys": "2", "encoding-type": "url"}),
        ("list-v2-plain", {"list-type": "2", "prefix": "root/docs/"}),
        ("list-v1-truncated", {"prefix": "root/docs/", "max-keys": "2", "encoding-type": "url", "marker": "root/docs/a"}),
        ("list-v1-delimiter", {"prefix": "root/docs/", "delimiter": "/", "max-keys": "1"}),
    ]:
        _, body = http("GET", base + "/fuzz-bucket?" + q(params))
        put("s3-xml", name, body)
    http("PUT", base + "/fuzz-bucket?versioning", b'<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>')
    http("PUT", base + "/fuzz-bucket/root/docs/a.txt", b"v2")
    http("DELETE", base + "/fuzz-bucket/root/docs/sub/x")
    _, versions = http("GET", base + "/fuzz-bucket?versions&prefix=root/docs/&encoding-type=url")
    put("s3-xml", "list-versions", versions)
    _, vers = http("GET", base + "/fuzz-bucket?versioning")
    put("s3-xml", "versioning", vers)
    _, err = http("GET", base + "/nosuchbucket?list-type=2")
    put("s3-xml", "error-no-such-bucket", err)
    _, err = http("GET", base + "/fuzz-bucket/root/nosuchkey")
    put("s3-xml", "error-no-such-key-head", err or b"")
    _, init = http("POST", base + "/fuzz-bucket/root/big?uploads")
    put("s3-xml", "multipart-initiate", init)
    upload = init.split(b"<UploadId>")[1].split(b"</UploadId>")[0].decode()
    status, _ = http("PUT", base + f"/fuzz-bucket/root/big?partNumber=1&uploadId={upload}", b"p" * 16)
    _, parts = http("GET", base + f"/fuzz-bucket/root/big?uploadId={upload}")
    put("s3-xml", "multipart-list-parts", parts)
    _, uploads = http("GET", base + "/fuzz-bucket?uploads")
    put("s3-xml", "multipart-list-uploads", uploads)
    _, done = http("POST", base + f"/fuzz-bucket/root/big?uploadId={upload}",
                   b'<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"x"</ETag></Part></CompleteMultipartUpload>')
    put("s3-xml", "multipart-complete-or-error", done)
    put("tokens", "s3-v1-marker", "m:root%2Fdocs%2Fa.txt")
    put("tokens", "s3-trash-offset", "100")

# --- WebDAV (rclone serve webdav) -----------------------------------------------------------------
def webdav(tmp):
    served = os.path.join(tmp, "dav", "docs")
    os.makedirs(os.path.join(served, "sub"))
    for i, n in enumerate(names_fs()[:20]):
        try:
            with open(os.path.join(served.encode(), n), "wb") as f:
                f.write(b"x" * i)
        except OSError:
            pass
    port = free_port()
    p = subprocess.Popen(["rclone", "serve", "webdav", os.path.join(tmp, "dav"), "--addr", f"127.0.0.1:{port}",
                          "--baseurl", "/dav/files/alice"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs.append(p)
    wait_port(port)
    body = (b'<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/>'
            b'<d:getcontentlength/><d:getlastmodified/><d:getetag/><d:getcontenttype/></d:prop></d:propfind>')
    for depth in ["0", "1"]:
        _, ms = http("PROPFIND", f"http://127.0.0.1:{port}/dav/files/alice/docs/", body, {"Depth": depth})
        put("webdav-multistatus", f"rclone-propfind-depth{depth}", ms)
    _, allprop = http("PROPFIND", f"http://127.0.0.1:{port}/dav/files/alice/docs/", None, {"Depth": "1"})
    put("webdav-multistatus", "rclone-allprop", allprop)
    patch = (b'<?xml version="1.0"?><d:propertyupdate xmlns:d="DAV:" xmlns:z="urn:x"><d:set><d:prop>'
             b'<z:color>red</z:color></d:prop></d:set></d:propertyupdate>')
    status, pp = http("PROPPATCH", f"http://127.0.0.1:{port}/dav/files/alice/docs/sub/", patch)
    put("webdav-proppatch", f"rclone-proppatch-{status}", pp)
    put("webdav-proppatch", "proppatch-request", patch)

# --- SFTP (OpenSSH's sftp-server over a pipe) --------------------------------------------------------
def sftp(tmp):
    root = os.path.join(tmp, "sftp")
    os.makedirs(os.path.join(root, "sub"))
    for i, n in enumerate(names_fs()[:12]):
        try:
            with open(os.path.join(root.encode(), n), "wb") as f:
                f.write(b"y" * i)
        except OSError:
            pass
    p = subprocess.Popen(["/usr/lib/openssh/sftp-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    procs.append(p)
    def send(t, payload):
        p.stdin.write(struct.pack(">IB", len(payload) + 1, t) + payload); p.stdin.flush()
    def recv():
        n = struct.unpack(">I", p.stdout.read(4))[0]
        b = p.stdout.read(n)
        return b[0], b[1:]
    def s(x): return struct.pack(">I", len(x)) + x
    send(1, struct.pack(">I", 3))
    t, v = recv(); put("sftp-reply", "version", bytes([0]) + v)
    rid = [10]
    def req(t, payload):
        rid[0] += 1; send(t, struct.pack(">I", rid[0]) + payload); rt, rp = recv(); return rt, rp[4:]
    kinds = {101: 1, 102: 2, 103: 2, 104: 3, 105: 4, 201: 5}
    def keep(name, rt, rp):
        put("sftp-reply", name, bytes([kinds.get(rt, 7)]) + rp)
    rt, h = req(11, s(root.encode())); keep("opendir-handle", rt, h)
    handle = h[4:]
    n = 0
    while True:
        rt, rp = req(12, s(handle))
        keep(f"readdir-{n}", rt, rp); n += 1
        if rt != 104: break
    rt, rp = req(17, s(root.encode())); keep("stat-folder", rt, rp)
    rt, rp = req(7, s(os.path.join(root, "nosuch").encode())); keep("status-no-such-file", rt, rp)
    rt, rp = req(3, s(os.path.join(root, "x.partial").encode()) + struct.pack(">II", 0x1a, 0)); keep("open-handle", rt, rp)
    rt, rp = req(200, s(b"statvfs@openssh.com") + s(root.encode())); keep("statvfs", rt, rp)
    rt, rp = req(200, s(b"limits@openssh.com")); keep("limits", rt, rp)
    rt, rp = req(16, s(b"sub/..")); keep("realpath-name", rt, rp)
    put("sftp-reply", "polluted-stream", bytes([6]) + b"Welcome to \x1b]0;host\x07 the server!\nLast login: today\n")
    p.stdin.close()

# --- extensions (folio-ext-shdir: sh + jq) ------------------------------------------------------------
def extension(tmp):
    root = os.path.join(tmp, "ext")
    os.makedirs(os.path.join(root, "Docs"))
    for i, n in enumerate(names_fs()[:10]):
        try:
            with open(os.path.join(root.encode(), n), "wb") as f:
                f.write(b"z" * i)
        except OSError:
            pass
    state = os.path.join(tmp, "ext-state"); os.makedirs(state)
    p = subprocess.Popen([os.path.join(ROOT, "Extensions", "folio-ext-shdir")], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    procs.append(p)
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "describe", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocol": 1, "host": {"name": "folio", "version": "0"},
         "domain": {"id": "d", "name": "D"}, "config": {"root": root}, "stagingDir": state, "stateDir": state}},
        {"jsonrpc": "2.0", "id": 3, "method": "item", "params": {"id": "#root"}},
        {"jsonrpc": "2.0", "id": 4, "method": "enumerateItems", "params": {"container": "#root", "pageSize": 4,
         "sort": {"by": "name", "descending": False, "foldersFirst": False}, "includeHidden": True}},
        {"jsonrpc": "2.0", "id": 5, "method": "currentSyncAnchor", "params": {"container": "#working-set"}},
        {"jsonrpc": "2.0", "id": 6, "method": "item", "params": {"id": "no/such"}},
        {"jsonrpc": "2.0", "id": 7, "method": "nosuchmethod", "params": {}},
    ]
    for i, msg in enumerate(lines):
        p.stdin.write((json.dumps(msg) + "\n").encode()); p.stdin.flush()
        line = p.stdout.readline()
        put("extension-json", f"shdir-{i}-{msg['method']}", line.rstrip(b"\n"))
        try:
            r = json.loads(line).get("result") or {}
            if isinstance(r, dict) and r.get("nextPage"):
                put("tokens", "extension-next-page", r["nextPage"])
            if isinstance(r, dict) and r.get("anchor"):
                put("tokens", "extension-anchor", r["anchor"])
        except ValueError:
            pass
    p.stdin.close()
    put("extension-json", "progress-notification", '{"jsonrpc":"2.0","method":"$/progress","params":{"id":4,"done":10,"total":100}}')
    put("extension-json", "error-with-escape", '{"jsonrpc":"2.0","id":9,"error":{"code":-32001,"message":"\\u001b]0;pwn\\u0007 no such item","data":{"id":"x"}}}')
    put("extension-json", "byte-name-item", '{"jsonrpc":"2.0","id":8,"capabilities":{"byteNames":true},"result":{"item":{"id":"b1","parent":"#root","nameBytes":"Y2Fm6Q==","kind":"file","size":3,"version":{"content":"1","metadata":"1"}}}}')

def main():
    os.makedirs(CORPUS, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="folio-corpus-")
    try:
        terminal()
        for step in [folio_serve, s3, webdav, sftp, extension]:
            try:
                step(tmp)
                print("captured", step.__name__)
            except Exception as e:  # one server missing must not stop the others
                print("skipped", step.__name__, ":", repr(e), file=sys.stderr)
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(tmp, ignore_errors=True)

if __name__ == "__main__":
    import urllib.parse
    main()
