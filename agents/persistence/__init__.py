"""Saving and loading agents: to and from a dict, a folder, a Hub Space, and folders saved by
smolagents. Sits above the loop: it builds agents of `agents.loop`.

May import: agents.errors, agents.executors, agents.loop, agents.models, agents.prompts, tools.
"""
