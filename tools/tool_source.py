"""Turn a tool into a self-contained Python file, so it can be saved, shared and loaded.

A `@tool` function is written with its decorator; a `Tool` subclass with its class body.
Imports of the defining module that the code uses are carried along; simple constants are
inlined; anything else defined outside the tool is refused with a message saying what to
move inside it.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import sys
import textwrap
from typing import Any

from tools.base import Tool, ToolDefinitionError
from tools.decorator import FunctionTool

_LITERALS = (int, float, str, bool, bytes, type(None))
_PROJECT_PACKAGES = ("tools", "agents", "smolui")


def tool_source(tool: Tool) -> str:
    """Return the source of a module that defines `tool` (and nothing else).

    Args:
        tool: A `@tool` function tool, or an instance of a `Tool` subclass whose
            `__init__` needs no arguments.
    """
    if tool.source_code is not None:  # loaded from a file: its source is already complete
        return tool.source_code
    if isinstance(tool, FunctionTool):
        function = tool.function
        code = _function_source(function)
        header = ["from tools import tool"]
        module = inspect.getmodule(function)
    elif type(tool).__module__.split(".")[0] in _PROJECT_PACKAGES:
        # this project's own tools are importable wherever the saved file is loaded
        cls = type(tool)
        _check_init(cls)
        return (
            f"from {cls.__module__} import {cls.__name__}\n\n"
            f"{_identifier(tool.name)} = {cls.__name__}()\n"
        )
    else:
        cls = type(tool)
        _check_init(cls)
        code, header = _class_source(cls)
        module = inspect.getmodule(cls)
    imports, constants = _dependencies(tool.name, code, header, module)
    lines = dict.fromkeys([*imports, *header])  # keeps order, drops duplicates
    body = "from __future__ import annotations\n\n" + "\n".join(lines)
    if constants:
        body += "\n\n" + "\n".join(constants)
    return f"{body}\n\n\n{code.rstrip()}\n"


def plain_function_source(tool: Tool) -> tuple[str, str]:
    """The source of a module that defines a `@tool` function undecorated, and its name:
    for running the function where this project is not installed (a remote kernel).

    Args:
        tool: A `@tool` function tool.

    Raises:
        ToolDefinitionError: Not a `@tool` function, or it uses a name defined outside it
            that is neither an import nor a simple constant.
    """
    if not isinstance(tool, FunctionTool) or tool.source_code is not None:
        raise ToolDefinitionError(
            f"{tool.name} is not a @tool function (only those can be shipped by source)."
        )
    function = tool.function
    code = _function_source(function, decorated=False)
    imports, constants = _dependencies(tool.name, code, [], inspect.getmodule(function))
    lines = ["from __future__ import annotations", *dict.fromkeys(imports), *constants]
    return "\n".join(lines) + f"\n\n\n{code.rstrip()}\n", function.__name__


def _identifier(name: str) -> str:
    return name if name.isidentifier() else "tool"


def _function_source(function: Any, decorated: bool = True) -> str:
    try:
        source = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError) as error:
        raise ToolDefinitionError(
            f"Cannot save tool {function.__name__}: its source code is not available "
            "(define it in a .py file)."
        ) from error
    node = ast.parse(source).body[0]
    lines = source.splitlines()[node.lineno - 1 :]  # drops the original decorators
    return ("@tool\n" if decorated else "") + "\n".join(lines)


def _class_source(cls: type) -> tuple[str, list[str]]:
    header: list[str] = []
    chunks: list[str] = []
    for klass in reversed(cls.__mro__):
        if not (isinstance(klass, type) and issubclass(klass, Tool)) or klass is Tool:
            continue
        module = klass.__module__.split(".")[0]
        if klass is not cls and module in _PROJECT_PACKAGES:
            header.append(f"from {klass.__module__} import {klass.__name__}")
            chunks.clear()  # everything below it is importable too
            continue
        try:
            chunks.append(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError) as error:
            raise ToolDefinitionError(
                f"Cannot save tool class {klass.__name__}: its source code is not available "
                "(define it in a .py file)."
            ) from error
    if not any("import Tool" in line for line in header):
        header.insert(0, "from tools import Tool")
    return "\n\n\n".join(chunks), header


def _check_init(cls: type) -> None:
    init = inspect.unwrap(cls.__init__)  # past the validating wrapper `Tool` puts around it
    required = [
        p.name
        for p in list(inspect.signature(init).parameters.values())[1:]
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if required:
        raise ToolDefinitionError(
            f"Cannot save tool class {cls.__name__}: its __init__ needs {', '.join(required)}. "
            "Give those arguments defaults (they are not saved)."
        )


def _dependencies(
    name: str, code: str, header: list[str], module: Any
) -> tuple[list[str], list[str]]:
    """Imports and constants the code needs from its module; refuses anything else."""
    free = free_names(code) - _bound_by(header)
    module_imports = _module_imports(module)
    imports = [line for line, bound in module_imports if bound & free]
    free -= set().union(*(bound for _, bound in module_imports)) if module_imports else set()
    constants: list[str] = []
    namespace = vars(module) if module is not None else {}
    for missing in sorted(free):
        value = namespace.get(missing, _NOTHING)
        if isinstance(value, _LITERALS) or (
            isinstance(value, tuple) and all(isinstance(v, _LITERALS) for v in value)
        ):
            constants.append(f"{missing} = {value!r}")
        else:
            raise ToolDefinitionError(
                f"Cannot save tool {name}: it uses '{missing}', which is defined outside it. "
                "Import or define it inside the tool's code so the saved file is complete."
            )
    return imports, constants


_NOTHING = object()


def free_names(code: str) -> set[str]:
    """Names the code reads but never binds (builtins excluded).

    Args:
        code: Python source.
    """
    tree = ast.parse(code)
    loaded: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.Attribute):
            continue
    return loaded - bound - set(dir(builtins)) - {"__class__"}


def _bound_by(lines: list[str]) -> set[str]:
    names: set[str] = set()
    for line in lines:
        names |= {a.asname or a.name.split(".")[0] for a in ast.parse(line).body[0].names}
    return names


def _module_imports(module: Any) -> list[tuple[str, set[str]]]:
    """Top-level import statements of a module, with the names each binds."""
    if module is None:
        return []
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError, SyntaxError):
        return []
    found = []
    for node in tree.body:
        if isinstance(node, ast.Import) or (
            isinstance(node, ast.ImportFrom) and node.module != "__future__"
        ):
            names = {(a.asname or a.name).split(".")[0] for a in node.names}
            found.append((ast.unparse(node), names))
    return found


def third_party_modules(source: str) -> list[str]:
    """Top-level modules a source file imports that are neither stdlib nor this project.

    Args:
        source: Python source.
    """
    roots: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            roots.add(node.module.split(".")[0])
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    return sorted(r for r in roots if r not in stdlib and r not in _PROJECT_PACKAGES)
