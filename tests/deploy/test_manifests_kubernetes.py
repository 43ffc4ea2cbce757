"""deploy/kubernetes/, checked offline against the Kubernetes OpenAPI schemas (as JSON schemas,
shipped by `kubernetes-validate`), strictly: a misspelt field fails. The manifests were never
applied to a cluster (none runs here); these tests are what stands for that.
"""

from __future__ import annotations

import json

import pytest
import yaml

from tests.deploy.fleet import ROOT

FOLDER = ROOT / "deploy" / "kubernetes"
KUBERNETES = "1.30.0"  # an old enough release that most clusters in service accept it


def manifests() -> dict[str, dict]:
    """Each resource by kind, from every YAML file in the folder."""
    found: dict[str, dict] = {}
    for path in sorted(FOLDER.glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if document:
                found[document["kind"]] = document
    return found


def validate(document: dict) -> None:
    kubernetes_validate = pytest.importorskip(
        "kubernetes_validate", reason="kubernetes-validate: pip install -r requirements.txt"
    )
    kubernetes_validate.validate(document, KUBERNETES, strict=True)


@pytest.fixture(scope="module")
def resources() -> dict[str, dict]:
    return manifests()


def test_every_manifest_follows_the_kubernetes_schema(resources):
    assert set(resources) == {"Deployment", "Service", "PersistentVolumeClaim"}
    for document in resources.values():
        validate(document)


def test_the_schema_check_catches_a_misspelt_field(resources):
    kubernetes_validate = pytest.importorskip("kubernetes_validate")
    broken = json.loads(json.dumps(resources["Deployment"]))
    broken["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {}  # misspelt
    with pytest.raises(kubernetes_validate.ValidationError, match="readinesProbe"):
        validate(broken)
    broken = json.loads(json.dumps(resources["Deployment"]))
    broken["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        validate(broken)


def pod(resources) -> dict:
    return resources["Deployment"]["spec"]["template"]["spec"]


def test_two_replicas_checked_on_readyz_and_healthz(resources):
    assert resources["Deployment"]["spec"]["replicas"] == 2
    container = pod(resources)["containers"][0]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["ports"][0]["containerPort"] == 7860
    assert {"requests", "limits"} <= set(container["resources"])


def test_the_pod_runs_as_uid_1000_on_a_read_only_root(resources):
    spec = pod(resources)
    assert spec["securityContext"]["runAsUser"] == 1000
    assert spec["securityContext"]["runAsNonRoot"] is True
    container = spec["containers"][0]
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    mounted = {m["mountPath"] for m in container["volumeMounts"]}
    # Where the app writes: its data folder, gradio's and Hugging Face's caches, temp files.
    assert {"/home/user/app/data", "/home/user/.cache", "/tmp"} <= mounted


def test_the_database_url_comes_from_a_secret(resources):
    env = {e["name"]: e for e in pod(resources)["containers"][0]["env"]}
    source = env["SMOLUI_DATABASE_URL"]
    assert "value" not in source
    assert source["valueFrom"]["secretKeyRef"] == {"name": "smolui-database", "key": "url"}


def test_the_service_and_the_claim_match_the_deployment(resources):
    labels = resources["Deployment"]["spec"]["template"]["metadata"]["labels"]
    selector = resources["Service"]["spec"]["selector"]
    assert selector.items() <= labels.items()
    assert resources["Service"]["spec"]["ports"][0]["targetPort"] == "http"
    claims = [v["persistentVolumeClaim"]["claimName"] for v in pod(resources)["volumes"]
              if "persistentVolumeClaim" in v]  # fmt: skip
    assert claims == [resources["PersistentVolumeClaim"]["metadata"]["name"]]
