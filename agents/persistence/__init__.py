"""Saving and loading agents: to and from a dict, a folder, a Hub Space, and folders saved by
smolagents. Sits above the loop: it reads an agent through its public methods (`saved_settings`,
`model.to_dict`) and builds agents by their public names in `agents`; the agent's own
`save`/`to_dict`/... (`agents.loop.persistence_api`) are thin layers over it.

May import: agents.errors, agents.executors, agents.models, tools.
"""
