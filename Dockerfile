# smolui as a Hugging Face Docker Space (or any container host).
#   docker build -t smolui . && docker run -p 7860:7860 -v smolui-data:/home/user/app/data smolui
# Spaces run the container as uid 1000 and route traffic to port 7860.
#
# Build arguments (all optional):
#   BASE_IMAGE   the image to start from: any Debian-like image; Python 3.11 is installed with
#                apt when it has none. Where no registry is reachable, build a Debian base with
#                debootstrap (README, "Container image"; the tests use localhost/debian:bookworm).
#   PIP_CERT     a CA bundle for pip where TLS is re-signed by a proxy: a path inside the build,
#                mounted there, e.g. podman build -v /etc/ssl/certs/ca-certificates.crt:/ca.crt:ro
#                --build-arg PIP_CERT=/ca.crt
#   TORCH_INDEX  where the CPU build of torch comes from (PyPI's torch pulls GBs of CUDA);
#                empty to take torch from PyPI or from WHEELS
#   WHEELS       a folder of wheels mounted into the build, tried before the indexes
ARG BASE_IMAGE=python:3.11-slim

# What both stages need: Python with venv, CA certificates, OpenMP (llama.cpp uses it).
FROM ${BASE_IMAGE} AS python
RUN set -eu; \
    missing=""; \
    python3 -c "import venv, ensurepip" 2>/dev/null || missing="python3 python3-venv"; \
    ldconfig -p | grep -q libgomp.so.1 || missing="$missing libgomp1"; \
    ldconfig -p | grep -q libseccomp.so.2 || missing="$missing libseccomp2"; \
    [ -e /etc/ssl/certs/ca-certificates.crt ] || missing="$missing ca-certificates"; \
    if [ -n "$missing" ]; then \
        apt-get update; \
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing; \
        rm -rf /var/lib/apt/lists/*; \
    fi

# The dependencies, in a venv copied whole into the app stage: the compilers stay here.
FROM python AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends build-essential cmake \
 && rm -rf /var/lib/apt/lists/*
ARG PIP_CERT=
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
ARG WHEELS=
COPY requirements.txt /tmp/requirements.txt
# llama-cpp-python compiles llama.cpp (about 8 minutes on 2 cores). Portable, as in
# scripts/install.sh: never the build machine's own instruction sets (-DGGML_NATIVE=OFF).
# pip's cache is a build cache mount: when requirements.txt changes, the compiled wheel is
# reused and only what changed is fetched.
RUN --mount=type=cache,target=/root/.cache/pip set -eu; \
    python3 -m venv /opt/venv; \
    CMAKE_ARGS="-DGGML_NATIVE=OFF" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    /opt/venv/bin/pip install --disable-pip-version-check --progress-bar off \
        ${PIP_CERT:+--cert "$PIP_CERT"} ${WHEELS:+--find-links "$WHEELS"} \
        ${TORCH_INDEX:+--extra-index-url "$TORCH_INDEX"} \
        -r /tmp/requirements.txt

FROM python AS app
# Writable places for uid 1000: the data folder (conversation database, uploads, images the
# agent made), gradio's file cache, the Hugging Face cache. Keep data/ on a volume (or a
# Space's persistent storage) to keep conversations and their files across restarts.
ENV PATH=/opt/venv/bin:$PATH \
    HOME=/home/user \
    PYTHONUNBUFFERED=1 \
    GRADIO_SERVER_NAME=0.0.0.0 \
    GRADIO_SERVER_PORT=7860 \
    GRADIO_ANALYTICS_ENABLED=False \
    GRADIO_TEMP_DIR=/home/user/.cache/gradio \
    HF_HOME=/home/user/.cache/huggingface \
    SMOLUI_DATA_DIR=/home/user/app/data
RUN useradd --create-home --uid 1000 user \
 && mkdir -p "$SMOLUI_DATA_DIR" "$GRADIO_TEMP_DIR" "$HF_HOME" && chown -R user:user /home/user
COPY --from=build /opt/venv /opt/venv
WORKDIR /home/user/app
# The code last: a change to it rebuilds only this layer.
COPY --chown=user . .

USER 1000
EXPOSE 7860
VOLUME ["/home/user/app/data"]
# Secrets (HF_TOKEN, OPENAI_API_KEY, ...) come from the environment (a Space's settings);
# SMOLUI_MODEL picks the model (default: the offline SmolLM2, inside the image).
# /readyz answers 200 once the store is open and the model loaded (README, "Running it in
# public"). podman keeps HEALTHCHECK only in Docker-format images: build with --format docker.
HEALTHCHECK --interval=30s --timeout=5s --start-period=180s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:7860/readyz', timeout=4)"
# The app stops gracefully on SIGINT (Ctrl+C) and on SIGTERM alike: running turns stop at
# their step boundary and are saved (up to about 12 s), then the store closes. SIGINT stays
# the stop signal; give `docker stop` more than its default 10 s (-t 20) not to cut that short.
STOPSIGNAL SIGINT
CMD ["python", "app.py"]
