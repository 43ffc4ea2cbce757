# smolui as a Hugging Face Docker Space (or any container host).
#   docker build -t smolui . && docker run -p 7860:7860 -e HF_TOKEN smolui
# Spaces run the container as uid 1000 and route traffic to port 7860.
FROM python:3.11-slim

# Compilers for llama-cpp-python (built from source once, ~8 min); the install script adds
# libseccomp for the sandbox itself. No browser: Chromium is only needed by the tests.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends build-essential cmake \
 && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 1000 user
WORKDIR /home/user/app

# Dependencies first, through the same script CI uses, so this layer is cached across code changes.
COPY --chown=user requirements.txt ./
COPY --chown=user scripts/install.sh ./scripts/install.sh
RUN bash scripts/install.sh && rm -rf /root/.cache/pip

COPY --chown=user . .

# Writable places for uid 1000: the data folder (conversation database, uploads, images the
# agent made), gradio's file cache, the Hugging Face cache. Spaces' disk is ephemeral: mount
# persistent storage on data/ to keep conversations and their files across restarts.
ENV HOME=/home/user \
    PYTHONUNBUFFERED=1 \
    GRADIO_SERVER_NAME=0.0.0.0 \
    GRADIO_SERVER_PORT=7860 \
    GRADIO_ANALYTICS_ENABLED=False \
    GRADIO_TEMP_DIR=/home/user/.cache/gradio \
    HF_HOME=/home/user/.cache/huggingface \
    SMOLUI_DATA_DIR=/home/user/app/data
RUN mkdir -p data "$GRADIO_TEMP_DIR" "$HF_HOME" && chown -R user:user /home/user

USER user
EXPOSE 7860
# Secrets (HF_TOKEN, OPENAI_API_KEY, ...) come from the Space's settings as environment
# variables; choose the model with SMOLUI_MODEL (default: the offline SmolLM2).
# /healthz answers while the server is up (see README, "Running it in public").
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:7860/healthz', timeout=4)"
CMD ["python", "app.py"]
