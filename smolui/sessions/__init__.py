"""Live conversations: `Session` (one conversation: its agent, folders and turn claim) in
`smolui.sessions.session`, and `SessionRegistry` (every live conversation, by id, with
eviction) in `smolui.sessions.registry`; conversations evicted before their first turn are
remembered (bounded per owner) in `smolui.sessions.released`; running turns are stopped and
saved before their conversations close at shutdown in `smolui.sessions.shutdown`.

May import: agents.loop, smolui.uploads.
"""

from smolui.sessions.registry import (
    AgentLender,
    ConversationUnavailableError,
    Resumed,
    SessionCapacityError,
    SessionRegistry,
)
from smolui.sessions.session import Session, is_conversation_id, new_conversation_id

__all__ = [
    "AgentLender",
    "ConversationUnavailableError",
    "Resumed",
    "Session",
    "SessionCapacityError",
    "SessionRegistry",
    "is_conversation_id",
    "new_conversation_id",
]
