"""deploy/compose.yaml brought up for real: `docker-compose up` on podman's Docker API builds
PostgreSQL's and HAProxy's images from Debian packages, runs two app replicas (the app image
on the same Debian base) on that PostgreSQL behind that HAProxy, their code in the fleet's
Jupyter Kernel Gateway, and `down -v` leaves nothing.

Driven through the balancer's `/v1` with the real `openai` client (HAProxy's cookie kept as a
browser keeps it) and an API key made inside a replica, as the README says. The replicas
answer from a scripted model (tests/deploy/fleet.py: a quick answer, then one that holds its
turn open), so a test can stop or kill a replica while a turn runs; the kernels' test has
replies of its own (code that tells where it runs, what it can reach, and how far it can
fork). The test reads what was stored from the fleet's own PostgreSQL, published on a
loopback port.

Each test brings up its own compose project (a fresh database, fresh script positions), and
fails if `docker-compose down -v` leaves anything of it behind (a container, network, volume,
an anonymous one included, or a process such as a container's `conmon`); the teardown removes
what it left either way, and a run first removes the fleets of earlier runs that died.
"""

from __future__ import annotations

import contextlib
import errno
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
from tests.deploy.leftovers import sweep_orphans
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


@pytest.fixture(scope="module", autouse=True)
def no_orphan_fleets() -> None:
    """Fleets whose test process died before its teardown (killed by hand, or by a timeout
    that ends the process) are removed before this module brings up its own."""
    if missing_compose() is None:
        sweep_orphans()


@contextlib.contextmanager
def running_fleet(docker_host: str, image: str, folder: Path, script: Path, **settings):
    """A compose fleet answering from `script`, brought down (`down -v`) and checked empty."""
    running = ComposeFleet(folder, docker_host, image, script, **settings)
    try:
        running.build_images()
        yield running.up()
    finally:
        left = running.down()
        assert left == {}, f"docker-compose down left these of {running.project}: {left}"
        assert running.leftovers() == {}, f"left behind by {running.project}"


@pytest.fixture
def fleet(podman_service, image: str, tmp_path: Path) -> Iterator[ComposeFleet]:  # noqa: F811
    script = write_script(tmp_path / "replies.json")
    with running_fleet(podman_service.url, image, tmp_path, script) as running:
        yield running


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
    conversations: dict[str, str] = {}
    for used, name in enumerate(SERVICES, start=1):  # one quick turn on each replica
        answer, conversations[name] = clients[name].say(f"Turn {used}.")
        assert answer == ANSWER and clients[name].replica == name
    assert TURNS_PER_HOUR == 3  # so one turn is left for the two that race
    start = threading.Barrier(len(clients))
    errors: dict[str, list[Exception]] = {name: [] for name in clients}
    said: dict[str, list[str]] = {name: [] for name in clients}

    def race(name: str) -> None:
        # Both leave together, each in its conversation: a conversation's agent replays the
        # script from its start, so its second reply is the one that holds the turn open.
        start.wait()
        clients[name].stream(f"Racing on {name}.", conversations[name], errors[name], said[name])

    turns = {name: threading.Thread(target=race, args=(name,), daemon=True) for name in clients}
    for turn in turns.values():
        turn.start()
    refused = wait_for(lambda: [n for n in clients if errors[n]],
                       "neither racing turn was refused: both got the last turn", timeout=180)  # fmt: skip
    assert len(refused) == 1, errors
    assert isinstance(errors[refused[0]][0], RateLimitError), errors
    admitted = next(name for name in clients if name not in refused)
    # Its held turn runs on.
    assert turns[admitted].is_alive() and not errors[admitted], (
        f"{''.join(said[admitted])}\n{fleet.logs(*SERVICES.values())}"
    )


# The kernels' script, replayed from its start in each conversation: where the code runs
# (kept in a variable), that variable again, a probe of what the kernel can reach, then a
# fork past the gateway's pids limit. The import policy is not the boundary (it is checked
# in the app, and `__import__` gets past it, as here): the network is.
WHERE = (
    "os, socket = __import__('os'), __import__('socket')\n"
    "where = f'{socket.gethostname()} as uid {os.getuid()}'\n"
    "final_answer(f'Ran on {where}.')"
)
AGAIN = "final_answer(f'Still on {where}.')"
PROBE_TARGETS = "/tmp/fleet-probe.json"  # written by the test once the addresses are known
PROBE = f"""import json
socket = __import__('socket')
reached = {{}}
for name, (host, port) in json.load(open('{PROBE_TARGETS}')).items():
    try:
        socket.create_connection((host, port), timeout=20).close()
        reached[name] = 'open'
    except OSError as error:
        reached[name] = [type(error).__name__, error.errno]
final_answer(json.dumps(reached))"""
# Forks until the kernel refuses (each child waits on a pipe, so it counts until the end),
# reading the container's pids cgroup at the refusal, then lets every child go.
FORK = """import json
os = __import__('os')
def pids(name):
    try:
        return int(open('/sys/fs/cgroup/pids/' + name).read())
    except (OSError, ValueError):  # no such cgroup here, or "max" (no limit)
        return None
read_end, write_end = os.pipe()
children, refused, current = [], None, None
while len(children) < 2 * 512:
    try:
        child = os.fork()
    except OSError as error:
        refused, current = error.errno, pids('pids.current')
        break
    if child == 0:
        os.close(write_end)
        os.read(read_end, 1)
        os._exit(0)
    children.append(child)
os.close(write_end)
for child in children:
    os.waitpid(child, 0)
final_answer(json.dumps({'children': len(children), 'refused': refused,
                         'current': current, 'max': pids('pids.max')}))"""


def code(text: str) -> str:
    return f"Thought: I run it.\n<code>\n{text}\n</code>"


@pytest.fixture
def kernel_fleet(podman_service, image: str, tmp_path: Path) -> Iterator[ComposeFleet]:  # noqa: F811
    # After the fork: WHERE in the same kernel. A new conversation starts the script again.
    replies = [code(WHERE), code(AGAIN), code(PROBE), code(FORK), code(WHERE)]
    script = write_script(tmp_path / "replies.json", replies)
    with running_fleet(podman_service.url, image, tmp_path, script,
                       turns_per_hour=len(replies) + 1) as running:  # fmt: skip
        yield running


def test_code_runs_in_the_gateways_kernels_which_reach_only_the_replicas_within_limits(
    kernel_fleet, tmp_path
):
    fleet = kernel_fleet
    client = signed_in(fleet, "dave", "a")
    kernels = fleet.hostname("kernels")
    assert kernels not in {fleet.hostname(name) for name in SERVICES.values()}
    answer, conversation = client.say("Where does your code run?")
    assert answer == f"Ran on {kernels} as uid 1000."  # the kernels container, not root
    # The next turn, on the same replica: the conversation's kernel kept its variable.
    assert client.say("And now?", conversation) == (f"Still on {kernels} as uid 1000.",
                                                    conversation)  # fmt: skip
    assert client.replica == "a"
    database = fleet.addresses("postgres")["default"]
    targets = {
        "a replica, beside it": (fleet.addresses("app1")["kernels"], 7860),
        "PostgreSQL": (database, 5432),
        "PostgreSQL by name": ("postgres", 5432),
        "HAProxy": (fleet.addresses("haproxy")["default"], 7860),
        "this host": (fleet.host_address(), 22),
        "the internet": ("1.1.1.1", 443),
    }
    fleet.put("kernels", PROBE_TARGETS, json.dumps(targets))
    reached = json.loads(client.say("What can you reach?", conversation)[0])
    assert reached.pop("a replica, beside it") == "open"  # the probe can find a way
    assert reached.pop("PostgreSQL by name")[0] == "gaierror"  # no name for it there
    # No route at all to the fleet's other network nor out: not merely nothing listening.
    assert reached == {name: ["OSError", errno.ENETUNREACH] for name in reached}, reached
    held_to_its_limits(fleet, client, conversation, kernels, tmp_path)


def held_to_its_limits(
    fleet: ComposeFleet, client: Client, conversation: str, kernels: str, folder: Path
) -> None:
    """The gateway's limits from deploy/compose.yaml hold: podman set them, and code that
    forks past the pids limit is refused there, while the gateway goes on serving."""
    assert fleet.limits("kernels") == {"memory": 4 * 1024**3, "pids": 512}
    answer = client.say("Fork as often as you can.", conversation)[0]
    assert answer.startswith("{"), stored(fleet, folder, "api:dave", conversation)
    forked = json.loads(answer)
    # Refused by the container's pids cgroup (full at the refusal), not by anything before it.
    assert forked["refused"] == errno.EAGAIN and forked["max"] == 512, forked
    assert 0 < forked["children"] < 512 and forked["current"] >= 500, forked
    # The same kernel answers again, and the gateway starts a new conversation's kernel.
    ran = f"Ran on {kernels} as uid 1000."
    assert client.say("Where now?", conversation) == (ran, conversation)
    answer, other = client.say("And in a new conversation?")
    assert (answer, client.replica) == (ran, "a") and other != conversation


def stored(fleet: ComposeFleet, folder: Path, owner: str, conversation: str) -> str:
    """What the conversation holds in the fleet's database (what the agent was told)."""
    opened = open_store(folder / "reader", fleet.database_url)
    try:
        return json.dumps(opened.get(owner, conversation).messages, indent=1)[-6000:]
    finally:
        opened.close()
