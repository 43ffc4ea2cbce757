"""Live conversations and the store: saving after turns, resuming anywhere, memory snapshots,
retention, and transcripts made safe to show again.

May import: agents.loop, agents.memory, smolui.render, smolui.sessions, smolui.store,
smolui.uploads.
"""
