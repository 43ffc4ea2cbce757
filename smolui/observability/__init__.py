"""Running the app in public: Prometheus metrics, health routes, and the server that mounts
the gradio app next to them (`/healthz`, `/readyz`, `/metrics`). Traces live in the agent
core (`agents.observability.tracing`).

May import: agents.memory, smolui.sessions, smolui.store.
"""
