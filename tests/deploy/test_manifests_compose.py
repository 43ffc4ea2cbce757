"""deploy/compose.yaml and deploy/haproxy.cfg, checked offline.

The compose file against the compose-spec JSON schema (the copy `check-jsonschema` ships,
Apache-2.0, from github.com/compose-spec/compose-spec); the HAProxy config with `haproxy -c`;
and the two agree on the replicas' names, their port and the health check's path; the code
gateway sits on an internal network with the replicas alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
import yaml

from tests.deploy.fleet import HAPROXY_CFG, ROOT, missing_haproxy

COMPOSE = ROOT / "deploy" / "compose.yaml"


def compose_schema() -> dict:
    found = resources.files("check_jsonschema") / "builtin_schemas/vendor/compose-spec.json"
    return json.loads(found.read_text(encoding="utf-8"))


def problems(document: dict) -> list[str]:
    """Every place `document` breaks the compose-spec schema, as readable lines."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(compose_schema())
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
            for e in validator.iter_errors(document)]  # fmt: skip


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))


def test_the_compose_file_follows_the_compose_spec(compose):
    assert problems(compose) == []


def test_the_schema_check_catches_a_mistake(compose):
    broken = json.loads(json.dumps(compose))  # a deep copy
    broken["services"]["app1"]["restart_policy"] = "always"  # a key compose does not know
    broken["services"]["haproxy"]["ports"] = "7860:7860"  # a list, not a string
    found = problems(broken)
    assert any("services/app1" in line and "restart_policy" in line for line in found), found
    assert any(line.startswith("services/haproxy/ports") for line in found), found


def test_two_replicas_share_one_database_and_one_data_volume(compose):
    apps = {name: s for name, s in compose["services"].items() if name.startswith("app")}
    assert sorted(apps) == ["app1", "app2"]
    for service in apps.values():
        assert service["environment"]["SMOLUI_DATABASE_URL"].startswith("postgresql+psycopg://")
        assert "@postgres:5432/" in service["environment"]["SMOLUI_DATABASE_URL"]
        assert "data:/home/user/app/data" in service["volumes"]
        assert service["user"] == "1000"
    assert set(compose["volumes"]) == {"data", "pgdata"}


def test_the_code_gateway_shares_a_network_with_no_way_out_with_the_replicas_only(compose):
    services = compose["services"]
    on_it = sorted(name for name, s in services.items() if "kernels" in s.get("networks", ()))
    assert on_it == ["app1", "app2", "kernels"]
    assert compose["networks"]["kernels"]["internal"] is True
    kernels = services["kernels"]
    assert list(kernels["networks"]) == ["kernels"]  # not on the default network
    assert "ports" not in kernels and "expose" not in kernels
    assert kernels["user"].split(":")[0] not in ("0", "root")
    assert kernels["image"] == services["app1"]["image"]  # the app image holds the gateway
    assert kernels["command"][:2] == ["jupyter", "kernelgateway"]
    # The replicas find it by the address it is given there (podman: no DNS on it).
    address = kernels["networks"]["kernels"]["ipv4_address"]
    for name in ("app1", "app2"):
        environment = services[name]["environment"]
        assert environment["SMOLUI_EXECUTOR"] == "jupyter"
        assert environment["SMOLUI_EXECUTOR_URL"] == "http://kernels:8888"
        assert services[name]["extra_hosts"] == [f"kernels:{address}"]
        assert services[name]["depends_on"]["kernels"] == {"condition": "service_started"}


def test_haproxy_fronts_the_compose_replicas_on_their_port(compose):
    config = HAPROXY_CFG.read_text(encoding="utf-8")
    for name in ("app1", "app2"):
        assert f"{name}:7860" in config  # haproxy.cfg's default addresses are compose's
        assert "7860" in compose["services"][name]["expose"]
    assert "option httpchk GET /readyz" in config
    assert "cookie SMOLUI_REPLICA insert" in config


def test_every_image_is_built_here_from_one_debian_base(compose):
    """No image comes from a registry: PostgreSQL and HAProxy are built from Debian packages
    (deploy/images/), the app from the Dockerfile, all on BASE_IMAGE."""
    deploy = COMPOSE.parent
    for name, service in compose["services"].items():
        build = service["build"]
        assert "BASE_IMAGE" in build["args"], name
        containerfile = (deploy / build["context"] / build["dockerfile"]).resolve()
        assert containerfile.is_file(), f"{name}: {containerfile}"
        assert "FROM ${BASE_IMAGE}" in containerfile.read_text(encoding="utf-8"), name
    haproxy = compose["services"]["haproxy"]["build"]
    containerfile = (deploy / haproxy["context"] / haproxy["dockerfile"]).read_text()
    assert "COPY haproxy.cfg /etc/haproxy/haproxy.cfg" in containerfile
    assert (deploy / haproxy["context"] / "haproxy.cfg").resolve() == HAPROXY_CFG


def test_the_postgres_image_makes_its_cluster_from_the_environment():
    entrypoint = (COMPOSE.parent / "images" / "postgres" / "entrypoint.sh").read_text()
    for variable in ("POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB", "PGDATA"):
        assert variable in entrypoint
    assert "listen_addresses='*'" in entrypoint
    assert "scram-sha-256" in entrypoint
    checked = subprocess.run(["sh", "-n", str(COMPOSE.parent / "images/postgres/entrypoint.sh")],
                             capture_output=True, text=True, timeout=60)  # fmt: skip
    assert checked.returncode == 0, checked.stderr


def test_haproxy_accepts_the_config():
    reason = missing_haproxy()
    if reason:
        pytest.skip(reason)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMOLUI_")}
    checked = subprocess.run(["haproxy", "-c", "-f", str(HAPROXY_CFG)], env=env,
                             capture_output=True, text=True, timeout=60)  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Configuration file is valid" in checked.stdout + checked.stderr


def test_haproxy_refuses_a_broken_config(tmp_path: Path):
    reason = missing_haproxy()
    if reason:
        pytest.skip(reason)
    broken = tmp_path / "haproxy.cfg"
    broken.write_text(HAPROXY_CFG.read_text().replace("balance roundrobin", "balance nowhere"))
    checked = subprocess.run(["haproxy", "-c", "-f", str(broken)],
                             capture_output=True, text=True, timeout=60)  # fmt: skip
    assert checked.returncode != 0


def render(env: dict[str, str]) -> subprocess.CompletedProcess:
    """`podman-compose config`: the file as compose reads it, variables filled in (offline).
    An empty env file stands in for a deploy/.env someone may keep in their checkout."""
    pytest.importorskip("podman_compose", reason="podman-compose: pip install -r requirements.txt")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SMOLUI_")}
    return subprocess.run([sys.executable, "-m", "podman_compose", "-f", str(COMPOSE),
                           "--env-file", os.devnull, "config"],
                          env={**clean, **env}, capture_output=True, text=True, timeout=120,
                          cwd=COMPOSE.parent)  # fmt: skip


def test_compose_fills_in_the_database_password_and_the_model():
    rendered = render({"SMOLUI_DB_PASSWORD": "s3cret", "SMOLUI_MODEL": "scripted:demo",
                       "SMOLUI_KERNEL_TOKEN": "t0ken"})  # fmt: skip
    assert rendered.returncode == 0, rendered.stderr
    services = yaml.safe_load(rendered.stdout)["services"]
    url = "postgresql+psycopg://smolui:s3cret@postgres:5432/smolui"
    for name in ("app1", "app2"):
        assert services[name]["environment"]["SMOLUI_DATABASE_URL"] == url
        assert services[name]["environment"]["SMOLUI_MODEL"] == "scripted:demo"
    assert services["postgres"]["environment"]["POSTGRES_PASSWORD"] == "s3cret"


def test_compose_gives_the_gateway_and_the_replicas_one_token_and_one_address():
    rendered = render({"SMOLUI_DB_PASSWORD": "s3cret", "SMOLUI_KERNEL_TOKEN": "t0ken",
                       "SMOLUI_KERNELS_NET": "10.123.45"})  # fmt: skip
    assert rendered.returncode == 0, rendered.stderr
    document = yaml.safe_load(rendered.stdout)
    services = document["services"]
    assert services["kernels"]["environment"]["KG_AUTH_TOKEN"] == "t0ken"
    assert services["kernels"]["networks"]["kernels"]["ipv4_address"] == "10.123.45.10"
    for name in ("app1", "app2"):
        assert services[name]["environment"]["SMOLUI_EXECUTOR_TOKEN"] == "t0ken"
        assert services[name]["extra_hosts"] == ["kernels:10.123.45.10"]
    subnets = [c["subnet"] for c in document["networks"]["kernels"]["ipam"]["config"]]
    assert subnets == ["10.123.45.0/24"]


def test_compose_refuses_to_start_without_a_database_password():
    rendered = render({"SMOLUI_KERNEL_TOKEN": "t0ken"})
    assert rendered.returncode != 0
    assert "set SMOLUI_DB_PASSWORD in deploy/.env" in rendered.stderr


def test_compose_refuses_to_start_without_a_kernel_token():
    rendered = render({"SMOLUI_DB_PASSWORD": "s3cret"})
    assert rendered.returncode != 0
    assert "set SMOLUI_KERNEL_TOKEN in deploy/.env" in rendered.stderr
