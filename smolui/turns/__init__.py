"""One chat turn from the message to the end: admission (sign-in, limits, the queue), the
request the agent gets, the run in a server thread, the live chat any page can follow, Retry
after Stop and messages shown but not started.

May import: agents.errors, agents.events, agents.loop, agents.memory, agents.models,
agents.observability, smolui.approvals, smolui.auth, smolui.observability, smolui.render,
smolui.sessions, smolui.store, smolui.uploads.
"""
