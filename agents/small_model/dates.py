"""Worked examples for a date question, written in the task's own words with other dates.

A tiny model copies the worked example closest to the task; shown "Which weekday was 3 March
1999?" for "What day of the week was 14 July 1789?" it still misreads the date or the
method. For the date questions with one method (the weekday of a date, the days between two
dates, a date some days or weeks after or before another, whether a year is a leap year),
`date_examples` writes the task itself again with other dates (or another year, another
count of days) and solves it: the model has only to put its own values in.
"""

from __future__ import annotations

import datetime
import re

from agents.small_model.examples import WorkedExample, with_own_last

CATEGORY = "date question"
_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
_MONTH = "|".join(_MONTHS)
# A date as a task writes it: 2024-03-01, 14 July 1789, July 14, 1789.
_DATE = re.compile(
    rf"\b(?:(?P<iso>(?P<y1>\d{{4}})-(?P<m1>\d{{2}})-(?P<d1>\d{{2}}))"
    rf"|(?P<dmy>(?P<d2>\d{{1,2}}) (?P<m2>{_MONTH}),? (?P<y2>\d{{4}}))"
    rf"|(?P<mdy>(?P<m3>{_MONTH}) (?P<d3>\d{{1,2}}),? (?P<y3>\d{{4}})))\b",
    re.IGNORECASE,
)
_WEEKDAY = re.compile(r"\bweekday\b|\bday of the week\b|\bwhat day\b", re.IGNORECASE)
_OFFSET = re.compile(
    r"\b(?P<n>\d+) (?P<unit>days?|weeks?) (?P<way>after|before|later|earlier|from|since|ago)\b",
    re.IGNORECASE,
)
_LEAP = re.compile(r"\bleap\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(1[5-9]\d\d|2\d\d\d)\b")
# Dates, counts and years for the examples: the first ones unlike the task's.
_EXAMPLE_DATES = (
    datetime.date(2011, 7, 9),
    datetime.date(1998, 3, 3),
    datetime.date(2005, 11, 21),
)
_EXAMPLE_PAIRS = (
    (datetime.date(2019, 8, 3), datetime.date(2019, 11, 21)),
    (datetime.date(2016, 2, 10), datetime.date(2016, 5, 1)),
)
_EXAMPLE_COUNTS = (20, 9, 12)
_EXAMPLE_YEARS = (1900, 2012)


def date_examples(task: str, count: int = 2) -> list[WorkedExample]:
    """Worked examples of the task's own date question with other values (none when the
    task is not one of the questions with one method).

    Args:
        task: The user's task.
        count: How many (at most 2).
    """
    question = task.strip().splitlines()[-1] if task.strip() else ""
    dates = list(_DATE.finditer(question))
    if len(dates) == 1 and _WEEKDAY.search(question):
        return [_weekday(question, dates[0], day) for day in _others(_EXAMPLE_DATES, dates)][:count]
    offset = _OFFSET.search(question)
    if len(dates) == 1 and offset:
        return [_shifted(question, dates[0], offset, n, day) for n, day in _offsets(dates, offset)][
            :count
        ]
    if len(dates) == 2 and re.search(r"\bdays?\b", question, re.IGNORECASE):
        pairs = [pair for pair in _EXAMPLE_PAIRS if set(pair).isdisjoint(map(_date, dates))]
        return [_between(question, dates, pair) for pair in pairs][:count]
    years = _YEAR.findall(question)
    if not dates and _LEAP.search(question) and len(years) == 1:
        others = [year for year in _EXAMPLE_YEARS if str(year) != years[0]]
        return [_leap(question, years[0], year) for year in others][:count]
    return []


def with_date_examples(task: str, examples: list[WorkedExample]) -> list[WorkedExample]:
    """`examples` (the best last) with up to two of the task's own date question last, in
    place of the weakest. Unchanged for other tasks.

    Args:
        task: The user's task.
        examples: The examples picked for it.
    """
    own = date_examples(task, min(2, len(examples)))
    return with_own_last(examples, own) if own else examples


def _weekday(question: str, written: re.Match[str], day: datetime.date) -> WorkedExample:
    call = _call(day)
    return WorkedExample(
        _put(question, [(written, day)]),
        f'strftime("%A") names the weekday of {call}.',
        f'import datetime\nfinal_answer({call}.strftime("%A"))',
        CATEGORY,
    )


def _between(
    question: str, written: list[re.Match[str]], pair: tuple[datetime.date, datetime.date]
) -> WorkedExample:
    first, second = _call(pair[0]), _call(pair[1])
    return WorkedExample(
        _put(question, list(zip(written, pair, strict=True))),
        f"I subtract {first} from {second}.",
        f"import datetime\nfinal_answer(abs(({second} - {first}).days))",
        CATEGORY,
    )


def _shifted(
    question: str, written: re.Match[str], offset: re.Match[str], n: int, day: datetime.date
) -> WorkedExample:
    unit = "weeks" if offset.group("unit").lower().startswith("week") else "days"
    sign = "-" if offset.group("way").lower() in ("before", "earlier", "ago") else "+"
    text = _put(question, [(written, day)])
    text = text.replace(offset.group(0), f"{n} {offset.group('unit')} {offset.group('way')}", 1)
    delta = f"datetime.timedelta({unit}={n})"
    verb = "add" if sign == "+" else "subtract"
    return WorkedExample(
        text,
        f"I {verb} {delta} {'to' if sign == '+' else 'from'} {_call(day)}.",
        f"import datetime\nfinal_answer(str({_call(day)} {sign} {delta}))",
        CATEGORY,
    )


def _leap(question: str, written: str, year: int) -> WorkedExample:
    return WorkedExample(
        re.sub(rf"\b{written}\b", str(year), question, count=1),
        "A leap year divides by 4, and by 400 when it divides by 100.",
        f"year = {year}\nleap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n"
        'final_answer("yes" if leap else "no")',
        CATEGORY,
    )


def _offsets(dates: list[re.Match[str]], offset: re.Match[str]) -> list[tuple[int, datetime.date]]:
    counts = [n for n in _EXAMPLE_COUNTS if str(n) != offset.group("n")]
    days = _others(_EXAMPLE_DATES, dates)
    return list(zip(counts, days, strict=False))


def _others(
    candidates: tuple[datetime.date, ...], written: list[re.Match[str]]
) -> list[datetime.date]:
    taken = {_date(match) for match in written}
    return [day for day in candidates if day not in taken]


def _date(match: re.Match[str]) -> datetime.date | None:
    for y, m, d in (("y1", "m1", "d1"), ("y2", "m2", "d2"), ("y3", "m3", "d3")):
        if match.group(y):
            month = match.group(m)
            number = int(month) if month.isdigit() else _month_number(month)
            try:
                return datetime.date(int(match.group(y)), number, int(match.group(d)))
            except ValueError:
                return None
    return None


def _month_number(name: str) -> int:
    return [month.lower() for month in _MONTHS].index(name.lower()) + 1


def _put(question: str, replacements: list[tuple[re.Match[str], datetime.date]]) -> str:
    """The question with each written date replaced by a date in the same style."""
    for match, day in sorted(replacements, key=lambda item: item[0].start(), reverse=True):
        question = question[: match.start()] + _written_like(match, day) + question[match.end() :]
    return question


def _written_like(match: re.Match[str], day: datetime.date) -> str:
    if match.group("iso"):
        return day.isoformat()
    month = _MONTHS[day.month - 1]
    if match.group("dmy"):
        return f"{day.day} {month}{',' if ',' in match.group(0) else ''} {day.year}"
    return f"{month} {day.day}{',' if ',' in match.group(0) else ''} {day.year}"


def _call(day: datetime.date) -> str:
    return f"datetime.date({day.year}, {day.month}, {day.day})"
