"""A held-out set for `bench/small_model.py --set loops`: quantities worked out by a loop or a
recurrence (terms of a sequence, sums over a range, products, counting multiples).

Written in issue 31's session before the examples of that kind were added to the small
model's bank, and not used to write them: run once on the state before (the bank without a
sequence category) and once after. None of them is the app's example card.
"""

from __future__ import annotations

from bench.small_model_tasks import BenchTask

LOOPS: list[BenchTask] = [
    BenchTask("sequences", "What is the 15th Fibonacci number?", 610),
    BenchTask("sequences", "Find the sum of the first 10 Fibonacci numbers.", 143),
    BenchTask("sequences", "What is the 12th triangular number?", 78),
    BenchTask(
        "sequences", "A sequence starts at 4 and each term adds 7. What is its 10th term?", 67
    ),
    BenchTask("sequences", "Starting from 1, doubling 12 times gives what number?", 4096),
    BenchTask("sequences", "What is the 7th term of the sequence 3, 6, 12, 24, ...?", 192),
    BenchTask("sequences", "What is the 10th square number?", 100),
    BenchTask("ranges", "What is the sum of the squares of the numbers from 1 to 10?", 385),
    BenchTask("ranges", "What is the sum of the even numbers from 2 to 40?", 420),
    BenchTask("ranges", "Add up every number from 50 to 100.", 3825),
    BenchTask("ranges", "What is the sum of the cubes of 1 through 5?", 225),
    BenchTask("ranges", "What is the sum of the odd numbers from 1 to 29?", 225),
    BenchTask("ranges", "What is 9 factorial? Work it out with code.", 362880),
    BenchTask("ranges", "What is the product of the integers from 1 to 6?", 720),
    BenchTask("multiples", "What is the sum of all multiples of 3 below 50?", 408),
    BenchTask("multiples", "How many multiples of 7 are there between 1 and 100?", 14),
    BenchTask("multiples", "How many numbers from 1 to 200 are divisible by 9?", 22),
    BenchTask("multiples", "How many numbers below 1000 are multiples of both 4 and 6?", 83),
]
