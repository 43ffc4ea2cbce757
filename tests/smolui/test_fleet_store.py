"""Several replicas on one database: version-checked saves and limits counted atomically.

Two stores opened on the same database stand for two replicas (each has its own engine and
its own memory of what it wrote); on PostgreSQL their saves and admissions race for real.
"""

from __future__ import annotations

import threading

import pytest

from smolui.store import StaleConversationError, open_store
from smolui.store.usage import StoreLedger
from smolui.store.versions import CheckedSaves, merge
from smolui.turns.limits import Limits, Reservation, UsageLimiter

OWNER = "password:alice"
MEMORY = {"version": 1, "steps": []}


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def bot(text: str) -> dict:
    return {"role": "assistant", "content": text}


@pytest.fixture
def replicas(store_url, tmp_path):
    first = open_store(tmp_path / "a", store_url)
    second = open_store(tmp_path / "b", store_url)
    yield first, second
    first.close()
    second.close()


class Page:
    """One live page of a conversation on one replica: its chat and its writer."""

    def __init__(self, store, chat=None):
        self.store, self.chat, self.saves = store, list(chat or []), CheckedSaves()

    def say(self, *messages) -> int:
        self.chat += messages
        revision, _ = self.saves.save(self.store, self, OWNER, "c1", folder="f1",
                                      messages=list(self.chat), memory=MEMORY)  # fmt: skip
        return revision


def stored(store) -> list:
    return store.get(OWNER, "c1").messages


def test_a_save_based_on_an_old_version_is_refused(replicas):
    first, second = replicas
    fields = {"folder": "f1", "memory": MEMORY}
    version = first.save_checked(OWNER, "c1", base_revision=None, messages=[user("hi")], **fields)
    second.save_checked(OWNER, "c1", base_revision=version, messages=[user("b")], **fields)
    with pytest.raises(StaleConversationError, match="saved elsewhere"):
        first.save_checked(OWNER, "c1", base_revision=version, messages=[user("a")], **fields)
    assert stored(first) == [user("b")]


def test_a_page_left_on_one_replica_does_not_erase_what_the_other_added(replicas):
    first, second = replicas
    old_page = Page(first)
    old_page.say(user("greenhouse?"), bot("412 kg"))
    reloaded = Page(second, stored(second))  # a reload that landed on the other replica
    reloaded.say(user("and bay four?"), bot("380 kg"))
    old_page.say(user("thanks"), bot("you're welcome"))  # the old page never showed bay four
    expected = [user("greenhouse?"), bot("412 kg"), user("and bay four?"), bot("380 kg"),
                user("thanks"), bot("you're welcome")]  # fmt: skip
    assert stored(first) == expected
    old_page.say(user("bye"))  # later saves keep merging: bay four stays
    assert stored(second) == [*expected, user("bye")]


def test_an_undo_after_the_merge_stays_undone_and_keeps_the_other_page_s_messages(replicas):
    first, second = replicas
    one = Page(first)
    one.say(user("q1"), bot("a1"))
    two = Page(second, stored(second))
    two.say(user("q2"), bot("a2"))
    one.chat = [user("q1")]  # the first page retries its answer: a1 goes
    one.say(bot("a1 again"))
    assert stored(first) == [user("q1"), bot("a1 again"), user("q2"), bot("a2")]


def test_a_conversation_opened_from_the_store_keeps_what_it_removed(replicas):
    first, second = replicas
    Page(first).say(user("q"), bot("waiting card"))  # that replica's app then goes away
    record = second.get(OWNER, "c1")
    reopened, elsewhere = Page(second, record.messages), Page(first, record.messages)
    for page in (reopened, elsewhere):  # both opened from the same stored version
        page.saves.based_on(page, record.revision, record.messages, [])
    elsewhere.say(user("from another tab"))
    reopened.chat = [user("q")]  # it goes on without the card (a resumed turn drops it)
    reopened.say(bot("answer"))
    assert stored(first) == [user("q"), bot("answer"), user("from another tab")]


def test_two_replicas_saving_at_the_same_moment_lose_nothing(replicas):
    first, second = replicas
    pages = [Page(first), Page(second)]
    pages[0].say(user("start"))
    pages[1].chat = stored(second)
    start = threading.Barrier(2)
    failures = []

    def talk(page: Page, name: str) -> None:
        start.wait()
        try:
            for turn in range(5):
                page.say(user(f"{name} {turn}"))
        except Exception as error:  # noqa: BLE001 - reported by the assertion below
            failures.append(error)

    threads = [threading.Thread(target=talk, args=(p, n)) for p, n in zip(pages, "ab", strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    messages = stored(first)
    for name in "ab":
        assert [m for m in messages if m["content"].startswith(name)] == [
            user(f"{name} {turn}") for turn in range(5)
        ]
    assert len(messages) == 11


def test_merge_keeps_theirs_and_mine_and_honours_my_removals():
    base = [1, 2]
    assert merge(base, [1, 2, 3], [1, 2, 9]) == [1, 2, 9, 3]
    assert merge(base, [1], [1, 2, 9]) == [1, 9]
    assert merge(None, [1, 2, 3], [1, 2, 9]) == [1, 2, 9, 3]
    assert merge(base, [1, 2, 3], [1, 2, 3]) == [1, 2, 3]  # my save that did land


def test_turns_racing_on_two_replicas_cannot_pass_the_limit(replicas):
    first, second = replicas
    limits = Limits(turns_per_hour=3)
    one = UsageLimiter(limits, StoreLedger(first.engine))
    two = UsageLimiter(limits, StoreLedger(second.engine))
    for _ in range(2):
        assert isinstance(one.admit([OWNER]), Reservation)
    start = threading.Barrier(8)
    results: list = []

    def race(limiter: UsageLimiter) -> None:
        start.wait()
        results.append(limiter.admit([OWNER]))

    threads = [threading.Thread(target=race, args=(limiter,)) for limiter in (one, two) * 4]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    admitted = [r for r in results if isinstance(r, Reservation)]
    assert len(admitted) == 1, results
    assert all("Limit reached" in r for r in results if isinstance(r, str))
    assert one.usage(OWNER)["turns_this_hour"] == 3


def test_a_turn_that_never_started_gives_its_place_back(replicas):
    first, second = replicas
    one = UsageLimiter(Limits(turns_per_hour=1), StoreLedger(first.engine))
    two = UsageLimiter(Limits(turns_per_hour=1), StoreLedger(second.engine))
    reservation = one.admit([OWNER])
    assert "Limit reached" in two.admit([OWNER])
    one.refund(reservation)
    assert isinstance(two.admit([OWNER]), Reservation)
