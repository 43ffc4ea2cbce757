"""The layout's rules, read from the code: which package may import which.

Each sub-package of `agents` and `smolui` says in its docstring what it may import (a line
starting "May import:"); every import in its files, at module level or inside a function, must
be one of those or of its own package. Besides: `agents` imports no `smolui` and no gradio,
`tools` imports no `smolui` and no gradio.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = ("agents", "smolui", "tools")


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every absolute import in a file; `from a import b` gives `a.b`
    where `b` is a module, else `a`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                is_module = (ROOT / candidate.replace(".", "/")).is_dir() or (
                    ROOT / (candidate.replace(".", "/") + ".py")
                ).is_file()
                found.append((node.lineno, candidate if is_module else node.module))
    return found


def _sub_packages() -> list[Path]:
    return sorted(
        folder
        for top in ("agents", "smolui")
        for folder in (ROOT / top).iterdir()
        if (folder / "__init__.py").is_file()
    )


def _allowed(package: Path) -> list[str]:
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    match = re.search(r"^May import:(.*?)(?:\n\s*\n|\Z)", doc, re.S | re.M)
    assert match, f"{package.relative_to(ROOT)}/__init__.py: no 'May import:' line in its docstring"
    text = " ".join(match.group(1).split())
    if text.startswith("nothing"):
        return []
    return [name.strip(" .") for name in text.split(",") if name.strip(" .")]


def _within(module: str, allowed: str) -> bool:
    return module == allowed or module.startswith(allowed + ".")


@pytest.mark.parametrize("package", _sub_packages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_each_sub_package_imports_only_what_its_docstring_allows(package: Path) -> None:
    own = ".".join(package.relative_to(ROOT).parts)
    allowed = _allowed(package)
    wrong = []
    for path in sorted(package.rglob("*.py")):
        for line, module in _imports(path):
            if not module.startswith(OURS) or _within(module, own):
                continue
            if module.split(".")[0] == own.split(".")[0] and module.count(".") == 0:
                continue  # the top package itself (`import agents` for its public names)
            if not any(_within(module, name) for name in allowed):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not wrong, f"{own} may import only {allowed}:\n" + "\n".join(wrong)


@pytest.mark.parametrize(
    ("top", "forbidden"),
    [("agents", ("smolui", "gradio")), ("tools", ("smolui", "gradio"))],
)
def test_the_core_imports_no_ui(top: str, forbidden: tuple[str, ...]) -> None:
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted((ROOT / top).rglob("*.py"))
        for line, module in _imports(path)
        if module.split(".")[0] in forbidden
    ]
    assert not wrong, "\n".join(wrong)


def test_the_rule_reader_sees_a_forbidden_import(tmp_path: Path) -> None:
    """The check above can fail: a file importing what its docstring does not allow."""
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from smolui.app.settings import Settings\n")
    modules = [module for _, module in _imports(sample)]
    assert modules == ["smolui.app.settings"]
    assert not any(_within(modules[0], name) for name in ["smolui.render", "agents"])
