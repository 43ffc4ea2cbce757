"""Rendering: agent steps, answers, errors, tables, media, attachments and the side panel as
chat messages and text; exports of a conversation. Pure functions, no gradio.

May import: agents.errors, agents.executors, agents.loop, agents.memory, agents.models,
agents.small_model, smolui.uploads, tools.agent_types.
"""
