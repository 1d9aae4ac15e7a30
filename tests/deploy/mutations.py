"""Proves check_manifests.py catches real mistakes: each mutation below breaks
a copy of deploy/k8s (and deploy/images' variant list and pins) the way a
person could, and the check must then report the problem named beside it.
Exit 0 when every mutation is caught; 1 naming each one that slipped through.
Run by tests/deploy/manifests.sh --mutations (CTest: deploy_manifests_mutations).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import check_manifests

# (file under the copy's k8s/ or images/, text, replacement, what the check must say)
MUTATIONS = [
    ("k8s/components/nvidia-h100/deployment-patch.yaml", 'nvidia.com/gpu: "1"', 'cpu: "1"',
     "extended resources in requests are {}"),
    ("k8s/components/amd-mi300x/deployment-patch.yaml", "amd.com/gpu:", "nvidia.com/gpu:",
     "extended resources in requests are {'nvidia.com/gpu'"),
    ("k8s/components/google-tpu-v5e/deployment-patch.yaml", '        cloud.google.com/gke-tpu-topology: "2x2"\n', "",
     "selects no nodes by cloud.google.com/gke-tpu-topology"),
    ("k8s/components/nvidia-a100/deployment-patch.yaml", "NVIDIA-A100-SXM4-80GB", "NVIDIA-A10",
     "selects no nodes by nvidia.com/gpu.product"),
    ("k8s/components/nvidia-h100/deployment-patch.yaml", "        - key: nvidia.com/gpu\n", "        - key: gpu\n",
     "does not tolerate the nvidia.com/gpu taint"),
    ("k8s/components/cpu-arm64/deployment-patch.yaml", 'kubernetes.io/arch: "arm64"', 'kubernetes.io/arch: "amd64"',
     "kubernetes.io/arch is amd64, expected arm64"),
    ("k8s/overlays/amd-mi300x/torch/kustomization.yaml", "newTag: torch-rocm-", "newTag: torch-cuda-",
     "image tag torch-cuda-current-amd64, expected torch-rocm-current-amd64"),
    ("k8s/overlays/google-tpu-v5e/jax/kustomization.yaml", "value: --framework=jax", "value: --framework=tensorflow",
     "serves --framework=tensorflow, expected jax"),
    ("images/variants.txt", "tensorflow-tpu    amd64         -  ", "tensorflow-tpu    amd64         unsupported  ",
     "variant tensorflow-tpu has no current build"),
    ("k8s/base/deployment.yaml", "path: /readyz", "path: /healthz",
     "readinessProbe checks /healthz, expected /readyz"),
    ("k8s/base/deployment.yaml", "            - --port=8080", "            - --port=9090",
     "server port 9090 and containerPort 8080"),
    ("k8s/base/deployment.yaml", "containerPort: 8080", "containerPort: eighty",
     "fails the Kubernetes 1.32.0 schema"),
    ("k8s/base/deployment.yaml", "              key: token", "              key: tokn",
     "MUDJACK_TOKEN must come from Secret mudjack-token key token"),
    ("k8s/base/mudjack.toml", 'profile = "current"', 'profile = "paper-2023"',
     "mudjack.toml says profile paper-2023, but the image is"),
    ("k8s/base/service.yaml", "  ports:\n", "  ports\n",
     "kubectl kustomize failed"),
    ("k8s/overlays/nvidia-a100/jax/kustomization.yaml", "resources:\n  - ../../../base\n",
     "configMapGenerator:\n  - name: extra\n    literals:\n      - a=b\nresources:\n  - ../../../base\n",
     "resources ['ConfigMap', 'ConfigMap', 'Deployment', 'Service'] differ from the base's"),
    ("k8s/overlays/nvidia-h100/jax/kustomization.yaml", "      mudjack.dev/framework: jax\n", "      mudjack.dev/app: jax\n",
     "deploys frameworks ['?', 'tensorflow', 'torch'], expected ['jax', 'tensorflow', 'torch']"),
    ("k8s/overlays/cpu-amd64/numpy/kustomization.yaml", "patches:\n",
     "patches:\n  - target:\n      kind: Deployment\n    patch: |-\n      - op: add\n        path: /spec/template/spec/serviceAccountName\n        value: admin\n",
     "Deployment adds pod fields the base lacks: ['serviceAccountName']"),
    ("k8s/overlays/cpu-amd64/jax/kustomization.yaml", "mudjack.dev/framework: jax", "mudjack.dev/framework: torch",
     "selects 2 Deployments"),
    ("k8s/overlays/local/deployment-patch.yaml", "hostNetwork: true", "hostNetwork: false",
     "the local overlay must use the host network"),
    ("k8s/overlays/local/kustomization.yaml", "--host=127.0.0.1", "--host=0.0.0.0",
     "server binds 0.0.0.0, expected 127.0.0.1"),
    ("k8s/overlays/local/kustomization.yaml", "readinessProbe/httpGet/port\n        value: 8080",
     "readinessProbe/httpGet/port\n        value: 8081", "readinessProbe port 8081 is not the server's port"),
    ("k8s/overlays/google-tpu-v5e/torch/mudjack.toml", 'profile = "xla"', 'profile = "current"',
     "mudjack.toml says profile current, but the image is torch-tpu-xla-amd64"),
    ("k8s/overlays/google-tpu-v5e/torch/mudjack.toml", "budget_ms = 100", "budget_ms = 5",
     "mudjack.toml differs from the base's in more than its profile"),
    ("k8s/overlays/google-tpu-v5e/torch/kustomization.yaml", "newTag: torch-tpu-xla-", "newTag: torch-tpu-current-",
     "image tag torch-tpu-current-amd64, expected torch-tpu-xla-amd64"),
    ("images/variants.txt", "unsupported                   -\n", "unsupported                   unsupported\n",
     "variant torch-tpu has no xla build"),
    ("k8s/overlays/nvidia-h100/tensorflow/kustomization.yaml", "newTag: tensorflow-cuda-", "newTag: tensorflow-cpu-",
     "image tag tensorflow-cpu-current-amd64, expected tensorflow-cuda-current-amd64"),
    ("k8s/overlays/google-tpu-v5e/kustomization.yaml", "  - torch\n", "",
     "deploys frameworks ['jax', 'tensorflow'], expected ['jax', 'tensorflow', 'torch']"),
    ("k8s/sweep/targets.toml", 'url = "http://h100-torch-mudjack:8080"', 'url = "http://h100-pytorch-mudjack:8080"',
     "is no Service of the chip overlays"),
    ("k8s/sweep/job.yaml", "            - --out=/results/", "            - --out=/tmp/results/",
     "--out=/tmp/results/$(MUDJACK_SWEEP_ID) is not on a mounted PersistentVolumeClaim"),
]


def main() -> int:
    root = Path(__file__).resolve().parent.parent.parent
    missed = []
    with tempfile.TemporaryDirectory(prefix="mudjack-mutations-") as tmp:
        for i, (rel, old, new, expect) in enumerate(MUTATIONS):
            work = Path(tmp) / str(i)
            shutil.copytree(root / "deploy" / "k8s", work / "k8s")
            shutil.copytree(root / "deploy" / "images", work / "images")
            target = work / rel
            text = target.read_text()
            if old not in text:
                missed.append(f"{rel}: the text to mutate is gone ({old.strip()!r}); update this test")
                continue
            target.write_text(text.replace(old, new, 1))
            problems = check_manifests.run(work / "k8s", work / "images")
            if not any(expect in p for p in problems):
                missed.append(f"{rel}: {old.strip()!r} -> {new.strip()!r} not caught as {expect!r}; "
                              f"got {problems}")
            else:
                print(f"caught  {rel}: {old.strip()[:40]!r} -> {new.strip()[:40]!r}")
    for m in missed:
        print(f"FAIL {m}")
    print(f"deploy manifest mutations: {len(MUTATIONS) - len(missed)} of {len(MUTATIONS)} caught")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
