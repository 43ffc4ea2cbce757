"""Live conversations: `Session` (one conversation: its agent, folders and turn claim) in
`smolui.sessions.session`, and `SessionRegistry` (every live conversation, by id, with
eviction) in `smolui.sessions.registry`; the agent factory it is given (`AgentLender`) in
`smolui.sessions.factories`; conversations brought back from the store (`Resumed`) in
`smolui.sessions.resumed`, and those evicted before their first turn remembered (bounded per
owner) in `smolui.sessions.released`; running turns are stopped and saved before their
conversations close at shutdown in `smolui.sessions.shutdown`.

May import: agents.loop, smolui.uploads.
"""

from smolui.sessions.factories import AgentLender
from smolui.sessions.registry import (
    ConversationUnavailableError,
    SessionCapacityError,
    SessionRegistry,
)
from smolui.sessions.resumed import Resumed
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
