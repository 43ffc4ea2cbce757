"""Watching a run: the tracing seam and its OpenTelemetry implementation (GenAI conventions,
tool spans), the console logger, smolagents' monitoring names, memory replay and the agent tree.

May import: agents.errors, agents.events, agents.memory, agents.models.
"""
