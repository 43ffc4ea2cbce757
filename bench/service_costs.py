"""What an attacker of a public app can make it spend per request, capped: the sign-in check
(ms per check for a known and an unknown name, so their difference shows) and the host CPU
of the worst tool call the sandboxed code can send (decoding its arguments, a search over a
large upload).

Run: python bench/service_costs.py [--rounds 12] [--repeat 5]

Figures are CPU seconds of this process (`time.process_time`) where the question is what the
host pays, and wall milliseconds for the sign-in (bcrypt runs in one thread either way).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def sign_in_costs(rounds: int, repeat: int) -> None:
    """ms per password check: a known name (right and wrong password) and an unknown one."""
    from smolui.auth import PasswordBook, hash_password

    book = PasswordBook({"alice": hash_password("wonderland", rounds=rounds)})
    cases = {
        "known name, right password": ("alice", "wonderland"),
        "known name, wrong password": ("alice", "guess"),
        "unknown name": ("mallory", "guess"),
        "over-long password": ("alice", "x" * 200),
    }
    print(f"sign-in, bcrypt cost {rounds}, median of {repeat} checks (wall, and CPU of the "
          "checking thread, which a busy machine does not inflate):")  # fmt: skip
    for label, (name, password) in cases.items():
        walls, cpus = [], []
        for _ in range(repeat):
            wall, thread = time.perf_counter(), time.thread_time()
            book.check(name, password)
            cpus.append((time.thread_time() - thread) * 1000)
            walls.append((time.perf_counter() - wall) * 1000)
        print(f"  {label:28s} {statistics.median(walls):8.1f} ms wall "
              f"{statistics.median(cpus):8.1f} ms CPU per check")  # fmt: skip


def cpu(call) -> tuple[float, str]:
    """CPU seconds `call` takes here, and what it ended with (its result's size or error)."""
    start = time.process_time()
    try:
        result = call()
        outcome = f"ok ({len(result):,} items)" if hasattr(result, "__len__") else "ok"
    except Exception as error:  # the cap refusing is the expected outcome
        outcome = f"refused: {str(error)[:70]}"
    return time.process_time() - start, outcome


def tool_argument_costs() -> None:
    """Decoding the arguments of one tool call as the host does (JSON frame, then values)."""
    from agents.executors.values import MAX_EQUAL_HASHES, MAX_KEYED_ENTRIES, TAG, decode_value

    modulus = sys.hash_info.modulus  # ints k and k + modulus share a hash
    colliding = [[i * modulus, 0] for i in range(120_000)]  # all one hash (the attack)
    grouped = [[g + i * modulus, 0] for g in range(MAX_KEYED_ENTRIES // MAX_EQUAL_HASHES)
               for i in range(MAX_EQUAL_HASHES)]  # fmt: skip  # the most the cap lets through
    plain = {f"k{i}": i for i in range(1_000_000)}  # string keys: randomized hashes
    frames = {
        "120,000 int keys of one hash": {TAG: "dict", "v": colliding},
        f"{len(grouped):,} int keys, {MAX_EQUAL_HASHES} per hash": {TAG: "dict", "v": grouped},
        "1,000,000 string keys": plain,
        "nested 64 deep x 2,000 wide": [[[0] * 2_000] * 64],
    }
    print("host CPU to decode one tool call's arguments (frame capped at 64 MB):")
    for label, tree in frames.items():
        text = json.dumps(tree)
        seconds, outcome = cpu(lambda text=text: decode_value(json.loads(text)))
        mb = len(text) / 1e6
        print(f"  {label:34s} {mb:6.1f} MB  {seconds:6.2f} CPU-s  {outcome}")
        if label.startswith("1,000,000"):  # the largest frame the channel takes is 64 MB
            print(
                f"  {'(the same at the 64 MB frame cap)':34s} {64:6.1f} MB  "
                f"{seconds * 64 / mb:6.2f} CPU-s  (scaled: decoding is linear)"
            )


def search_costs() -> None:
    """search_document on a 1.5 MB upload with a match on every line, asked for 10**9."""
    from tools.documents import SearchDocumentTool

    with tempfile.TemporaryDirectory() as folder:
        lines = [f"line {i}: the needle and some words around it" for i in range(34_000)]
        (Path(folder) / "big.txt").write_text("\n".join(lines))
        tool = SearchDocumentTool(folder)
        seconds, _ = cpu(lambda: tool.forward("big.txt", "needle", 10**9))
        answer = tool.forward("big.txt", "needle", 10**9)
    print(f"search_document(max_results=10**9) on 1.5 MB: {seconds:.2f} CPU-s, "
          f"answer {len(answer):,} characters")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=12, help="bcrypt cost of the users")
    parser.add_argument("--repeat", type=int, default=5, help="checks per case")
    args = parser.parse_args()
    sign_in_costs(args.rounds, args.repeat)
    tool_argument_costs()
    search_costs()


if __name__ == "__main__":
    main()
