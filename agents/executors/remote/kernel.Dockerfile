# The kernel image for executor_type="docker": Python, ipykernel, the Jupyter Kernel Gateway
# and the scientific stack, run as the non-root user "kernel". DockerExecutor builds it on
# first use (tag smolui-kernel:<hash of this file, kernel_serve.py and the base>) and runs
#   python /opt/kernel/serve.py /run/smolui/gateway.sock
# with no network, a read-only root and a tmpfs home; the default command below serves on a
# TCP port instead (`jupyter kernelgateway`), for DockerExecutor(network="bridge").
#
# BASE_IMAGE: any Debian-like image; Python is installed with apt when it has none (the
# tests pass localhost/debian:bookworm, made with debootstrap: no registry is reachable).
# PIP_CERT: a CA bundle for pip, for networks that re-sign TLS; DockerExecutor(pip_cert=...)
# copies it into build-ca/ of the build context (the Docker API has no build-time mounts).
# Certificates are public: the copy is deleted from the final tree but stays in a layer.
ARG BASE_IMAGE=python:3.11-slim
FROM ${BASE_IMAGE}
ARG PIP_CERT=
COPY build-ca/ /tmp/build-ca/
RUN set -eu; \
    if ! python3 -c "import venv, ensurepip" 2>/dev/null; then \
        apt-get update; \
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
            python3 python3-venv; \
        rm -rf /var/lib/apt/lists/*; \
    fi; \
    python3 -m venv /opt/kernel; \
    /opt/kernel/bin/pip install --no-cache-dir --disable-pip-version-check \
        ${PIP_CERT:+--cert "$PIP_CERT"} \
        "jupyter_kernel_gateway>=3.0,<4" "ipykernel>=6.29" \
        numpy pandas matplotlib pillow openpyxl; \
    rm -rf /tmp/build-ca; \
    useradd --uid 1000 --no-create-home --home-dir /home/kernel kernel
COPY kernel_serve.py /opt/kernel/serve.py

ENV PATH=/opt/kernel/bin:$PATH \
    MPLBACKEND=module://matplotlib_inline.backend_inline \
    PYTHONDONTWRITEBYTECODE=1
# The home is not in the image: the container mounts a tmpfs there (mode 1777). Engines
# give a tmpfs over an existing folder that folder's owner and mode (podman: root, 0755).
USER kernel
EXPOSE 8888
CMD ["jupyter", "kernelgateway", "--ip=0.0.0.0", "--port=8888", "--port_retries=0"]
