"""The agent from outside the page: an OpenAI-compatible `/v1` and an MCP server.

Both run turns through the page's turn path (`smolui.turns`: sign-in, per-user limits, the
queue; the conversation store), as the user of an API key (`smolui.auth.keys`), or, with
sign-in off and no key made yet, for loopback callers only.

May import: agents, tools, smolui.turns, smolui.conversations, smolui.sessions, smolui.auth,
smolui.render, smolui.store, smolui.uploads, smolui.observability.
"""
