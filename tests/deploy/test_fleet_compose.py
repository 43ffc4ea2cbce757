"""deploy/compose.yaml brought up for real: `docker-compose up` on podman's Docker API builds
PostgreSQL's and HAProxy's images from Debian packages, runs two app replicas (the app image
on the same Debian base) on that PostgreSQL behind that HAProxy, and `down -v` leaves nothing.

Driven through the balancer's `/v1` with the real `openai` client (HAProxy's cookie kept as a
browser keeps it) and an API key made inside a replica, as the README says. The replicas
answer from a scripted model (tests/deploy/fleet.py: a quick answer, then one that holds its
turn open), so a test can stop or kill a replica while a turn runs. The test reads what was
stored from the fleet's own PostgreSQL, published on a loopback port.

Each test brings up its own compose project (a fresh database, fresh script positions).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from smolui.conversations.interrupted import INTERRUPTED_NOTE
from smolui.conversations.keeper import RESUME_NOTE_FOR_MODEL
from smolui.store import open_store
from tests.containers import app_image, podman_service  # noqa: F401
from tests.deploy.compose_fleet import SERVICES, TURNS_PER_HOUR, ComposeFleet, missing_compose
from tests.deploy.fleet import ANSWER, COOKIE, Client, answers, users_said, write_script
from tests.smolui.stale_turn import age_running_state
from tests.waiting import wait_for

# The first app image build on a machine compiles llama.cpp; later ones reuse podman's cache.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]


@pytest.fixture(scope="module")
def image() -> str:
    reason = missing_compose()
    if reason:
        pytest.skip(reason)
    return app_image()


@pytest.fixture
def fleet(podman_service, image: str, tmp_path: Path) -> Iterator[ComposeFleet]:  # noqa: F811
    script = write_script(tmp_path / "replies.json")
    running = ComposeFleet(tmp_path, podman_service.url, image, script)
    try:
        running.build_images()
        yield running.up()
    finally:
        running.down()
        assert running.leftovers() == {}, f"left behind by {running.project}"


@pytest.fixture
def store(fleet: ComposeFleet, tmp_path: Path):
    opened = open_store(tmp_path / "reader", fleet.database_url)
    yield opened
    opened.close()


def signed_in(fleet: ComposeFleet, user: str, replica: str | None = None) -> Client:
    """A `/v1` client with a fresh key for `user`; stuck to `replica` when given."""
    client = Client(fleet.url, fleet.add_key(user))
    if replica is not None:
        client.http.cookies.set(COOKIE, replica)
    return client


def test_a_conversation_goes_on_after_its_replica_is_stopped(fleet, store):
    client = signed_in(fleet, "alice")
    answer, conversation = client.say("Remember the greenhouse: 412 kg.")
    first = client.replica
    assert answer == ANSWER and first in SERVICES
    fleet.stop(first)  # graceful, as a drain or a rolling update: the cookie still names it
    fleet.wait_status(first, "DOWN")
    answer, again = client.say("And bay four: 380 kg.", conversation)
    assert (answer, again) == (ANSWER, conversation)
    assert client.replica not in (None, first)  # the survivor resumed it and took the cookie
    owner = store.owner_of(conversation)
    assert owner == "api:alice"
    assert users_said(store, owner, conversation) == [
        "Remember the greenhouse: 412 kg.", "And bay four: 380 kg."
    ]  # fmt: skip
    assert len(answers(store, owner, conversation, ANSWER)) == 2
    # Resumed from PostgreSQL: the model was told, in one line, that earlier variables are gone.
    memory = json.dumps(store.get(owner, conversation).memory)
    assert memory.count(RESUME_NOTE_FOR_MODEL) == 1


def test_a_replica_killed_mid_turn_leaves_the_users_message_saved(fleet, store):
    client = signed_in(fleet, "bob")
    _, conversation = client.say("Remember the greenhouse: 412 kg.")
    first, owner = client.replica, store.owner_of(conversation)
    errors: list[Exception] = []
    turn = threading.Thread(target=client.stream, args=("Now add bay four.", conversation, errors))
    turn.start()  # the replica's second model call holds this turn open
    wait_for(lambda: (store.get(owner, conversation).turn_state == "running"
                      and "Now add bay four." in users_said(store, owner, conversation)),
             "the second turn never started (its message kept, state running)")  # fmt: skip
    fleet.kill(first)
    turn.join(timeout=120)
    assert not turn.is_alive() and errors, "the stream should break when its replica dies"
    age_running_state(store, conversation)  # the fleet's wait for a silent turn, passed
    answer, again = client.say("Are you still there?", conversation)
    assert (answer, again) == (ANSWER, conversation)
    assert users_said(store, owner, conversation) == [
        "Remember the greenhouse: 412 kg.", "Now add bay four.", "Are you still there?"
    ]  # fmt: skip
    said = [str(m.get("content")) for m in store.get(owner, conversation).messages]
    notes = [i for i, text in enumerate(said) if INTERRUPTED_NOTE in text]
    assert len(notes) == 1  # marked once, between the killed question and the next one
    assert said.index("Now add bay four.") < notes[0] < said.index("Are you still there?")


def test_the_hourly_turn_limit_holds_for_turns_racing_on_both_replicas(fleet):
    from openai import RateLimitError

    clients = {name: signed_in(fleet, "carol", name) for name in SERVICES}
    for used, name in enumerate(SERVICES, start=1):  # one quick turn on each replica
        assert clients[name].say(f"Turn {used}.")[0] == ANSWER
        assert clients[name].replica == name
    assert TURNS_PER_HOUR == 3  # so one turn is left for the two that race
    start = threading.Barrier(len(clients))
    errors: dict[str, list[Exception]] = {name: [] for name in clients}
    said: dict[str, list[str]] = {name: [] for name in clients}

    def race(name: str) -> None:
        start.wait()  # both leave together; each replica's next reply would hold its turn
        clients[name].stream(f"Racing on {name}.", None, errors[name], said[name])

    turns = {name: threading.Thread(target=race, args=(name,), daemon=True) for name in clients}
    for turn in turns.values():
        turn.start()
    refused = wait_for(lambda: [n for n in clients if errors[n]],
                       "neither racing turn was refused: both got the last turn", timeout=180)  # fmt: skip
    assert len(refused) == 1, errors
    assert isinstance(errors[refused[0]][0], RateLimitError), errors
    admitted = next(name for name in clients if name not in refused)
    # Its held turn runs on.
    assert turns[admitted].is_alive() and not errors[admitted], "".join(said[admitted])
