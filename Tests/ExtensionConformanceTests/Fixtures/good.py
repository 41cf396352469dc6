#!/usr/bin/env python3
"""A small FEP/1 extension for the tests of `folio ext test`: a folder of blobs plus SQLite.

Setting `root` (a directory) holds store.db and blobs/. A root that does not exist means the
storage is unreachable: every call but describe/initialize/shutdown answers -1004.
`--bug NAME` makes it break one rule on purpose (the kit must fail the matching check):
  noise           prints debug lines on the protocol's stdout
  duplicate-page  repeats the last item of a page at the start of the next one
  stale-overwrite a modify from a stale base overwrites the newer content
  offline-noitem  answers -1005 (noSuchItem) instead of -1004 when unavailable
  write-after-cancel  answers a cancelled fetch at once but goes on writing to dest
  partial-visible an upload is visible under its name while its bytes are still arriving
  crash-on-rename exits (status 70) when asked to rename
  banner          prints a line on stdout when it starts, before any answer
  dies-on-garbage exits (status 65) on a line that is not JSON
  silent-item     never answers `item`
and `--bug read-only` is no bug: it declares no write and no change feed (the kit must skip, not fail).
Setting `token` is marked secret: the kit must never print its value.
Standard library only.
"""
import base64, hashlib, json, os, queue, shutil, sqlite3, sys, threading, time, uuid

proto = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
os.dup2(2, 1)
BUG = sys.argv[sys.argv.index("--bug") + 1] if "--bug" in sys.argv else ""
out_lock = threading.Lock()


def send(msg):
    with out_lock:
        proto.write(json.dumps(msg, ensure_ascii=False, separators=(",", ":")) + "\n")
        proto.flush()


class Answered(Exception):
    """The request was answered already (write-after-cancel)."""


class Fail(Exception):
    def __init__(self, code, message, **data):
        self.code, self.message, self.data = code, message, data


NAMES = {-1001: "filenameCollision", -1002: "syncAnchorExpired", -1004: "serverUnreachable", -1005: "noSuchItem",
         -1007: "directoryNotEmpty", -2015: "localVersionConflictingWithServer", -32800: "cancelled", 1: "invalidArgument",
         -32601: "featureUnsupported", -32002: "notInitialized", -32602: "invalidParams"}
CHUNK = 1 << 20


class Store:
    def __init__(self, root):
        self.root = root
        self.lock = threading.RLock()
        self.available = os.path.isdir(root)
        if not self.available:
            return
        self.blobs = os.path.join(root, "blobs")
        os.makedirs(self.blobs, exist_ok=True)
        for leftover in os.listdir(self.blobs):  # what a killed upload left: never visible
            if leftover.startswith(".tmp-"):
                os.unlink(os.path.join(self.blobs, leftover))
        self.db = sqlite3.connect(os.path.join(root, "store.db"), check_same_thread=False, isolation_level=None)
        self.db.executescript("""
          CREATE TABLE IF NOT EXISTS items(id TEXT PRIMARY KEY, parent TEXT, name BLOB, kind TEXT, size INT,
            cv INT, mv INT, sha TEXT, modified REAL);
          CREATE TABLE IF NOT EXISTS changes(seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT, deleted INT);
          CREATE TABLE IF NOT EXISTS keys(key TEXT PRIMARY KEY, id TEXT);""")

    def row(self, id):
        with self.lock:
            return self.db.execute("SELECT id,parent,name,kind,size,cv,mv,sha,modified FROM items WHERE id=?", (id,)).fetchone()

    def item(self, id):
        if id == "#root":
            return {"id": "#root", "parent": "#root", "name": "Kit store", "kind": "folder",
                    "version": {"content": "0", "metadata": "0"}}
        r = self.row(id)
        if r is None:
            raise Fail(-1005, "no item " + id)
        return self.wire(r)

    @staticmethod
    def wire(r):
        id, parent, name, kind, size, cv, mv, sha, modified = r
        it = {"id": id, "parent": parent, "name": bytes(name).decode("utf-8", "replace"), "kind": kind,
              "version": {"content": str(cv), "metadata": str(mv)}, "modified": modified}
        try:
            bytes(name).decode("utf-8")
        except UnicodeDecodeError:
            it["nameBytes"] = base64.b64encode(bytes(name)).decode()
        if kind == "file":
            it["size"], it["sha256"] = size, sha
        return it

    def folder(self, id):
        if id != "#root":
            r = self.row(id)
            if r is None:
                raise Fail(-1005, "no folder " + id)
            if r[3] != "folder":
                raise Fail(-32602, "not a folder")

    def children(self, id):
        with self.lock:
            return self.db.execute("SELECT id,parent,name,kind,size,cv,mv,sha,modified FROM items WHERE parent=? ORDER BY name",
                                   (id,)).fetchall()

    def taken(self, parent, name):
        with self.lock:
            r = self.db.execute("SELECT id FROM items WHERE parent=? AND name=?", (parent, name)).fetchone()
        return r[0] if r else None

    def changed(self, id, deleted=0):
        self.db.execute("INSERT INTO changes(id,deleted) VALUES(?,?)", (id, deleted))

    def anchor(self):
        with self.lock:
            return str(self.db.execute("SELECT COALESCE(MAX(seq),0) FROM changes").fetchone()[0])


def name_of(template):
    if "nameBytes" in template:
        name = base64.b64decode(template["nameBytes"])
    else:
        name = template.get("name", "").encode("utf-8")
    if not name or name in (b".", b"..") or b"/" in name or b"\0" in name or len(name) > 255:
        raise Fail(1, "invalid name")
    return name


def copy_in(src, dest, rid, cancel):
    done = 0
    with open(src, "rb") as f, open(dest, "wb") as g:
        while True:
            if cancel.is_set():
                raise Fail(-32800, "cancelled")
            b = f.read(CHUNK)
            if not b:
                break
            g.write(b)
            done += len(b)
            send({"jsonrpc": "2.0", "method": "$/progress", "params": {"id": rid, "completed": done}})
        g.flush()
        os.fsync(g.fileno())
    h = hashlib.sha256()
    with open(dest, "rb") as g:
        for b in iter(lambda: g.read(CHUNK), b""):
            h.update(b)
    return done, h.hexdigest()


class Extension:
    def __init__(self):
        self.store = None
        self.cancels = {}
        self.cancel_lock = threading.Lock()

    def handle(self, method, p, rid, cancel):
        if method == "describe":
            return {"extension": {"name": "kit-fixture", "version": "1"}, "protocols": [1],
                    "settings": [{"name": "root", "description": "the store's folder", "required": True, "secret": False},
                                 {"name": "token", "description": "unused; secret", "required": False, "secret": True}]}
        if method == "initialize":
            self.store = Store(p.get("config", {}).get("root", "/nonexistent"))
            if BUG == "read-only":
                return {"protocol": 1, "extension": {"name": "kit-fixture", "version": "1"},
                        "capabilities": {"changes": {"feed": False}, "fetch": {"ranges": False}}}
            return {"protocol": 1, "extension": {"name": "kit-fixture", "version": "1"},
                    "capabilities": {"enumerate": {"sorts": ["name"]}, "changes": {"push": False}, "identity": "stable",
                                     "byteNames": True, "fetch": {"ranges": True, "sha256": True},
                                     "concurrency": {"metadata": 4, "downloads": 2, "uploads": 2},
                                     "write": {"create": True, "modify": ["name", "parent", "contents"], "delete": True,
                                               "trash": False}},
                    "actions": [], "decorations": []}
        if method == "shutdown":
            return None
        if self.store is None:
            raise Fail(-32002, "not initialized")
        s = self.store
        if method not in ("item", "enumerateItems", "currentSyncAnchor", "enumerateChanges", "fetchContents",
                          "createItem", "modifyItem", "deleteItem"):
            raise Fail(-32601, "no method " + method)
        if BUG == "read-only" and method in ("createItem", "modifyItem", "deleteItem", "currentSyncAnchor", "enumerateChanges"):
            proto.write("UNDECLARED CALL " + method + "\n")  # stdout noise: the kit fails for it
            proto.flush()
            raise Fail(-32601, "not declared: " + method)
        if not s.available:
            raise Fail(-1005, "nothing there") if BUG == "offline-noitem" else Fail(-1004, "the store's folder is missing")
        return getattr(self, method)(s, p, rid, cancel)

    def item(self, s, p, rid, cancel):
        if BUG == "noise":
            print("debug: item", p.get("id"), file=proto, flush=True)
        return s.item(p["id"])

    def enumerateItems(self, s, p, rid, cancel):
        s.folder(p["container"])
        token = p.get("page")
        offset = 0
        if token is not None:
            if not (isinstance(token, str) and token.startswith("o:") and token[2:].isdigit()):
                raise Fail(-1002, "unknown page token")
            offset = int(token[2:])
        size = max(1, min(int(p.get("pageSize", 100)), 1000))
        rows = s.children(p["container"])
        start = offset - 1 if BUG == "duplicate-page" and offset > 0 else offset
        page = rows[start:offset + size]
        nxt = "o:%d" % (offset + size) if offset + size < len(rows) else None
        return {"items": [s.wire(r) for r in page], "nextPage": nxt, "totalCount": len(rows)}

    def currentSyncAnchor(self, s, p, rid, cancel):
        return {"anchor": s.anchor()}

    def enumerateChanges(self, s, p, rid, cancel):
        a = p.get("anchor")
        if not (isinstance(a, str) and a.isdigit()) or int(a) > int(s.anchor()):
            raise Fail(-1002, "unknown anchor; re-enumerate")
        with s.lock:
            rows = s.db.execute("SELECT seq,id FROM changes WHERE seq>? ORDER BY seq LIMIT 101", (int(a),)).fetchall()
        more = len(rows) > 100
        rows = rows[:100]
        updated, deleted = {}, []
        for _, id in rows:
            r = s.row(id)
            if r is None:
                updated.pop(id, None)
                if id not in deleted:
                    deleted.append(id)
            else:
                updated[id] = s.wire(r)
        return {"updated": list(updated.values()), "deleted": deleted, "anchor": str(rows[-1][0]) if rows else a,
                "moreComing": more}

    def fetchContents(self, s, p, rid, cancel):
        it = s.item(p["id"])
        if it["kind"] != "file":
            raise Fail(1, "a folder has no content")
        blob = os.path.join(s.blobs, it["id"])
        rng = p.get("range")
        start, end = (rng[0], min(rng[1], it["size"])) if rng else (0, it["size"])
        done = 0
        with open(blob, "rb") as f, open(p["dest"], "r+b") as g:
            f.seek(start)
            g.seek(start)
            answered = False
            while start + done < end:
                if cancel.is_set() and BUG == "write-after-cancel" and not answered:
                    send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32800, "message": "cancelled"}})
                    answered = True
                elif cancel.is_set() and not answered:
                    raise Fail(-32800, "cancelled")
                if BUG == "write-after-cancel":
                    time.sleep(0.2)  # slow enough that the cancel lands mid-download
                b = f.read(min(CHUNK, end - start - done))
                if not b:
                    break
                g.write(b)
                done += len(b)
                send({"jsonrpc": "2.0", "method": "$/progress", "params": {"id": rid, "completed": done, "total": end - start}})
            g.flush()
        if answered:
            raise Answered()
        if rng:
            return {"item": it, "range": [start, end]}
        return {"item": it, "sha256": it["sha256"]}

    def createItem(self, s, p, rid, cancel):
        t = p["template"]
        key = p.get("key") or str(uuid.uuid4())
        with s.lock:
            k = s.db.execute("SELECT id FROM keys WHERE key=?", (key,)).fetchone()
        if k:
            return {"item": s.item(k[0])}
        parent = t.get("parent", "#root")
        s.folder(parent)
        name = name_of(t)
        existing = s.taken(parent, name)
        if existing:
            raise Fail(-1001, "name taken", existing=existing)
        id = uuid.uuid4().hex[:16]
        size, sha = None, None
        if BUG == "partial-visible" and t.get("kind") == "file" and p.get("contents"):
            with s.lock:
                s.db.execute("INSERT INTO items VALUES(?,?,?,?,?,1,1,?,?)",
                             (id, parent, name, "file", os.path.getsize(p["contents"]), "", time.time()))
                s.changed(id)
            with open(p["contents"], "rb") as f, open(os.path.join(s.blobs, id), "wb") as g:
                for b in iter(lambda: f.read(CHUNK), b""):
                    g.write(b)
                    g.flush()
                    send({"jsonrpc": "2.0", "method": "$/progress", "params": {"id": rid, "completed": g.tell()}})
                    time.sleep(0.1)  # slow enough that the kill lands mid-upload
            with s.lock:
                s.db.execute("INSERT INTO keys VALUES(?,?)", (key, id))
            return {"item": s.item(id)}
        if t.get("kind") == "file":
            tmp = os.path.join(s.blobs, ".tmp-" + hashlib.sha256(key.encode()).hexdigest()[:16])
            if p.get("contents"):
                size, sha = copy_in(p["contents"], tmp, rid, cancel)
            else:
                open(tmp, "wb").close()
                size, sha = 0, hashlib.sha256(b"").hexdigest()
        with s.lock:
            existing = s.taken(parent, name)
            if existing:
                raise Fail(-1001, "name taken", existing=existing)
            if size is not None:
                os.rename(tmp, os.path.join(s.blobs, id))
            s.db.execute("BEGIN")
            s.db.execute("INSERT INTO items VALUES(?,?,?,?,?,1,1,?,?)", (id, parent, name, t.get("kind", "file"), size, sha, time.time()))
            s.db.execute("INSERT INTO keys VALUES(?,?)", (key, id))
            s.changed(id)
            s.db.execute("COMMIT")
        return {"item": s.item(id)}

    def modifyItem(self, s, p, rid, cancel):
        if BUG == "crash-on-rename" and "name" in p.get("fields", []):
            os._exit(70)
        t = p["template"]
        r = s.row(t["id"])
        if r is None:
            raise Fail(-1005, "no item")
        fields = p.get("fields", [])
        base = p.get("baseVersion") or {}
        cur = s.wire(r)
        if "contents" in fields:
            tmp = os.path.join(s.blobs, ".tmp-" + uuid.uuid4().hex)
            size, sha = copy_in(p["contents"], tmp, rid, cancel)
            with s.lock:
                r = s.row(t["id"])
                if str(base.get("content")) != str(r[5]) and BUG != "stale-overwrite":
                    copy_id = uuid.uuid4().hex[:16]
                    n = 1
                    while True:
                        cname = bytes(r[2]) + b" (conflict %d)" % n
                        if not s.taken(r[1], cname):
                            break
                        n += 1
                    os.rename(tmp, os.path.join(s.blobs, copy_id))
                    s.db.execute("INSERT INTO items VALUES(?,?,?,?,?,1,1,?,?)", (copy_id, r[1], cname, "file", size, sha, time.time()))
                    s.changed(copy_id)
                    raise Fail(-2015, "changed on the server too; both kept", existing=copy_id)
                os.rename(tmp, os.path.join(s.blobs, r[0]))
                s.db.execute("UPDATE items SET size=?, sha=?, cv=cv+1 WHERE id=?", (size, sha, r[0]))
                s.changed(r[0])
        if "name" in fields or "parent" in fields:
            parent = t.get("parent", cur["parent"]) if "parent" in fields else cur["parent"]
            name = name_of(t) if "name" in fields else bytes(r[2])
            with s.lock:
                other = s.taken(parent, name)
                if other and other != r[0]:
                    raise Fail(-1001, "name taken", existing=other)
                s.db.execute("UPDATE items SET parent=?, name=?, mv=mv+1 WHERE id=?", (parent, name, r[0]))
                s.changed(r[0])
        return {"item": s.item(r[0])}

    def deleteItem(self, s, p, rid, cancel):
        r = s.row(p["id"])
        if r is None:
            return {}
        kids = s.children(r[0])
        if kids and not p.get("recursive"):
            raise Fail(-1007, "the folder is not empty")
        with s.lock:
            todo = [r[0]]
            while todo:
                id = todo.pop()
                todo += [k[0] for k in s.children(id)]
                s.db.execute("DELETE FROM items WHERE id=?", (id,))
                s.changed(id, 1)
                blob = os.path.join(s.blobs, id)
                if os.path.exists(blob):
                    os.unlink(blob)
        return {}


def main():
    ext = Extension()
    work = queue.Queue()

    def worker():
        while True:
            rid, method, params, cancel = work.get()
            try:
                result = ext.handle(method, params or {}, rid, cancel)
                send({"jsonrpc": "2.0", "id": rid, "result": result})
            except Answered:
                pass
            except Fail as e:
                data = {"name": NAMES.get(e.code, "error")}
                data.update(e.data)
                send({"jsonrpc": "2.0", "id": rid, "error": {"code": e.code, "message": e.message, "data": data}})
            except Exception as e:  # a bug here is an ioError for the host, and a line in the log
                print("error:", repr(e), file=sys.stderr, flush=True)
                send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": str(e)}})
            finally:
                with ext.cancel_lock:
                    ext.cancels.pop(rid, None)

    for _ in range(4):
        threading.Thread(target=worker, daemon=True).start()
    if BUG == "banner":
        proto.write("kit-fixture 1 ready\n")
        proto.flush()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
            assert isinstance(msg, dict)
        except Exception:
            if BUG == "dies-on-garbage":
                sys.exit(65)
            send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
            continue
        method = msg.get("method")
        if "id" not in msg:
            if method == "$/cancelRequest":
                with ext.cancel_lock:
                    ev = ext.cancels.get(msg.get("params", {}).get("id"))
                if ev:
                    ev.set()
            continue
        if BUG == "silent-item" and method == "item":
            continue
        cancel = threading.Event()
        with ext.cancel_lock:
            ext.cancels[msg["id"]] = cancel
        if method in ("describe", "initialize", "shutdown"):
            # In order: nothing may overtake initialize.
            try:
                send({"jsonrpc": "2.0", "id": msg["id"], "result": ext.handle(method, msg.get("params") or {}, msg["id"], cancel)})
            except Fail as e:
                send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": e.code, "message": e.message, "data": {"name": NAMES.get(e.code, "error")}}})
            with ext.cancel_lock:
                ext.cancels.pop(msg["id"], None)
        else:
            work.put((msg["id"], method, msg.get("params"), cancel))
    # EOF: wait for the requests in flight, then exit 0.
    deadline = time.time() + 1.5
    while ext.cancels and time.time() < deadline:
        time.sleep(0.01)
    sys.exit(0)


if __name__ == "__main__":
    main()
