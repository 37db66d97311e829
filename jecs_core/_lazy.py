"""The module ``__getattr__`` (PEP 562) of the packages whose public names are imported on first use."""

from __future__ import annotations

import importlib
import sys


def attribute(package: str, module_of: dict[str, str], name: str):
    """``package``'s public ``name`` from the module ``module_of`` names, or else its submodule ``name``.

    The value is stored on the package, so later look-ups never reach ``__getattr__`` again.
    """
    module = module_of.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f".{module}", package), name)
    else:
        try:
            value = importlib.import_module(f".{name}", package)
        except ModuleNotFoundError as error:
            if error.name != f"{package}.{name}":
                raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
    setattr(sys.modules[package], name, value)
    return value
