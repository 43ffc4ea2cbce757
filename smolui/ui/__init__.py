"""The page: the gradio layout, its theme, the controls and the event wiring that connects
components to handlers. The only smolui package besides `app` that builds gradio components.

May import: smolui.approvals, smolui.auth, smolui.handlers, smolui.render, smolui.sessions, smolui.turns.pending.
"""
