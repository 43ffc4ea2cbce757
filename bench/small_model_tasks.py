"""The task set of `bench/small_model.py`: simple tasks a first-time visitor would try.

Each task has one expected answer and is solvable in one or two steps of Python: arithmetic,
strings, dates, unit conversions and a question about an uploaded text file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The uploaded file of the file tasks: (name, text).
SHOPPING_LIST = (
    "shopping.txt",
    "apples 4\nbread 1\nmilk 2\neggs 12\ncoffee 1\nrice 3\n",
)


@dataclass(frozen=True)
class BenchTask:
    """One task and its expected answer.

    Args:
        kind: The group it belongs to (arithmetic, strings, dates, units, file).
        text: What the user types.
        expected: The right answer: a number (compared with a relative tolerance) or a text
            (compared without case, spaces and quotes).
        uploads: Files attached to the message, as (name, text) or (name, a function that
            writes the file at the path it is given, for PDF, DOCX, XLSX...).
    """

    kind: str
    text: str
    expected: Any
    uploads: tuple[tuple[str, str | Callable[[Path], object]], ...] = ()

    def is_right(self, answer: Any) -> bool:
        """Whether the agent's final answer is this task's answer.

        Args:
            answer: The final answer, whatever its type.
        """
        if isinstance(self.expected, bool):
            word = _norm(answer)
            return word in (("yes", "true") if self.expected else ("no", "false"))
        if isinstance(self.expected, (int, float)):
            number = _number(answer)
            return number is not None and math.isclose(number, self.expected, rel_tol=1e-3)
        return _norm(answer) == _norm(self.expected)


def _norm(value: Any) -> str:
    return re.sub(r"[\s'\".]+", " ", str(value)).strip().lower()


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    found = re.findall(r"-?\d+(?:\.\d+)?", str(value).replace(",", ""))
    return float(found[0]) if len(found) == 1 else None


TASKS: list[BenchTask] = [
    BenchTask("arithmetic", "What is 17 * 23? Use Python.", 391),
    BenchTask("arithmetic", "What is 1234 + 5678?", 6912),
    BenchTask("arithmetic", "What is 2 to the power of 10?", 1024),
    BenchTask("arithmetic", "What is 15% of 240?", 36),
    BenchTask("arithmetic", "What is the sum of the whole numbers from 1 to 100?", 5050),
    BenchTask("arithmetic", "What is the square root of 144?", 12),
    BenchTask("arithmetic", "What is 7 factorial?", 5040),
    BenchTask("arithmetic", "What is the largest number in the list [3, 41, 7, 19]?", 41),
    BenchTask("strings", "Reverse the string 'hello world'.", "dlrow olleh"),
    BenchTask("strings", "How many characters are in the word 'encyclopedia'?", 12),
    BenchTask("strings", "Convert 'python agents' to upper case.", "PYTHON AGENTS"),
    BenchTask(
        "strings",
        "How many words are in the sentence 'the quick brown fox jumps over the lazy dog'?",
        9,
    ),
    BenchTask("strings", "How many times does the letter 'e' appear in 'excellence'?", 4),
    BenchTask("dates", "What day of the week was 1 January 2000?", "Saturday"),
    BenchTask("dates", "How many days are there from 2024-01-01 to 2024-03-01?", 60),
    BenchTask("dates", "Is 2024 a leap year? Answer yes or no.", True),
    BenchTask("dates", "How many days are in February 2023?", 28),
    BenchTask("units", "Convert 5 kilometers to meters.", 5000),
    BenchTask("units", "Convert 100 degrees Celsius to Fahrenheit.", 212),
    BenchTask("units", "How many minutes are in 3.5 hours?", 210),
    BenchTask("units", "Convert 2.5 kilograms to grams.", 2500),
    BenchTask("units", "How many seconds are in one day?", 86400),
    BenchTask(
        "file", "How many lines does the attached file shopping.txt have?", 6, (SHOPPING_LIST,)
    ),
    BenchTask("file", "How many eggs are on the attached shopping list?", 12, (SHOPPING_LIST,)),
]

# Written after the example bank (agents/prompts/examples/small_code.yaml) and kept apart from
# it: no task here has a twin in the bank, so this set shows how the profile does on tasks it
# was not tuned on (`python bench/small_model.py --set held-out`).
HELD_OUT: list[BenchTask] = [
    BenchTask("arithmetic", "What is the product of 4, 5 and 6?", 120),
    BenchTask("arithmetic", "What is 13 squared?", 169),
    BenchTask("arithmetic", "What is the difference between 1000 and 377?", 623),
    BenchTask("arithmetic", "What is three quarters of 88?", 66),
    BenchTask("arithmetic", "How much is 250 minus 18 times 3?", 196),
    BenchTask("strings", "What is the first letter of 'zebra'?", "z"),
    BenchTask("strings", "How many letters 'a' are in 'banana'?", 3),
    BenchTask("strings", "Join the words 'ice' and 'cream' with a hyphen.", "ice-cream"),
    BenchTask("strings", "Repeat 'ab' 3 times with no spaces.", "ababab"),
    BenchTask("dates", "What year is 25 years after 2003?", 2028),
    BenchTask("dates", "Which month comes 3 months after October? Give its name.", "January"),
    BenchTask("units", "How many weeks are in 84 days?", 12),
    BenchTask("units", "Convert 3 feet to inches.", 36),
    BenchTask("units", "How many grams are in 0.75 kilograms?", 750),
    BenchTask("units", "How many millimeters are in 4 centimeters?", 40),
    BenchTask("units", "How many hours are in 2 weeks?", 336),
]

# Written together with the category bank and never used to tune it or the profile: a check
# on tasks of the same kinds in new wording (`python bench/small_model.py --set fresh`).
SCORES = ("scores.txt", "alice 81\nbob 67\ncarol 92\ndave 75\n")
POEM = ("poem.txt", "the sun rose over the quiet hills\nbirds began to sing\n")
FRESH: list[BenchTask] = [
    BenchTask("arithmetic", "Calculate 48 times 25.", 1200),
    BenchTask("arithmetic", "What do you get when you divide 945 by 15?", 63),
    BenchTask("arithmetic", "What is 9 cubed?", 729),
    BenchTask("arithmetic", "What is 20 percent of 350?", 70),
    BenchTask("arithmetic", "Add up 125, 250 and 375.", 750),
    BenchTask("arithmetic", "Find the square root of 225.", 15),
    BenchTask("strings", "How many characters does 'butterfly' have?", 9),
    BenchTask("strings", "Write 'hello there' in capital letters.", "HELLO THERE"),
    BenchTask("strings", "Count the letter 's' in 'mississippi'.", 4),
    BenchTask("strings", "Spell 'stressed' backwards.", "desserts"),
    BenchTask("strings", "Replace every 'a' with 'o' in 'banana'.", "bonono"),
    BenchTask("dates", "How many days passed between 2023-03-15 and 2023-04-20?", 36),
    BenchTask("dates", "On what weekday did 25 December 2021 fall?", "Saturday"),
    BenchTask("dates", "What is the date 10 days after 2024-02-25? Use YYYY-MM-DD.", "2024-03-06"),
    BenchTask("units", "How many centimeters are in 2.5 meters?", 250),
    BenchTask("units", "Convert 68 degrees Fahrenheit to Celsius.", 20),
    BenchTask("units", "How many minutes are there in 4 hours?", 240),
    BenchTask("units", "How many meters is 3.2 kilometers?", 3200),
    BenchTask("file", "What is carol's score in the attached file?", 92, (SCORES,)),
    BenchTask("file", "How many words does the attached poem have?", 11, (POEM,)),
]

# Written after the first look at FRESH's results and before any change made from them: the
# check on unseen tasks for those changes (`python bench/small_model.py --set fresh-2`).
INVENTORY = ("inventory.txt", "pens 14\npencils 30\nerasers 6\nrulers 9\nmarkers 21\n")
DIARY = ("diary.txt", "Monday was sunny.\nTuesday it rained all day.\nWednesday was cold.\n")
FRESH_2: list[BenchTask] = [
    BenchTask("arithmetic", "What is 306 minus 148?", 158),
    BenchTask("arithmetic", "What is 19 times 21?", 399),
    BenchTask("arithmetic", "What is 2 raised to the power 8?", 256),
    BenchTask("arithmetic", "What is 30% of 90?", 27),
    BenchTask("arithmetic", "What is one half of 346?", 173),
    BenchTask("arithmetic", "What is the average of 6, 8 and 13?", 9),
    BenchTask("strings", "How long is the string 'watermelon'?", 10),
    BenchTask("strings", "What is 'Good Night' in lower case?", "good night"),
    BenchTask("strings", "How many times does 'o' appear in 'moonlight foot'?", 4),
    BenchTask("strings", "What is the last letter of 'pumpkin'?", "n"),
    BenchTask("dates", "How many days are between 2022-12-25 and 2023-01-10?", 16),
    BenchTask("dates", "What day of the week is 2030-06-15?", "Saturday"),
    BenchTask("dates", "Was 2100 a leap year? Answer yes or no.", False),
    BenchTask("units", "How many grams are in 3 kilograms?", 3000),
    BenchTask("units", "How many seconds are in 7 minutes?", 420),
    BenchTask("units", "Convert 40 degrees Celsius to Fahrenheit.", 104),
    BenchTask("units", "How many feet are in 5 yards?", 15),
    BenchTask("file", "How many items are listed in the attached inventory.txt?", 5, (INVENTORY,)),
    BenchTask("file", "How many pencils are in the attached inventory?", 30, (INVENTORY,)),
    BenchTask(
        "file", "What is the first line of the attached diary.txt?", "Monday was sunny.", (DIARY,)
    ),
]

# Written at the end, after the last change to the profile, and run once on the final state:
# `python bench/small_model.py --set fresh-3`.
RECIPE = ("recipe.txt", "flour 500\nsugar 200\nbutter 250\neggs 3\n")
FRESH_3: list[BenchTask] = [
    BenchTask("arithmetic", "What is 7000 divided by 35?", 200),
    BenchTask("arithmetic", "What is 64 plus 36 plus 99?", 199),
    BenchTask("arithmetic", "Compute 15 to the power of 2.", 225),
    BenchTask("arithmetic", "What is 45% of 200?", 90),
    BenchTask("arithmetic", "What is the smallest number among 17, 4, 29 and 11?", 4),
    BenchTask("arithmetic", "What is 12 multiplied by 12?", 144),
    BenchTask("strings", "How many letters are in the word 'computer'?", 8),
    BenchTask("strings", "Turn 'summer time' into upper case letters.", "SUMMER TIME"),
    BenchTask("strings", "What do you get if you reverse 'drawer'?", "reward"),
    BenchTask("strings", "How many times does 'l' occur in 'hello world'?", 3),
    BenchTask("dates", "How many days are between 2021-01-01 and 2021-02-14?", 44),
    BenchTask("dates", "Which day of the week was 2000-02-29?", "Tuesday"),
    BenchTask("dates", "Is 1996 a leap year? Answer yes or no.", True),
    BenchTask("units", "Convert 9 kilometers to meters.", 9000),
    BenchTask("units", "How many minutes are in 6 hours?", 360),
    BenchTask("units", "Convert 0 degrees Celsius to Fahrenheit.", 32),
    BenchTask("units", "How many seconds are in 10 minutes?", 600),
    BenchTask("units", "How many centimeters are in 7 meters?", 700),
    BenchTask("file", "How many lines does the attached recipe.txt have?", 4, (RECIPE,)),
    BenchTask("file", "How much sugar does the attached recipe need?", 200, (RECIPE,)),
]

# Written by helper H2 in session 6 before any change of that session, run once as the
# baseline and once on the final state, never used for tuning:
# `python bench/small_model.py --set fresh-4`.
MARKS = ("marks.txt", "maths 74\nhistory 88\nphysics 59\nmusic 95\nart 81\n")
NOTES = ("notes.txt", "buy milk\ncall the plumber\nwater the plants\n")
FRESH_4: list[BenchTask] = [
    BenchTask("arithmetic", "What is 123 times 4?", 492),
    BenchTask("arithmetic", "What is 1000 minus 256?", 744),
    BenchTask("arithmetic", "How much is 84 divided by 7?", 12),
    BenchTask("arithmetic", "What is 3 to the power of 5?", 243),
    BenchTask("arithmetic", "What is 10% of 450?", 45),
    BenchTask("arithmetic", "What is the biggest number in 8, 23, 15 and 4?", 23),
    BenchTask("strings", "How many characters are in 'lighthouse'?", 10),
    BenchTask("strings", "Make 'open source' upper case.", "OPEN SOURCE"),
    BenchTask("strings", "Reverse the word 'planet'.", "tenalp"),
    BenchTask("strings", "How many times does 'a' appear in 'alphabet salad'?", 4),
    BenchTask("dates", "How many days are between 2020-05-01 and 2020-06-15?", 45),
    BenchTask("dates", "What day of the week was 14 July 1789?", "Tuesday"),
    BenchTask("dates", "Is 2023 a leap year? Answer yes or no.", False),
    BenchTask("units", "Convert 4 kilograms to grams.", 4000),
    BenchTask("units", "How many seconds are in 3 hours?", 10800),
    BenchTask("units", "Convert 25 degrees Celsius to Fahrenheit.", 77),
    BenchTask("units", "How many centimeters are in 6 meters?", 600),
    BenchTask("units", "Convert 1500 meters to kilometers.", 1.5),
    BenchTask("file", "What is the music mark in the attached marks.txt?", 95, (MARKS,)),
    BenchTask("file", "How many lines does the attached notes.txt have?", 3, (NOTES,)),
]

# Written at the start of session 6 and kept out of the repository (and from whoever changed
# the profile) until that session's changes were done; run once on the state before them
# (13/20) and once after: `python bench/small_model.py --set fresh-5`.
COLOURS = ("notes.txt", "red 5\ngreen 11\nblue 8\nyellow 2\n")
TOWNS = ("towns.txt", "Oslo\nBergen\nTromso\nStavanger\nDrammen\nMolde\nBodo\n")
FRESH_5: list[BenchTask] = [
    BenchTask("arithmetic", "What is 56 times 3?", 168),
    BenchTask("arithmetic", "Work out 812 minus 409.", 403),
    BenchTask("arithmetic", "What is 3 to the power of 5?", 243),
    BenchTask("arithmetic", "What is 10% of 730?", 73),
    BenchTask("arithmetic", "Divide 144 by 12.", 12),
    BenchTask("arithmetic", "What is the sum of 33, 44 and 55?", 132),
    BenchTask("strings", "How many characters are in 'keyboard'?", 8),
    BenchTask("strings", "Make 'open door' upper case.", "OPEN DOOR"),
    BenchTask("strings", "Reverse the word 'planet'.", "tenalp"),
    BenchTask("strings", "How many times does the letter 'r' appear in 'strawberry'?", 3),
    BenchTask("dates", "How many days are there between 2020-05-01 and 2020-06-01?", 31),
    BenchTask("dates", "What weekday was 2015-07-04?", "Saturday"),
    BenchTask("dates", "Is 2019 a leap year? Answer yes or no.", False),
    BenchTask("units", "Convert 4 kilometers into meters.", 4000),
    BenchTask("units", "How many minutes are in 2 hours?", 120),
    BenchTask("units", "Convert 25 degrees Celsius to Fahrenheit.", 77),
    BenchTask("units", "How many grams are in 1.5 kilograms?", 1500),
    BenchTask("units", "How many seconds are in 3 minutes?", 180),
    BenchTask("file", "How many lines does the attached towns.txt have?", 7, (TOWNS,)),
    BenchTask("file", "How many green ones are in the attached notes.txt?", 11, (COLOURS,)),
]
