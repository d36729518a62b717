"""The package as installed: standard library only, Python 3.9 syntax, typed."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import List

import pytest

import lull

PACKAGE = Path(lull.__file__).parent


def modules() -> List[Path]:
    return sorted(PACKAGE.glob("*.py"))


def test_it_is_the_installed_package_not_the_source_tree() -> None:
    assert "site-packages" in str(PACKAGE), PACKAGE


def test_it_imports_only_the_standard_library() -> None:
    stdlib = getattr(sys, "stdlib_module_names", None)  # Python 3.10 and later
    if stdlib is None:
        pytest.skip("this Python does not list its standard library (3.10 and later do)")
    for module in modules():
        for node in ast.walk(ast.parse(module.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                assert top == "__future__" or top in stdlib, f"{module.name} imports {name}"


def test_it_parses_as_python_3_9() -> None:
    for module in modules():
        ast.parse(module.read_text(), filename=str(module), feature_version=(3, 9))


def test_it_ships_its_type_information() -> None:
    assert (PACKAGE / "py.typed").exists()
