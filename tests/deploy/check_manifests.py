"""Checks MudJack's Kubernetes manifests (deploy/k8s/) offline.

Renders the base, every chip overlay, every framework overlay, the local
overlay and the sweep Job with `kubectl kustomize`; validates every rendered
object strictly against the Kubernetes schemas (kubernetes-validate, no
cluster); then checks what a schema cannot: each chip overlay requests its
extended resource and selects its nodes, images are the right variant,
probes point at the right paths and ports, overlays add nothing the base
does not define, Services select exactly their own pods, and the sweep's
targets name real Services.

Usage: check_manifests.py [--k8s DIR] [--images DIR]
Exit 0 when everything holds; 1 with one line per problem otherwise.
Run by tests/deploy/manifests.sh (CTest: deploy_manifests).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import kubernetes_validate
import yaml

KUBERNETES_VERSION = "1.32.0"  # the kubectl these tests run with
PROFILE = "current"
PORT = 8080
TOKEN_SECRET = ("mudjack-token", "token")

# What each chip overlay must do, written down independently of the manifests.
# selects: label -> accepted values (nodeSelector value, or a required
# nodeAffinity "In" list that must contain the first value). profiles:
# framework -> the image profile when it is not PROFILE (torch on TPU is
# torch_xla's own profile, xla).
CHIPS = {
    "nvidia-h100": dict(prefix="h100", arch="amd64", accel="cuda", frameworks=["torch", "jax", "tensorflow"],
                        resource=("nvidia.com/gpu", "1"), toleration="nvidia.com/gpu",
                        selects={"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}),
    "nvidia-a100": dict(prefix="a100", arch="amd64", accel="cuda", frameworks=["torch", "jax", "tensorflow"],
                        resource=("nvidia.com/gpu", "1"), toleration="nvidia.com/gpu",
                        selects={"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}),
    "amd-mi300x": dict(prefix="mi300x", arch="amd64", accel="rocm", frameworks=["torch", "jax"],
                       resource=("amd.com/gpu", "1"), toleration="amd.com/gpu",
                       selects={"amd.com/gpu.device-id": "74a1"}),
    "google-tpu-v5e": dict(prefix="tpu-v5e", arch="amd64", accel="tpu", frameworks=["jax", "tensorflow", "torch"],
                           profiles={"torch": "xla"},
                           resource=("google.com/tpu", "4"), toleration="google.com/tpu",
                           selects={"cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
                                    "cloud.google.com/gke-tpu-topology": "2x2"}),
    "cpu-amd64": dict(prefix="cpu-amd64", arch="amd64", accel="cpu",
                      frameworks=["numpy", "torch", "jax", "tensorflow"], resource=None, toleration=None,
                      selects={}),
    "cpu-arm64": dict(prefix="cpu-arm64", arch="arm64", accel="cpu",
                      frameworks=["numpy", "torch", "jax", "tensorflow"], resource=None, toleration=None,
                      selects={}),
}
EXTENDED = {"nvidia.com/gpu", "amd.com/gpu", "google.com/tpu"}
# Pod-spec fields an overlay may add to the base's: placement and local use.
PLACEMENT_FIELDS = {"nodeSelector", "affinity", "tolerations", "hostNetwork"}


class Problems:
    def __init__(self) -> None:
        self.items: list[str] = []

    def __call__(self, where: str, what: str) -> None:
        self.items.append(f"{where}: {what}")


def render(folder: Path) -> list[dict]:
    out = subprocess.run(["kubectl", "kustomize", str(folder)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"kubectl kustomize failed: {out.stderr.strip()}")
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def validate(docs: list[dict], where: str, bad: Problems) -> None:
    for d in docs:
        name = f"{d.get('kind')}/{d.get('metadata', {}).get('name')}"
        try:
            kubernetes_validate.validate(d, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as e:
            path = ".".join(str(p) for p in e.path)
            bad(where, f"{name} fails the Kubernetes {KUBERNETES_VERSION} schema at {path}: {e.message}")
        except (kubernetes_validate.SchemaNotFoundError, kubernetes_validate.InvalidSchemaError) as e:
            bad(where, f"{name}: no schema: {e}")


def by_kind(docs: list[dict], kind: str) -> list[dict]:
    return [d for d in docs if d.get("kind") == kind]


def read_variants(images: Path) -> dict[str, dict]:
    variants = {}
    for line in (images / "variants.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, arches, current, paper, latest, xla = line.split()
        variants[name] = {"arches": arches.split(","), "current": current, "paper-2023": paper,
                          "latest": latest, "xla": xla}
    return variants


def args_map(container: dict) -> dict[str, str]:
    out = {}
    for a in container.get("args", []):
        if a.startswith("--") and "=" in a:
            k, v = a[2:].split("=", 1)
            out[k] = v
    return out


def check_base_shape(base: list[dict], docs: list[dict], prefix: str, where: str, bad: Problems,
                     host_network: bool = False) -> None:
    """An overlay may rename, relabel and patch, but adds nothing the base lacks.
    On the host network (the local overlay, for podman) it drops the Service
    and the containerPort, which mean nothing there."""
    base_kinds = sorted(d["kind"] for d in base if not (host_network and d["kind"] == "Service"))
    kinds = sorted(d["kind"] for d in docs)
    if kinds != base_kinds:
        bad(where, f"resources {kinds} differ from the base's {base_kinds}")
    # A generated ConfigMap's name ends in a hash of its content.
    def unhashed(d: dict, name: str) -> str:
        return name.rsplit("-", 1)[0] if d["kind"] == "ConfigMap" else name

    base_names = {(d["kind"], unhashed(d, d["metadata"]["name"])) for d in base}
    for d in docs:
        name = d["metadata"]["name"]
        if not name.startswith(prefix + "-"):
            bad(where, f"{d['kind']}/{name} lacks the overlay's prefix {prefix}-")
        stem = unhashed(d, name[len(prefix) + 1:])
        if (d["kind"], stem) not in base_names:
            bad(where, f"{d['kind']}/{name} is not a resource of the base")
    # An overlay may give its server another profile (its image's) and no
    # other setting: mudjack.toml is otherwise the base's.
    base_toml = [toml_of(d) for d in by_kind(base, "ConfigMap") if "mudjack.toml" in d.get("data", {})]
    for d in by_kind(docs, "ConfigMap"):
        if "mudjack.toml" not in d.get("data", {}) or len(base_toml) != 1 or base_toml[0] is None:
            continue
        mine = toml_of(d)
        if mine is None:
            continue  # check_server names the TOML error
        mine.pop("profile", None)
        theirs = {k: v for k, v in base_toml[0].items() if k != "profile"}
        if mine != theirs:
            bad(where, f"ConfigMap/{d['metadata']['name']}: mudjack.toml differs from the base's "
                       f"in more than its profile: {mine} != {theirs}")
    bdep = by_kind(base, "Deployment")[0]["spec"]["template"]["spec"]
    for dep in by_kind(docs, "Deployment"):
        spec = dep["spec"]["template"]["spec"]
        extra = set(spec) - set(bdep) - PLACEMENT_FIELDS
        if extra:
            bad(where, f"Deployment adds pod fields the base lacks: {sorted(extra)}")
        bc = {c["name"]: c for c in bdep["containers"]}
        for c in spec["containers"]:
            if c["name"] not in bc:
                bad(where, f"container {c['name']} is not the base's")
                continue
            extra = set(c) - set(bc[c["name"]]) - ({"ports"} if host_network else set())
            if extra:
                bad(where, f"container {c['name']} adds fields the base lacks: {sorted(extra)}")
            base_ports = [] if host_network else [p["containerPort"] for p in bc[c["name"]]["ports"]]
            if [p["containerPort"] for p in c.get("ports", [])] != base_ports:
                bad(where, f"container ports differ from the base's ({base_ports})")
            if {m["name"] for m in c.get("volumeMounts", [])} != {m["name"] for m in bc[c["name"]]["volumeMounts"]}:
                bad(where, "volume mounts differ from the base's")
        if {v["name"] for v in spec.get("volumes", [])} != {v["name"] for v in bdep["volumes"]}:
            bad(where, "volumes differ from the base's")


def check_server(docs: list[dict], where: str, bad: Problems, host: str, host_network: bool = False) -> None:
    """Probes, ports, token, config and Service wiring of every Deployment.
    On the host network there is no containerPort: probes name the port."""
    configmaps = {d["metadata"]["name"]: d for d in by_kind(docs, "ConfigMap")}
    deployments = by_kind(docs, "Deployment")
    for dep in deployments:
        name = dep["metadata"]["name"]
        tmpl = dep["spec"]["template"]
        selector = dep["spec"]["selector"].get("matchLabels", {})
        labels = tmpl["metadata"].get("labels", {})
        if not selector or any(labels.get(k) != v for k, v in selector.items()):
            bad(where, f"{name}: selector {selector} does not match its pod labels {labels}")
        spec = tmpl["spec"]
        c = spec["containers"][0]
        args = args_map(c)
        ports = {p.get("name"): p["containerPort"] for p in c.get("ports", [])}
        if host_network:
            if args.get("port") != str(PORT) or ports:
                bad(where, f"{name}: on the host network the server port must be {PORT} and no containerPort set")
        elif args.get("port") != str(PORT) or ports.get("http") != PORT:
            bad(where, f"{name}: server port {args.get('port')} and containerPort {ports.get('http')} must both be {PORT}")
        if args.get("host") != host:
            bad(where, f"{name}: server binds {args.get('host')}, expected {host}")
        for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
            get = c.get(probe, {}).get("httpGet")
            if not get:
                bad(where, f"{name}: no {probe} httpGet")
                continue
            if get.get("path") != path:
                bad(where, f"{name}: {probe} checks {get.get('path')}, expected {path}")
            port = get.get("port")
            if ports.get(port, port) != PORT:
                bad(where, f"{name}: {probe} port {port} is not the server's port {PORT}")
        token = [e for e in c.get("env", []) if e["name"] == "MUDJACK_TOKEN"]
        ref = token[0].get("valueFrom", {}).get("secretKeyRef", {}) if token else {}
        if (ref.get("name"), ref.get("key")) != TOKEN_SECRET:
            bad(where, f"{name}: MUDJACK_TOKEN must come from Secret {TOKEN_SECRET[0]} key {TOKEN_SECRET[1]}")
        mounts = {m["name"]: m["mountPath"] for m in c.get("volumeMounts", [])}
        vols = {v["name"]: v for v in spec.get("volumes", [])}
        cm = vols.get("config", {}).get("configMap", {}).get("name")
        if cm not in configmaps:
            bad(where, f"{name}: config volume names ConfigMap {cm}, which the overlay does not render")
        elif "mudjack.toml" not in configmaps[cm].get("data", {}):
            bad(where, f"{name}: ConfigMap {cm} has no mudjack.toml")
        else:
            # The engine looks for the framework environment of the configured
            # profile; an image holds only its own profile's.
            try:
                profile = tomllib.loads(configmaps[cm]["data"]["mudjack.toml"]).get("profile", "current")
            except tomllib.TOMLDecodeError as e:
                bad(where, f"{name}: mudjack.toml in ConfigMap {cm} is not TOML: {e}")
                profile = None
            tag = image_variant(c["image"])[1]
            if profile is not None and tag and f"-{profile}-" not in tag:
                bad(where, f"{name}: mudjack.toml says profile {profile}, but the image is {tag}")
        config = args.get("config", "")
        if os.path.dirname(config) != mounts.get("config") or os.path.basename(config) != "mudjack.toml":
            bad(where, f"{name}: --config={config} is not the mounted ConfigMap's mudjack.toml")
        req = c.get("resources", {}).get("requests", {})
        lim = c.get("resources", {}).get("limits", {})
        if "cpu" not in req or "memory" not in req or "memory" not in lim:
            bad(where, f"{name}: needs cpu and memory requests and a memory limit")
    for svc in by_kind(docs, "Service"):
        sel = svc["spec"].get("selector", {})
        matched = [d["metadata"]["name"] for d in deployments
                   if sel and all(d["spec"]["template"]["metadata"]["labels"].get(k) == v for k, v in sel.items())]
        if len(matched) != 1:
            bad(where, f"Service {svc['metadata']['name']} selects {len(matched)} Deployments {matched}, expected exactly one")
        for p in svc["spec"]["ports"]:
            if p.get("targetPort") not in ("http", PORT) or p.get("port") != PORT:
                bad(where, f"Service {svc['metadata']['name']} port {p} does not reach the server's port")


def toml_of(configmap: dict) -> dict | None:
    """The ConfigMap's mudjack.toml as a dict; None when it is not TOML."""
    try:
        return tomllib.loads(configmap["data"]["mudjack.toml"])
    except tomllib.TOMLDecodeError:
        return None


def image_variant(image: str) -> tuple[str, str]:
    """(name, tag); the tag is empty when there is none (a registry port is no tag)."""
    slash = image.rfind("/")
    colon = image.rfind(":")
    if colon <= slash:
        return image, ""
    return image[:colon], image[colon + 1:]


def check_chip(chip: str, want: dict, docs: list[dict], variants: dict, images: Path,
               where: str, framework: str, bad: Problems) -> None:
    deps = by_kind(docs, "Deployment")
    if len(deps) != 1:
        bad(where, f"{len(deps)} Deployments, expected one")
        return
    dep = deps[0]
    name = dep["metadata"]["name"]
    spec = dep["spec"]["template"]["spec"]
    c = spec["containers"][0]
    labels = dep["spec"]["template"]["metadata"]["labels"]
    if labels.get("mudjack.dev/chip") != chip or labels.get("mudjack.dev/framework") != framework:
        bad(where, f"{name}: pod labels {labels} do not name chip {chip} and framework {framework}")
    if not name.startswith(f"{want['prefix']}-{framework}-"):
        bad(where, f"{name}: expected the name prefix {want['prefix']}-{framework}-")
    # Image: the right variant, built for this architecture and profile.
    img, tag = image_variant(c["image"])
    variant = f"{framework}-{want['accel']}"
    profile = want.get("profiles", {}).get(framework, PROFILE)
    if not img.endswith("mudjack"):
        bad(where, f"{name}: image {c['image']} is not a MudJack image")
    if tag != f"{variant}-{profile}-{want['arch']}":
        bad(where, f"{name}: image tag {tag}, expected {variant}-{profile}-{want['arch']}")
    v = variants.get(variant)
    if v is None:
        bad(where, f"{name}: variant {variant} is not in deploy/images/variants.txt")
    else:
        if want["arch"] not in v["arches"]:
            bad(where, f"{name}: variant {variant} is not built for {want['arch']}")
        if v[profile] in ("unsupported", "unpinned"):
            bad(where, f"{name}: variant {variant} has no {profile} build ({v[profile]})")
        if want["accel"] != "cpu" and not (images / "pins" / profile / f"{variant}.txt").is_file():
            bad(where, f"{name}: no pin file deploy/images/pins/{profile}/{variant}.txt")
    if args_map(c).get("framework") != framework:
        bad(where, f"{name}: serves --framework={args_map(c).get('framework')}, expected {framework}")
    # Node selection.
    selector = spec.get("nodeSelector", {})
    if selector.get("kubernetes.io/arch") != want["arch"]:
        bad(where, f"{name}: nodeSelector kubernetes.io/arch is {selector.get('kubernetes.io/arch')}, expected {want['arch']}")
    required = []
    for term in (spec.get("affinity", {}).get("nodeAffinity", {})
                 .get("requiredDuringSchedulingIgnoredDuringExecution", {}).get("nodeSelectorTerms", [])):
        required.append({e["key"]: e for e in term.get("matchExpressions", [])})
    for key, value in want["selects"].items():
        if key in selector:
            if selector[key] != value:
                bad(where, f"{name}: nodeSelector {key}={selector[key]}, expected {value}")
        elif not required or not all(key in t and t[key]["operator"] == "In" and value in t[key]["values"]
                                      for t in required):
            bad(where, f"{name}: selects no nodes by {key}={value} (nodeSelector or required nodeAffinity)")
    # Extended resources: the chip's, in requests and limits alike, and no other.
    res = c.get("resources", {})
    for part in ("requests", "limits"):
        have = {k: str(v) for k, v in res.get(part, {}).items() if k in EXTENDED}
        expect = dict([want["resource"]]) if want["resource"] else {}
        if have != expect:
            bad(where, f"{name}: extended resources in {part} are {have}, expected {expect}")
    tolerated = {t.get("key") for t in spec.get("tolerations", [])}
    if want["toleration"] and want["toleration"] not in tolerated:
        bad(where, f"{name}: does not tolerate the {want['toleration']} taint")
    if spec.get("hostNetwork"):
        bad(where, f"{name}: a cluster overlay must not use the host network")


def check_local(docs: list[dict], where: str, bad: Problems) -> None:
    for dep in by_kind(docs, "Deployment"):
        spec = dep["spec"]["template"]["spec"]
        c = spec["containers"][0]
        if spec.get("hostNetwork") is not True:
            bad(where, "the local overlay must use the host network (podman's bridge is never used)")
        if c.get("imagePullPolicy") != "Never":
            bad(where, "the local overlay must use the locally built image (imagePullPolicy: Never)")
        _, tag = image_variant(c["image"])
        if not tag.startswith("numpy-cpu-"):
            bad(where, f"the local overlay runs {tag}, expected the numpy cpu variant built here")
        res = c.get("resources", {})
        if any(k in EXTENDED for part in ("requests", "limits") for k in res.get(part, {})):
            bad(where, "the local overlay must not request accelerators")


def check_sweep(docs: list[dict], services: dict[str, dict], where: str, bad: Problems) -> None:
    jobs = by_kind(docs, "Job")
    if len(jobs) != 1:
        bad(where, f"{len(jobs)} Jobs, expected one")
        return
    spec = jobs[0]["spec"]["template"]["spec"]
    c = spec["containers"][0]
    cmd = c.get("command", []) + c.get("args", [])
    if not cmd or not cmd[0].endswith("/mudjack") or "sweep" not in cmd:
        bad(where, f"the Job runs {cmd}, expected `mudjack sweep`")
    args = args_map(c)
    mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}
    vols = {v["name"]: v for v in spec.get("volumes", [])}
    out = args.get("out", "")
    under = [m for m in mounts if out == m or out.startswith(m.rstrip("/") + "/")]
    claim = vols.get(mounts[under[0]] if under else "", {}).get("persistentVolumeClaim", {}).get("claimName")
    claims = {d["metadata"]["name"] for d in by_kind(docs, "PersistentVolumeClaim")}
    if claim not in claims:
        bad(where, f"--out={out} is not on a mounted PersistentVolumeClaim the sweep renders")
    targets = args.get("targets", "")
    cm = vols.get(mounts.get(os.path.dirname(targets), ""), {}).get("configMap", {}).get("name")
    cms = {d["metadata"]["name"]: d for d in by_kind(docs, "ConfigMap")}
    if cm not in cms or os.path.basename(targets) not in cms[cm].get("data", {}):
        bad(where, f"--targets={targets} is not a file of a ConfigMap the sweep renders")
        return
    env = {e["name"]: e.get("valueFrom", {}).get("secretKeyRef", {}) for e in c.get("env", [])}
    if (env.get("MUDJACK_TOKEN", {}).get("name"), env.get("MUDJACK_TOKEN", {}).get("key")) != TOKEN_SECRET:
        bad(where, "the sweep's MUDJACK_TOKEN must come from the servers' Secret")
    doc = tomllib.loads(cms[cm]["data"][os.path.basename(targets)])
    seen = set()
    for t in doc.get("target", []):
        url = t.get("url", "")
        hostport = url.removeprefix("http://").rstrip("/")
        host, _, port = hostport.partition(":")
        svc = services.get(host)
        if svc is None:
            bad(where, f"target {t.get('label')}: {url} is no Service of the chip overlays")
            continue
        seen.add(host)
        if int(port or 80) != svc["spec"]["ports"][0]["port"]:
            bad(where, f"target {t.get('label')}: port {port} is not Service {host}'s")
        labels = svc["metadata"].get("labels", {})
        if (t.get("chip"), t.get("framework")) != (labels.get("mudjack.dev/chip"), labels.get("mudjack.dev/framework")):
            bad(where, f"target {t.get('label')}: chip/framework {t.get('chip')}/{t.get('framework')} "
                       f"disagree with Service {host}")
        if t.get("image", "").rpartition(":")[2] != svc["_image_tag"]:
            bad(where, f"target {t.get('label')}: image {t.get('image')} is not what {host} runs ({svc['_image_tag']})")
    missing = sorted(set(services) - seen)
    if missing:
        bad(where, f"targets.toml lacks the Services {missing}")


def run(k8s: Path, images: Path) -> list[str]:
    bad = Problems()
    variants = read_variants(images)
    try:
        base = render(k8s / "base")
    except RuntimeError as e:
        bad("base", str(e))
        return bad.items
    validate(base, "base", bad)
    check_server(base, "base", bad, host="0.0.0.0")
    services: dict[str, dict] = {}
    for chip, want in CHIPS.items():
        folder = k8s / "overlays" / chip
        if not folder.is_dir():
            bad(f"overlays/{chip}", "missing")
            continue
        try:
            whole = render(folder)
        except RuntimeError as e:
            bad(f"overlays/{chip}", str(e))
            continue
        validate(whole, f"overlays/{chip}", bad)
        check_server(whole, f"overlays/{chip}", bad, host="0.0.0.0")
        fws = sorted(d["spec"]["template"]["metadata"]["labels"].get("mudjack.dev/framework", "?")
                     for d in by_kind(whole, "Deployment"))
        if fws != sorted(want["frameworks"]):
            bad(f"overlays/{chip}", f"deploys frameworks {fws}, expected {sorted(want['frameworks'])}")
        for dep in by_kind(whole, "Deployment"):
            tag = image_variant(dep["spec"]["template"]["spec"]["containers"][0]["image"])[1]
            for svc in by_kind(whole, "Service"):
                sel = svc["spec"]["selector"]
                if all(dep["spec"]["template"]["metadata"]["labels"].get(k) == v for k, v in sel.items()):
                    services[svc["metadata"]["name"]] = dict(svc, _image_tag=tag)
        # The chip overlay is exactly its framework overlays (one folder
        # each), so each framework's part is its labelled share of the render.
        for fw in want["frameworks"]:
            where = f"overlays/{chip}/{fw}"
            docs = [d for d in whole if d["metadata"].get("labels", {}).get("mudjack.dev/framework") == fw]
            check_base_shape(base, docs, f"{want['prefix']}-{fw}", where, bad)
            check_chip(chip, want, docs, variants, images, where, fw, bad)
    try:
        local = render(k8s / "overlays" / "local")
        validate(local, "overlays/local", bad)
        check_server(local, "overlays/local", bad, host="127.0.0.1", host_network=True)
        check_base_shape(base, local, "local", "overlays/local", bad, host_network=True)
        check_local(local, "overlays/local", bad)
    except RuntimeError as e:
        bad("overlays/local", str(e))
    try:
        sweep = render(k8s / "sweep")
        validate(sweep, "sweep", bad)
        check_sweep(sweep, services, "sweep", bad)
    except RuntimeError as e:
        bad("sweep", str(e))
    # Every overlay folder is one this test knows, so none goes unchecked.
    known = set(CHIPS) | {"local"}
    for d in sorted((k8s / "overlays").iterdir()):
        if d.is_dir() and d.name not in known:
            bad(f"overlays/{d.name}", "an overlay this test does not check: add it to CHIPS")
    return bad.items


def main() -> int:
    here = Path(__file__).resolve().parent
    root = here.parent.parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k8s", type=Path, default=root / "deploy" / "k8s")
    ap.add_argument("--images", type=Path, default=root / "deploy" / "images")
    a = ap.parse_args()
    problems = run(a.k8s, a.images)
    for p in problems:
        print(f"FAIL {p}")
    n_overlays = len(CHIPS) + sum(len(w["frameworks"]) for w in CHIPS.values()) + 3
    print(f"deploy manifests: {n_overlays} kustomizations rendered and validated against "
          f"Kubernetes {KUBERNETES_VERSION}; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
