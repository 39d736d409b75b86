"""Lazy public exports (PEP 562) for the subpackages.

A subpackage lists its public names and the module that defines each, and imports that module only
when a name is first used.
"""

from __future__ import annotations

from importlib import import_module


def lazy_exports(package: str, exports: dict[str, str]):
    """``(__all__, __getattr__, __dir__)`` for ``package`` from ``{name: submodule}``."""

    def __getattr__(name: str):
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{exports[name]}"), name)
        globals_of_package = import_module(package).__dict__
        globals_of_package[name] = value
        return value

    def __dir__():
        return sorted(set(import_module(package).__dict__) | set(exports))

    return sorted(exports), __getattr__, __dir__
