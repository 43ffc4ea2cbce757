"""Two replicas of `python app.py` on one real PostgreSQL behind HAProxy (deploy/haproxy.cfg):
a conversation goes on after the replica it sticks to is killed, between turns and mid-turn,
and the stored conversation keeps every message.

Driven through `/v1` with the real `openai` client, whose HTTP client keeps HAProxy's cookie
as a browser does. The replicas run a scripted model read from a JSON file, replaying its
replies in order in each conversation (its agent's own copy of the script): a quick answer,
then one that holds its turn open for an hour (so a test can kill the replica while it runs).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from smolui.api.access import LOCAL_OWNER
from smolui.conversations.interrupted import INTERRUPTED_NOTE
from smolui.store import open_store
from tests.deploy import fleet as fleet_helpers
from tests.deploy.fleet import ANSWER, Client, Fleet, missing_haproxy, write_script
from tests.smolui.stale_turn import age_running_state
from tests.waiting import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture
def fleet(postgres_server, tmp_path: Path) -> Iterator[Fleet]:
    reason = missing_haproxy()
    if reason:
        pytest.skip(reason)
    script = write_script(tmp_path / "replies.json")
    running = Fleet(tmp_path, postgres_server.create_database(), f"scripted:{script}")
    try:
        yield running.start()
    finally:
        running.stop()


@pytest.fixture
def store(fleet: Fleet, tmp_path: Path):
    opened = open_store(tmp_path / "reader", fleet.database_url)
    yield opened
    opened.close()


def users_said(store, conversation_id: str) -> list[str]:
    return fleet_helpers.users_said(store, LOCAL_OWNER, conversation_id)


def answers(store, conversation_id: str) -> list[str]:
    return fleet_helpers.answers(store, LOCAL_OWNER, conversation_id, ANSWER)


def test_a_conversation_goes_on_after_its_replica_is_killed_between_turns(fleet, store):
    client = Client(fleet.url)
    answer, conversation = client.say("Remember the greenhouse: 412 kg.")
    first = client.replica
    assert answer == "Noted." and first in fleet.replicas
    fleet.replicas[first].kill()  # sticky cookie still names it: HAProxy must redispatch
    answer, again = client.say("And bay four: 380 kg.", conversation)
    assert (answer, again) == ("Noted.", conversation)
    assert client.replica not in (None, first)  # the cookie now names the survivor
    assert users_said(store, conversation) == [
        "Remember the greenhouse: 412 kg.", "And bay four: 380 kg."
    ]  # fmt: skip
    assert len(answers(store, conversation)) == 2


def test_a_conversation_goes_on_after_its_replica_is_killed_mid_turn(fleet, store):
    client = Client(fleet.url)
    _, conversation = client.say("Remember the greenhouse: 412 kg.")
    first = client.replica
    errors: list[Exception] = []
    turn = threading.Thread(target=client.stream, args=("Now add bay four.", conversation, errors))
    turn.start()  # the replica's second model call holds this turn open
    wait_for(lambda: (store.get(LOCAL_OWNER, conversation).turn_state == "running"
                      and "Now add bay four." in users_said(store, conversation)),
             "the second turn never started (its message kept, state running)")  # fmt: skip
    fleet.replicas[first].kill()
    turn.join(timeout=60)
    assert not turn.is_alive() and errors, "the stream should break when its replica dies"
    age_running_state(store, conversation)  # the fleet's wait for a silent turn, passed
    answer, again = client.say("Are you still there?", conversation)
    assert (answer, again) == ("Noted.", conversation)
    assert client.replica not in (None, first)
    assert users_said(store, conversation) == [
        "Remember the greenhouse: 412 kg.", "Now add bay four.", "Are you still there?"
    ]  # fmt: skip
    assert len(answers(store, conversation)) == 2
    said = [m.get("content") for m in store.get(LOCAL_OWNER, conversation).messages]
    notes = [i for i, text in enumerate(said) if INTERRUPTED_NOTE in str(text)]
    assert len(notes) == 1  # marked once, between the killed question and the next one
    assert said.index("Now add bay four.") < notes[0] < said.index("Are you still there?")
