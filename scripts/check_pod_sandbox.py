#!/usr/bin/env python3
"""Runs the glovebox container of a rendered overlay the way its pod would
run, without a cluster, and checks that it serves.

  check_pod_sandbox.py RENDERED.yaml BUILD_DIR [--kinds terminal,desktop,browser]

From the StatefulSet in RENDERED.yaml (`kubectl kustomize` output) it takes
the command and arguments, the environment, every volume mount and the
security context, and builds with bubblewrap a root file system that is
read-only except for those mounts: emptyDir → an empty directory,
Secret → a directory holding a generated token under the item's path,
ConfigMap → a directory holding the rendered ConfigMap's files,
PersistentVolumeClaim → an empty directory owned by fsGroup. The command
runs there as runAsUser/runAsGroup (named in a copy of /etc/passwd, as the
image names its user), with no capabilities and no_new_privs, in network
and PID namespaces of its own, `glovebox` found in BUILD_DIR. Then, from
inside that network namespace: the readiness probe's GET (with the pod's
address as Host), the token (401 without it, 200 with it, for the Service
names and this pod's own name), a session of each kind asked for, a write
outside the writable mounts refused, and SIGTERM → exit 0.

Must run as root (bubblewrap sets up the mounts). Prints PASS/FAIL lines;
exit status 1 when any check failed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import yaml

POD_NAME = "glovebox-0"
POD_IP = "10.244.0.7"


def fail_usage():
    print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------- outside

def load(rendered):
    with open(rendered) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    sts = next(d for d in docs if d.get("kind") == "StatefulSet")
    cms = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "ConfigMap"}
    return sts, cms


def expand(value, env):
    for k, v in env.items():
        value = value.replace(f"$({k})", v)
    return value


def build_argv(sts, cms, build_dir, work):
    pod = sts["spec"]["template"]["spec"]
    c = pod["containers"][0]
    psc = pod.get("securityContext") or {}
    csc = c.get("securityContext") or {}
    uid = csc.get("runAsUser", psc.get("runAsUser"))
    gid = csc.get("runAsGroup", psc.get("runAsGroup", uid))
    fs_group = psc.get("fsGroup", gid)
    volumes = {v["name"]: v for v in pod.get("volumes") or []}
    for t in sts["spec"].get("volumeClaimTemplates") or []:
        volumes[t["metadata"]["name"]] = {"persistentVolumeClaim": {}}

    env = {"POD_NAME": POD_NAME}
    for e in c.get("env") or []:
        if "value" in e:
            env[e["name"]] = expand(str(e["value"]), env)
        elif (e.get("valueFrom") or {}).get("fieldRef", {}).get("fieldPath") == "metadata.name":
            env[e["name"]] = POD_NAME
    env.setdefault("HOME", "/")
    env["PATH"] = f"{build_dir}:/usr/local/bin:/usr/bin:/bin"
    command = [expand(str(a), env) for a in (c.get("command") or []) + (c.get("args") or [])]

    # The image's /etc/passwd names the user (dbus-daemon needs that).
    passwd = os.path.join(work, "passwd")
    group = os.path.join(work, "group")
    with open("/etc/passwd") as f, open(passwd, "w") as o:
        o.write(f.read() + f"glovebox:x:{uid}:{gid}::{env['HOME']}:/bin/sh\n")
    with open("/etc/group") as f, open(group, "w") as o:
        o.write(f.read() + f"glovebox:x:{gid}:\n")

    mounts = []  # (host dir, mountPath, read-only)
    token = None
    for m in c.get("volumeMounts") or []:
        v = volumes[m["name"]]
        host = os.path.join(work, "vol-" + m["name"])
        os.makedirs(host, exist_ok=True)
        if "secret" in v:
            token = os.urandom(24).hex()
            for it in v["secret"].get("items") or [{"key": "token", "path": "token"}]:
                path = os.path.join(host, it["path"])
                with open(path, "w") as f:
                    f.write(token + "\n")
                os.chown(path, 0, fs_group)
                os.chmod(path, v["secret"].get("defaultMode", 0o644))
        elif "configMap" in v:
            data = cms[v["configMap"]["name"]].get("data") or {}
            for key, text in data.items():
                with open(os.path.join(host, key), "w") as f:
                    f.write(text)
        elif "persistentVolumeClaim" in v:
            os.chown(host, 0, fs_group)
            os.chmod(host, 0o2775)
        else:  # emptyDir
            os.chmod(host, 0o777)
        mounts.append((host, m["mountPath"], bool(m.get("readOnly"))))

    argv = ["bwrap", "--tmpfs", "/", "--dev", "/dev", "--proc", "/proc"]
    targets = [mp for _, mp, _ in mounts] + ["/etc/passwd", "/etc/group", build_dir, "/tmp", "/run", "/home"]

    def on_path(p):
        return any(t == p or t.startswith(p.rstrip("/") + "/") for t in targets)

    def skeleton(dirpath):
        """Bind the host's dirpath read-only, entry by entry where a mount
        goes inside it (bubblewrap cannot make a mount point in a
        read-only bind)."""
        for name in sorted(os.listdir(dirpath)):
            p = os.path.join(dirpath, name)
            if os.path.islink(p):
                argv.extend(["--symlink", os.readlink(p), p])
            elif os.path.isdir(p) and on_path(p):
                argv.extend(["--dir", p])
                skeleton(p)
            elif p not in targets:
                argv.extend(["--ro-bind", p, p])

    for top in ("usr", "etc", "var", "opt", "work"):
        p = "/" + top
        if os.path.isdir(p):
            argv.extend(["--dir", p])
            skeleton(p)
    for link in ("bin", "sbin", "lib", "lib32", "lib64"):
        if os.path.islink("/" + link):
            argv.extend(["--symlink", os.readlink("/" + link), "/" + link])
    argv.extend(["--ro-bind", passwd, "/etc/passwd", "--ro-bind", group, "/etc/group"])
    for d in ("/tmp", "/run", "/home"):
        argv.extend(["--dir", d])  # root-owned: not writable for the pod's user
    for host, mp, ro in mounts:
        argv.extend(["--ro-bind" if ro else "--bind", host, mp])
    argv.extend(["--ro-bind", os.path.abspath(__file__), "/run/check_pod_sandbox.py"])
    argv.extend(["--remount-ro", "/", "--unshare-net", "--unshare-pid", "--die-with-parent",
                 "--new-session", "--clearenv"])
    for k, v in env.items():
        argv.extend(["--setenv", k, v])
    argv.extend(["--setenv", "GLOVEBOX_SANDBOX_COMMAND", json.dumps(command)])
    argv.extend(["--setenv", "GLOVEBOX_SANDBOX_TOKEN", token or ""])
    argv.extend(["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--no-new-privs",
                 "--inh-caps=-all", "--bounding-set=-all",
                 "/usr/bin/python3", "/run/check_pod_sandbox.py", "--inner"])
    port = next((p["containerPort"] for p in c.get("ports") or []), 7800)
    probe = (c.get("readinessProbe") or {}).get("httpGet") or {}
    return argv, port, probe.get("path", "/healthz"), uid


def outer(argv):
    if len(argv) < 3:
        fail_usage()
    rendered, build_dir = argv[1], os.path.abspath(argv[2])
    kinds = "terminal"
    if len(argv) == 5 and argv[3] == "--kinds":
        kinds = argv[4]
    if os.geteuid() != 0 or not shutil.which("bwrap") or not shutil.which("setpriv"):
        print("SKIP pod sandbox: needs root, bwrap (bubblewrap) and setpriv (util-linux)")
        return 0
    if not os.path.exists(os.path.join(build_dir, "glovebox")):
        print(f"FAIL pod sandbox: no glovebox in {build_dir}")
        return 1
    sts, cms = load(rendered)
    work = tempfile.mkdtemp(prefix="glovebox-pod-sandbox-")
    try:
        cmd, port, probe, uid = build_argv(sts, cms, build_dir, work)
        cmd += [probe, str(port), kinds]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=240)
        print(r.stdout, end="")
        if r.returncode not in (0, 1):
            print(f"FAIL pod sandbox: bwrap exited {r.returncode}")
            return 1
        return r.returncode
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ----------------------------------------------------------------- inside

class Checks:
    failed = 0

    def __call__(self, ok, what, why=""):
        if ok:
            print(f"PASS pod sandbox: {what}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL pod sandbox: {what}" + (f" — {why}" if why else ""), flush=True)
        return ok


def http(port, method, path, host, token=None, body=None, timeout=60):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                 data=json.dumps(body).encode() if body is not None else None)
    req.add_header("Host", host)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        return None, str(e)


def inner(probe, port, kinds):
    check = Checks()
    port = int(port)
    command = json.loads(os.environ.pop("GLOVEBOX_SANDBOX_COMMAND"))
    token = os.environ.pop("GLOVEBOX_SANDBOX_TOKEN")
    subprocess.run(["ip", "link", "set", "lo", "up"], stderr=subprocess.DEVNULL)
    log = open("/tmp/glovebox-serve.log", "w") if os.access("/tmp", os.W_OK) else subprocess.DEVNULL
    server = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    t0 = time.monotonic()
    status = None
    while time.monotonic() - t0 < 10 and server.poll() is None:
        status, _ = http(port, "GET", probe, f"{POD_IP}:{port}", timeout=2)
        if status == 200:
            break
        time.sleep(0.05)
    ready = time.monotonic() - t0
    if not check(status == 200, f"readiness GET {probe} with Host {POD_IP} answers 200 ({ready:.2f} s after start)",
                 f"status {status}; server {'exited ' + str(server.returncode) if server.poll() is not None else 'running'}"):
        if server.poll() is None:
            server.kill()
        if log is not subprocess.DEVNULL:
            log.close()
            print(open("/tmp/glovebox-serve.log").read()[-2000:])
        return 1

    s, _ = http(port, "GET", "/v1/sessions", "glovebox")
    check(s == 401, "a request without the token is refused 401", f"status {s}")
    for host in ("glovebox", "glovebox.glovebox.svc.cluster.local",
                 f"{POD_NAME}.glovebox-pods.glovebox.svc.cluster.local"):
        s, body = http(port, "GET", "/v1/sessions", f"{host}:7800", token)
        check(s == 200, f"with the token, Host {host} is served", f"status {s}: {body[:200]}")

    def start(kind, arguments):
        s, body = http(port, "POST", "/v1/sessions", "glovebox", token,
                       {"kind": kind, "arguments": arguments}, timeout=90)
        ok = s == 201
        check(ok, f"a {kind} session starts", f"status {s}: {body[:300]}")
        return json.loads(body)["id"] if ok else None

    def call(sid, tool, arguments):
        s, body = http(port, "POST", f"/v1/sessions/{sid}/tools/{tool}", "glovebox", token,
                       {"arguments": arguments}, timeout=90)
        res = json.loads(body) if s == 200 else {}
        return res.get("status") == "succeeded", res.get("result") or body[:300]

    kinds = kinds.split(",")
    if "terminal" in kinds:
        sid = start("terminal", {"command": ["bash", "--norc"]})
        if sid:
            ok, res = call(sid, "terminal_run", {"command": "touch /usr/glovebox-x /glovebox-x; echo $?; echo ok > \"$HOME/f\" && cat \"$HOME/f\"; id -u"})
            out = res.get("output", "") if isinstance(res, dict) else str(res)
            check(ok and "Read-only file system" in out, "the root file system refuses writes", out[:300])
            check(ok and "\nok\n" in "\n" + out, "$HOME is writable", out[:300])
    if "desktop" in kinds:
        sid = start("desktop", {"command": ["xterm"]})
        if sid:
            ok, res = call(sid, "screenshot", {})
            check(ok, "a desktop screenshot is taken", str(res)[:300])
    if "browser" in kinds:
        sid = start("webdriver", {})
        if sid:
            ok, res = call(sid, "screenshot", {})
            check(ok, "a browser screenshot is taken", str(res)[:300])

    server.terminate()
    try:
        code = server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        code = "killed after 20 s"
    check(code == 0, "SIGTERM ends the server with status 0 within the grace period", f"exit {code}")
    return 1 if check.failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--inner":
        sys.exit(inner(sys.argv[2], sys.argv[3], sys.argv[4]))
    sys.exit(outer(sys.argv))
