"""The small-model mode: what makes a tiny local model (the bundled SmolLM2-135M) a usable
agent: its prompt transcript, worked examples, a tool-call grammar, drafts and a vote.

May import: agents.errors, agents.executors, agents.loop, agents.memory, agents.models.
"""
