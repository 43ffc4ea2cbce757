"""The task set that chooses the bundled model: questions real users ask over their uploads.

`docs-tables-1` was written in one sitting (issue 30), before any model was run on it, and is
frozen: it is never used to change prompts, worked examples or code, only to measure. Its
documents (PDF, DOCX, XLSX, CSV) are built at run time by the builders of `tests/samples.py`,
so the tasks go through the app's real upload reading, as a visitor's files would.
One wording changed before any model had run that task: "Answer with one word" became
"Give the city name only", because the bench-apart check read "one word" as the number one.
"""

from __future__ import annotations

from pathlib import Path

from bench.small_model_tasks import BenchTask
from tests.samples import write_docx, write_pdf, write_xlsx

INVOICE_TEXT = """ACME Office Supplies
Invoice number: INV-2291
Issued: 2025-03-14
Bill to: Harbor Dental Clinic

12 boxes of printer paper      96.00
3 toner cartridges            141.00
Delivery                       18.50

Total due: 255.50 EUR
Payment within 30 days."""

POLICY_PAGES = (
    "Remote work policy\n"
    "This policy applies to all permanent employees.\n"
    "Employees may work from home up to 2 days a week.\n"
    "Core hours are 10:00 to 15:00 on every working day.",
    "The policy takes effect on 1 September 2025.\n"
    "Questions about this policy go to Maria Lund in Human Resources.",
)

MINUTES_PARAGRAPHS = (
    "Project Falcon meeting minutes",
    "Date: 2025-06-03",
    "Attendees: Ana, Ben, Chloe, David, Emil",
    "Decision: the launch moves to 2025-07-21.",
    "Budget approved: 42,000 EUR.",
)
MINUTES_TABLE = (
    ("Task", "Owner", "Due"),
    ("Design review", "Chloe", "2025-06-10"),
    ("Test plan", "Ben", "2025-06-17"),
)

SALES_CSV = """region,month,units,revenue
North,Jan,120,2400
South,Jan,80,1600
East,Jan,95,1900
North,Feb,130,2600
South,Feb,70,1400
East,Feb,110,2200
West,Feb,60,1200
"""

STAFF_ROWS = (
    ("name", "department", "salary", "start_year"),
    ("Ines", "Sales", 52000, 2019),
    ("Tom", "Support", 41000, 2021),
    ("Yara", "Sales", 58000, 2017),
    ("Omar", "Engineering", 67000, 2020),
    ("Lena", "Sales", 49500, 2022),
    ("Paul", "Engineering", 71000, 2016),
)


def invoice_pdf(path: Path) -> None:
    """A one-page PDF invoice."""
    write_pdf(path, [INVOICE_TEXT])


def policy_pdf(path: Path) -> None:
    """A two-page PDF policy."""
    write_pdf(path, list(POLICY_PAGES))


def minutes_docx(path: Path) -> None:
    """Word meeting minutes with a table of tasks."""
    write_docx(path, MINUTES_PARAGRAPHS, tables=[MINUTES_TABLE])


def sales_csv(path: Path) -> None:
    """A small CSV sales table."""
    path.write_text(SALES_CSV, encoding="utf-8")


def staff_xlsx(path: Path) -> None:
    """A small Excel staff list."""
    write_xlsx(path, STAFF_ROWS)


INVOICE = ("invoice.pdf", invoice_pdf)
POLICY = ("policy.pdf", policy_pdf)
MINUTES = ("minutes.docx", minutes_docx)
SALES = ("sales.csv", sales_csv)
STAFF = ("staff.xlsx", staff_xlsx)

DOCS_TABLES_1: list[BenchTask] = [
    BenchTask("pdf", "What is the total due on the attached invoice.pdf?", 255.5, (INVOICE,)),
    BenchTask(
        "pdf",
        "On what date was the attached invoice issued? Answer as YYYY-MM-DD.",
        "2025-03-14",
        (INVOICE,),
    ),
    BenchTask("pdf", "How many toner cartridges are on the attached invoice?", 3, (INVOICE,)),
    BenchTask(
        "pdf",
        "How many days a week may employees work from home under the attached policy?",
        2,
        (POLICY,),
    ),
    BenchTask(
        "pdf",
        "Who should questions about the attached policy.pdf go to? Give the full name only.",
        "Maria Lund",
        (POLICY,),
    ),
    BenchTask(
        "docx",
        "According to the attached minutes.docx, when is the launch? Answer as YYYY-MM-DD.",
        "2025-07-21",
        (MINUTES,),
    ),
    BenchTask(
        "docx", "What budget in euros was approved in the attached minutes?", 42000, (MINUTES,)
    ),
    BenchTask(
        "docx",
        "Who owns the test plan in the attached minutes.docx? Give the name only.",
        "Ben",
        (MINUTES,),
    ),
    BenchTask("csv", "What is the total revenue in the attached sales.csv?", 13300, (SALES,)),
    BenchTask(
        "csv", "How many rows of the attached sales.csv are for the North region?", 2, (SALES,)
    ),
    BenchTask(
        "csv",
        "What is the largest number of units in one row of the attached sales.csv?",
        130,
        (SALES,),
    ),
    BenchTask("xlsx", "What is the highest salary in the attached staff.xlsx?", 71000, (STAFF,)),
    BenchTask("xlsx", "How many people in the attached staff.xlsx work in Sales?", 3, (STAFF,)),
    BenchTask(
        "xlsx",
        "What is the average salary of the Engineering department in the attached staff.xlsx?",
        69000,
        (STAFF,),
    ),
    BenchTask("units", "How many kilometers is 12 miles? Round to one decimal.", 19.3),
    BenchTask("units", "Convert 3 pounds to kilograms, rounded to two decimals.", 1.36),
    BenchTask(
        "units", "What is 350 degrees Fahrenheit in Celsius, rounded to a whole number?", 177
    ),
    BenchTask("plain", "What is the capital of Japan? Give the city name only.", "Tokyo"),
    BenchTask(
        "plain", "A shirt costs 40 dollars and is 25% off. What is the sale price in dollars?", 30
    ),
    BenchTask(
        "plain",
        "I have 3 meetings of 45 minutes each. How many hours is that in total?",
        2.25,
    ),
]
