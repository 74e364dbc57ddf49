#!/usr/bin/env python3
"""Checks what scripts/check-kustomize.sh renders, and server.json.

  check_manifests.py kustomize NAME RENDERED.yaml [--image IMAGE]
      the output of `kubectl kustomize` for one overlay: the kinds, the
      image, probes on /healthz, the token Secret and policy ConfigMap
      mounted read-only where the arguments point, no privileged pod or
      host namespace or host path, resources set, the NetworkPolicy closed.
  check_manifests.py server-json server.json meson.build
      the MCP Registry metadata: it parses, has the fields the registry's
      schema requires, and its versions are the project's.

Prints one PASS or FAIL line per check; exit status 1 when any failed,
2 on a usage error.
"""
import json
import re
import sys

try:
    import yaml
except ImportError:
    print("FAIL python3-yaml is not installed (apt-get install python3-yaml)")
    sys.exit(1)

TOKEN_FILE = "/run/secrets/glovebox-token"
HEALTH_PATH = "/healthz"
PORT = 7800


class Report:
    def __init__(self, name):
        self.name = name
        self.failed = 0

    def check(self, ok, what, why=""):
        if ok:
            print(f"PASS {self.name}: {what}")
        else:
            self.failed += 1
            print(f"FAIL {self.name}: {what}" + (f" — {why}" if why else ""))
        return ok


def quantity(q):
    """A Kubernetes quantity as a number (cores, bytes)."""
    s = str(q)
    units = {"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
             "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    m = re.fullmatch(r"([0-9.]+)([a-zA-Z]*)", s)
    if not m or (m.group(2) and m.group(2) not in units):
        raise ValueError(f"not a quantity: {s!r}")
    return float(m.group(1)) * units.get(m.group(2), 1)


def arg_after(args, flag):
    for i, a in enumerate(args):
        if a == flag and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(flag + "="):
            return a[len(flag) + 1:]
    return None


def mounted_file(container, volumes, path):
    """(mount, volume) of the mount that holds path, or (None, None)."""
    best = (None, None)
    for m in container.get("volumeMounts") or []:
        mp = m["mountPath"].rstrip("/")
        if path == mp or path.startswith(mp + "/"):
            if best[0] is None or len(mp) > len(best[0]["mountPath"].rstrip("/")):
                best = (m, volumes.get(m["name"]))
    return best


def file_in_volume(mount, volume, path):
    """The key of the Secret/ConfigMap volume that appears at path, or None."""
    rel = path[len(mount["mountPath"].rstrip("/")) + 1:]
    if mount.get("subPath"):
        rel = mount["subPath"]
    src = volume.get("secret") or volume.get("configMap") or {}
    items = src.get("items")
    if items:
        for it in items:
            if it["path"] == rel:
                return it["key"]
        return None
    return rel


def check_container(r, c, volumes, pod_sc, expect_image, configmaps):
    who = f"container {c['name']}"
    image = c.get("image", "")
    if expect_image:
        r.check(image == expect_image, f"{who} image is {expect_image}", f"it is {image!r}")
    else:
        r.check(re.search(r"glovebox[^/]*([:@].+)$", image) is not None,
                f"{who} image names glovebox with a tag or digest", f"it is {image!r}")

    for kind in ("readinessProbe", "livenessProbe"):
        get = (c.get(kind) or {}).get("httpGet") or {}
        port_ok = get.get("port") in (PORT, "http") and any(
            p.get("containerPort") == PORT and (get.get("port") == PORT or p.get("name") == get.get("port"))
            for p in c.get("ports") or [])
        r.check(get.get("path") == HEALTH_PATH and port_ok,
                f"{who} {kind} is GET {HEALTH_PATH} on port {PORT}", f"it is {c.get(kind)!r}")

    args = [str(a) for a in (c.get("command") or []) + (c.get("args") or [])]
    listen = arg_after(args, "--http") or ""
    r.check(listen.endswith(f":{PORT}"), f"{who} serves HTTP on port {PORT}", f"--http is {listen!r}")

    # The token: --token-file names a file of a read-only Secret volume.
    token = arg_after(args, "--token-file")
    m, v = mounted_file(c, volumes, token or "")
    key = file_in_volume(m, v, token) if m and v and "secret" in v else None
    r.check(token == TOKEN_FILE and key is not None and m.get("readOnly") is True,
            f"{who} reads the token from Secret key {key!r} mounted read-only at {TOKEN_FILE}",
            f"--token-file {token!r}, mount {m!r}, volume {v!r}")

    # The policy: --policy names a file of a read-only ConfigMap volume,
    # and that ConfigMap's entry is a JSON object.
    policy = arg_after(args, "--policy")
    m, v = mounted_file(c, volumes, policy or "")
    key = file_in_volume(m, v, policy) if m and v and "configMap" in v else None
    ok = policy is not None and key is not None and m.get("readOnly") is True
    r.check(ok, f"{who} reads the policy {policy} from a ConfigMap mounted read-only",
            f"--policy {policy!r}, mount {m!r}, volume {v!r}")
    if ok:
        cm = configmaps.get(v["configMap"]["name"])
        text = (cm or {}).get("data", {}).get(key)
        try:
            parsed = json.loads(text) if text is not None else None
        except ValueError as e:
            parsed = None
            text = f"{text[:60]!r}: {e}"
        r.check(isinstance(parsed, dict), f"ConfigMap {v['configMap']['name']} key {key} is a JSON policy",
                "missing" if cm is None else f"not a JSON object: {text}")

    sc = c.get("securityContext") or {}
    r.check(sc.get("privileged") is not True, f"{who} is not privileged")
    r.check(sc.get("allowPrivilegeEscalation") is False, f"{who} sets allowPrivilegeEscalation: false",
            f"it is {sc.get('allowPrivilegeEscalation')!r}")
    caps = sc.get("capabilities") or {}
    r.check("ALL" in (caps.get("drop") or []) and not caps.get("add"),
            f"{who} drops ALL capabilities and adds none", f"capabilities {caps!r}")
    r.check(sc.get("readOnlyRootFilesystem") is True, f"{who} has a read-only root file system")
    non_root = sc.get("runAsNonRoot", pod_sc.get("runAsNonRoot"))
    uid = sc.get("runAsUser", pod_sc.get("runAsUser"))
    r.check(non_root is True and uid != 0, f"{who} runs as non-root", f"runAsNonRoot {non_root!r}, runAsUser {uid!r}")
    seccomp = (sc.get("seccompProfile") or pod_sc.get("seccompProfile") or {}).get("type")
    r.check(seccomp == "RuntimeDefault", f"{who} uses the RuntimeDefault seccomp profile", f"it is {seccomp!r}")

    res = c.get("resources") or {}
    missing = [f"{k}.{q}" for k in ("requests", "limits") for q in ("cpu", "memory")
               if q not in (res.get(k) or {})]
    if r.check(not missing, f"{who} sets cpu and memory requests and limits", f"missing {missing}"):
        try:
            bad = [q for q in ("cpu", "memory")
                   if quantity(res["requests"][q]) > quantity(res["limits"][q])]
            r.check(not bad, f"{who} requests no more than its limits", f"over the limit: {bad}")
        except ValueError as e:
            r.check(False, f"{who} resources are quantities", str(e))


def selects(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def check_networkpolicy(r, policies, pod_labels):
    mine = [p for p in policies if selects((p["spec"].get("podSelector") or {}).get("matchLabels"), pod_labels)]
    if not r.check(bool(mine), "a NetworkPolicy selects the glovebox pods"):
        return
    for p in mine:
        spec = p["spec"]
        who = f"NetworkPolicy {p['metadata']['name']}"
        types = spec.get("policyTypes") or []
        r.check("Ingress" in types and "Egress" in types, f"{who} restricts ingress and egress", f"policyTypes {types}")
        ingress = spec.get("ingress") or []
        open_in = [i for i in ingress
                   if not i.get("from") or any(not f.get("namespaceSelector") for f in i["from"])]
        r.check(bool(ingress) and not open_in,
                f"{who} admits only selected namespaces (namespaceSelector)", f"open rules: {open_in}")
        egress = spec.get("egress") or []
        open_out = [e for e in egress
                    if not e.get("to") or any((t.get("ipBlock") or {}).get("cidr") in ("0.0.0.0/0", "::/0")
                                              for t in e["to"])]
        r.check(not open_out, f"{who} opens egress to listed destinations only", f"open rules: {open_out}")
        dns = any(any(pt.get("port") == 53 for pt in e.get("ports") or []) for e in egress)
        r.check(dns, f"{who} allows DNS (port 53)")


def check_kustomize(name, path, expect_image):
    r = Report(name)
    try:
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d]
    except (OSError, yaml.YAMLError) as e:
        r.check(False, "the rendered manifests parse as YAML", str(e))
        return r
    kinds = sorted({d.get("kind") for d in docs})
    need = ["ConfigMap", "Namespace", "NetworkPolicy", "Service", "StatefulSet"]
    r.check(all(k in kinds for k in need), f"kinds {', '.join(kinds)} include {', '.join(need)}")
    configmaps = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "ConfigMap"}
    workloads = [d for d in docs if d.get("kind") in ("StatefulSet", "Deployment", "DaemonSet", "Job", "Pod")]
    pod_labels = {}
    for w in workloads:
        pod = w["spec"] if w["kind"] == "Pod" else w["spec"]["template"]["spec"]
        labels = (w["metadata"] if w["kind"] == "Pod" else w["spec"]["template"]["metadata"]).get("labels") or {}
        pod_labels = labels
        who = f"{w['kind']} {w['metadata']['name']}"
        for host in ("hostNetwork", "hostPID", "hostIPC"):
            r.check(pod.get(host) is not True, f"{who} does not use {host}")
        vols = pod.get("volumes") or []
        host_paths = [v["name"] for v in vols if "hostPath" in v]
        r.check(not host_paths, f"{who} mounts no hostPath volume", f"hostPath volumes: {host_paths}")
        volumes = {v["name"]: v for v in vols}
        # volumeClaimTemplates are volumes too.
        for t in w["spec"].get("volumeClaimTemplates") or []:
            volumes[t["metadata"]["name"]] = {"persistentVolumeClaim": {}}
        pod_sc = pod.get("securityContext") or {}
        for c in (pod.get("initContainers") or []) + pod["containers"]:
            check_container(r, c, volumes, pod_sc, expect_image, configmaps)
    services = [d for d in docs if d.get("kind") == "Service"]
    cluster_ip = [s for s in services
                  if s["spec"].get("type", "ClusterIP") == "ClusterIP" and s["spec"].get("clusterIP") != "None"
                  and any(p.get("port") == PORT for p in s["spec"].get("ports") or [])
                  and selects(s["spec"].get("selector"), pod_labels)]
    r.check(bool(cluster_ip), f"a ClusterIP Service on port {PORT} selects the pods")
    check_networkpolicy(r, [d for d in docs if d.get("kind") == "NetworkPolicy"], pod_labels)
    return r


def check_server_json(path, meson_build):
    r = Report(path)
    try:
        with open(path) as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        r.check(False, "parses as JSON", str(e))
        return r
    r.check(isinstance(s, dict), "is a JSON object")
    if not isinstance(s, dict):
        return r
    schema = s.get("$schema", "")
    r.check(re.fullmatch(r"https://static\.modelcontextprotocol\.io/schemas/\d{4}-\d{2}-\d{2}/server\.schema\.json",
                         schema) is not None, "$schema names a published server.json schema", repr(schema))
    name = s.get("name", "")
    r.check(isinstance(name, str) and 3 <= len(name) <= 200
            and re.fullmatch(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+", name) is not None,
            "name is namespace/name (reverse DNS)", repr(name))
    desc = s.get("description", "")
    r.check(isinstance(desc, str) and 1 <= len(desc) <= 100, "description has 1 to 100 characters",
            f"{len(desc) if isinstance(desc, str) else desc!r}")
    version = s.get("version")
    try:
        with open(meson_build) as f:
            m = re.search(r"project\([^)]*?version:\s*'([^']+)'", f.read(), re.S)
        project = m.group(1) if m else None
    except OSError:
        project = None
    r.check(isinstance(version, str) and version == project, f"version is the project's ({project})", repr(version))
    packages = s.get("packages") or []
    remotes = s.get("remotes") or []
    r.check(bool(packages or remotes), "has packages or remotes")
    for i, p in enumerate(packages):
        who = f"packages[{i}]"
        missing = [k for k in ("registryType", "identifier", "transport") if k not in p]
        r.check(not missing, f"{who} has registryType, identifier and transport", f"missing {missing}")
        t = p.get("transport") or {}
        ok = t.get("type") == "stdio" or (t.get("type") in ("streamable-http", "sse") and t.get("url"))
        r.check(ok, f"{who} transport is stdio, or streamable-http/sse with a url", repr(t))
        if p.get("registryType") == "oci":
            ident = p.get("identifier", "")
            tag = ident.rsplit(":", 1)[-1] if ":" in ident.rsplit("/", 1)[-1] else ""
            r.check(tag == version or tag.startswith(f"{version}-"),
                    f"{who} image tag is the version ({ident})", f"tag {tag!r}")
        if p.get("registryType") == "mcpb":
            r.check(re.fullmatch(r"[a-f0-9]{64}", p.get("fileSha256", "")) is not None,
                    f"{who} (mcpb) has fileSha256")
        if "version" in p:
            r.check(p["version"] not in ("", "latest"), f"{who} version is a specific one")
    if "OWNER" in json.dumps(s):
        print(f"NOTE {path}: the owner is still the placeholder OWNER; fill it in before publishing (README.md)")
    return r


def main(argv):
    if len(argv) >= 4 and argv[1] == "kustomize":
        image = None
        if len(argv) == 6 and argv[4] == "--image":
            image = argv[5]
        elif len(argv) != 4:
            return usage()
        return 1 if check_kustomize(argv[2], argv[3], image).failed else 0
    if len(argv) == 4 and argv[1] == "server-json":
        return 1 if check_server_json(argv[2], argv[3]).failed else 0
    return usage()


def usage():
    print(__doc__.strip().split("\n\n")[0], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
