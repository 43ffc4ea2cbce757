"""What the page's events do: the chat handlers (send, stop, clear, retry, follow), the
conversation handlers (list, switch, search, rename, delete) and the per-message actions.
Plain values in and out; `smolui.ui` adapts them to gradio.

May import: smolui.auth, smolui.conversations, smolui.observability, smolui.render,
smolui.sessions, smolui.store, smolui.turns.
"""
