#!/usr/bin/env python3
"""A minimal FEP/1 extension over a real folder, for the host's tests (docs/EXTENSIONS.md).

Ids are paths relative to the root ("#root" for the root). Settings ([domain.config]):
  root          the folder served (required)
  concurrency   what it declares for metadata (default 4); requests run on threads
  delay         seconds each request sleeps before answering (default 0)
  crash_on      a method that kills the process with SIGSEGV while `flag` does not exist
  hang_on       a method never answered while `flag` does not exist
  cancel_ok     "1": a hung request is answered -32800 when cancelled
  garbage       "1": a non-JSON line on stdout before every answer
  oversize_on   a method answered with a line of 9 MiB
  exit_at_start "1": exits 3 at once, saying why on stderr
  unavailable   "1": initialize answers -1004 (its storage cannot be reached)
  flag          a file whose existence makes crash_on/hang_on behave
  stats         a file where it writes the most requests it saw in flight at once
  barrier       N: each request waits (up to 20 s) until N requests are in flight at once
  changes       "push": declares push (and sends $/signal {container: "#root"} before each item
                answer); "pull": declares a feed without push, pollSeconds 1
"""
import base64, hashlib, json, os, shutil, signal, sys, threading, time

proto = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
out_lock = threading.Lock()
state = {"config": {}, "inflight": 0, "most": 0, "cancelled": set()}
state_lock = threading.Lock()


def send(obj):
    with out_lock:
        if state["config"].get("garbage") == "1":
            proto.write("this is not json\n")
        proto.write(json.dumps(obj, separators=(",", ":")) + "\n")
        proto.flush()


class Err(Exception):
    def __init__(self, code, message, **data):
        self.code, self.message, self.data = code, message, data


def cfg(k, d=None):
    return state["config"].get(k, d)


def root():
    return cfg("root")


def real(id_):
    return root() if id_ == "#root" else os.path.join(root(), id_)


def item(id_):
    p = real(id_)
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        raise Err(-1005, "no such item: " + id_)
    folder = os.path.isdir(p)
    parent = "#root" if id_ == "#root" or "/" not in id_ else id_.rsplit("/", 1)[0]
    it = {"id": id_, "parent": parent, "name": "Store" if id_ == "#root" else id_.rsplit("/", 1)[-1],
          "kind": "folder" if folder else "file", "modified": st.st_mtime, "mode": st.st_mode & 0o7777,
          "version": {"content": str(st.st_mtime_ns) + ":" + str(st.st_size), "metadata": str(st.st_ctime_ns)}}
    if not folder:
        it["size"] = st.st_size
    return it


listings = {}


def listing(path):
    """The sorted names of a folder, read again only when its mtime moves (paging a big folder)."""
    mtime = os.stat(path).st_mtime_ns
    with state_lock:
        known = listings.get(path)
    if known and known[0] == mtime:
        return known[1]
    names = sorted(os.listdir(path))
    with state_lock:
        listings[path] = (mtime, names)
    return names


def child_id(parent, name):
    return name if parent == "#root" else parent + "/" + name


def misbehave(method, rid):
    flag = cfg("flag")
    behaving = flag is not None and os.path.exists(flag)
    if cfg("crash_on") == method and not behaving:
        sys.stderr.write("about to crash in " + method + "\n")
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGSEGV)
        # The signal may reach another thread: this one must not answer meanwhile.
        time.sleep(60)
    if cfg("hang_on") == method and not behaving:
        sys.stderr.write("hanging in " + method + "\n")
        sys.stderr.flush()
        while True:
            time.sleep(0.05)
            with state_lock:
                if rid in state["cancelled"] and cfg("cancel_ok") == "1":
                    raise Err(-32800, "cancelled", name="cancelled")
    if cfg("oversize_on") == method:
        with out_lock:
            proto.write('{"jsonrpc":"2.0","method":"$/x","params":"' + "x" * (9 << 20) + '"}\n')
            proto.flush()


def handle(method, p, rid):
    if method == "describe":
        return {"extension": {"name": "folder-ext", "version": "1"}, "protocols": [1],
                "settings": [{"name": "root", "description": "the folder", "required": True, "secret": False},
                             {"name": "delay", "description": "seconds per request", "required": False}]}
    if method == "initialize":
        state["config"] = p.get("config", {})
        if not root():
            raise Err(1, "root is not set")
        if cfg("unavailable") == "1":
            raise Err(-1004, "the store cannot be reached", name="serverUnreachable")
        n = int(cfg("concurrency", "4"))
        changes = {"push": {"push": True}, "pull": {"push": False, "pollSeconds": 1}}.get(cfg("changes"), {"feed": False})
        return {"protocol": 1, "extension": {"name": "folder-ext", "version": "1"},
                "capabilities": {"identity": "path", "changes": changes,
                                 "fetch": {"ranges": True, "sha256": True}, "about": True,
                                 "concurrency": {"metadata": n, "downloads": n, "uploads": n},
                                 "write": {"create": True, "modify": ["name", "parent", "contents"], "delete": True}},
                "actions": [{"id": "x-hello", "title": "Say Hello", "rule": "count == 1"}],
                "decorations": [{"id": "odd", "glyph": "◆", "ascii": "*", "label": "Odd size"}]}
    misbehave(method, rid)
    if cfg("delay"):
        time.sleep(float(cfg("delay")))
    if cfg("barrier"):
        until = time.time() + 20
        while time.time() < until:
            with state_lock:
                if state["most"] >= int(cfg("barrier")):
                    break
            time.sleep(0.01)
    if method == "shutdown":
        return None
    if method == "item":
        if cfg("changes") == "push":
            send({"jsonrpc": "2.0", "method": "$/signal", "params": {"container": "#root"}})
        return item(p["id"])
    if method == "itemAtPath":
        rel = p["path"].strip("/")
        return item(rel if rel else "#root")
    if method == "enumerateItems":
        c = p["container"]
        if not os.path.isdir(real(c)):
            raise Err(-1005, "no such folder")
        names = listing(real(c))
        start = int(p.get("page") or 0)
        size = max(1, int(p.get("pageSize", 100)))
        chunk = names[start:start + size]
        nxt = str(start + size) if start + size < len(names) else None
        return {"items": [item(child_id(c, n)) for n in chunk], "nextPage": nxt, "totalCount": len(names)}
    if method == "fetchContents":
        src = real(p["id"])
        with open(src, "rb") as f, open(p["dest"], "r+b") as d:
            if "range" in p:
                a, b = p["range"]
                f.seek(a); d.seek(a); d.write(f.read(b - a))
                return {"item": item(p["id"]), "range": [a, b]}
            data = f.read()
            d.write(data)
        return {"item": item(p["id"]), "sha256": hashlib.sha256(data).hexdigest()}
    if method == "createItem":
        t = p["template"]
        cid = child_id(t["parent"], t["name"])
        if os.path.exists(real(cid)):
            raise Err(-1001, t["name"] + " exists", name="filenameCollision", existing=cid)
        if t["kind"] == "folder":
            os.mkdir(real(cid))
        else:
            tmp = os.path.join(real(t["parent"]), ".part-" + p["key"])
            shutil.copyfile(p["contents"], tmp) if p.get("contents") else open(tmp, "wb").close()
            os.rename(tmp, real(cid))
        return {"item": item(cid)}
    if method == "modifyItem":
        t = p["template"]
        cur = item(t["id"])
        nid = t["id"]
        if "name" in p["fields"] or "parent" in p["fields"]:
            nid = child_id(t.get("parent", cur["parent"]), t.get("name", cur["name"]))
            os.rename(real(t["id"]), real(nid))
        if "contents" in p["fields"]:
            shutil.copyfile(p["contents"], real(nid))
        return {"item": item(nid)}
    if method == "deleteItem":
        p_ = real(p["id"])
        if os.path.isdir(p_):
            shutil.rmtree(p_) if p.get("recursive") else os.rmdir(p_)
        elif os.path.exists(p_):
            os.remove(p_)
        return {}
    if method == "about":
        return {"used": 1000, "total": 4000, "free": 3000}
    raise Err(-32601, "unknown method " + method)


def run(msg):
    rid = msg.get("id")
    with state_lock:
        state["inflight"] += 1
        if state["inflight"] > state["most"]:
            state["most"] = state["inflight"]
            if cfg("stats"):
                with open(cfg("stats"), "w") as f:
                    f.write(str(state["most"]))
    # Out of flight before the answer leaves: the host may send the next request the moment
    # it reads this one's answer.
    try:
        answer = {"jsonrpc": "2.0", "id": rid, "result": handle(msg["method"], msg.get("params") or {}, rid)}
    except Err as e:
        answer = {"jsonrpc": "2.0", "id": rid, "error": {"code": e.code, "message": e.message, "data": e.data}}
    except Exception as e:
        answer = {"jsonrpc": "2.0", "id": rid, "error": {"code": 2, "message": repr(e)}}
    with state_lock:
        state["inflight"] -= 1
    send(answer)


def main():
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("method") == "$/cancelRequest":
            with state_lock:
                state["cancelled"].add(msg["params"]["id"])
            continue
        if msg.get("method") == "initialize":
            if msg["params"].get("config", {}).get("exit_at_start") == "1":
                sys.stderr.write("cannot start: the store is missing\n")
                sys.stderr.flush()
                os._exit(3)
            run(msg)
            continue
        threading.Thread(target=run, args=(msg,), daemon=True).start()


if __name__ == "__main__":
    main()
