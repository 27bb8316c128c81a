"""Option and argument values coerced without building a pydantic TypeAdapter per parameter.

Typer 0.29 coerces every parameter value through a pydantic ``TypeAdapter`` built on first
use; importing pydantic and building the adapters of one command costs more than the rest
of an offline command. The parameters kgroup declares are plain: ``str``, ``int`` (with a
minimum), ``float``, ``Path``, an ``Enum`` of choices and lists of those. For them this
module coerces the common values itself, to exactly what Typer's adapter returns, and
hands everything else (a value that is not plainly valid, so that the error message is
Typer's own, or an annotation it does not know) to Typer's adapter, built then.

This relies on Typer's runtime-parameter hook (``_TyperParameter._runtime_param``, filled
lazily by ``typer._coercion.build_runtime_param``), which is why pyproject.toml pins typer
to the 0.29 series; tests/cli/test_cli_startup.py checks the coerced values against Typer's
own adapters.
"""
from __future__ import annotations

import gc
import os
from enum import Enum
from pathlib import Path
from typing import Any, Callable, get_args, get_origin

from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
from typer._param_types import coerce_cli_choice
from typer.core import TyperCommand, TyperGroup


def _digits(text: str, most: int) -> bool:
    """1 to ``most`` ASCII digits and nothing else."""
    return 0 < len(text) <= most and text.isascii() and text.isdigit()


def _decimal(text: str) -> bool:
    """Digits, optionally a point and more digits: what float() and pydantic read alike."""
    whole, point, fraction = text.partition(".")
    return _digits(whole, 15) and (not point or _digits(fraction, 15))


class _Delegate(Exception):
    """The value is not one this module coerces: Typer's adapter decides (and words any error)."""


Leaf = Callable[[Any, Any], Any]  # (value, ctx) -> coerced value, or raise _Delegate


def _in_range(number: Any, info: Any) -> Any:
    if (info.min is not None and number < info.min) or (info.max is not None and number > info.max):
        raise _Delegate
    return number


def _leaf(annotation: Any, info: Any) -> Leaf | None:
    if info.parser is not None or info.clamp:
        return None
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        choices, case_sensitive = list(annotation), info.case_sensitive

        def choice(value: Any, ctx: Any) -> Any:
            try:
                return coerce_cli_choice(value, choices=choices, case_sensitive=case_sensitive, ctx=ctx)
            except ValueError:
                raise _Delegate from None
        return choice
    if annotation is bool:
        def flag(value: Any, ctx: Any) -> bool:
            if type(value) is bool:
                return value
            raise _Delegate
        return flag
    if annotation is str:
        def string(value: Any, ctx: Any) -> str:
            if type(value) is str:
                return value
            raise _Delegate
        return string
    if annotation is int:
        def integer(value: Any, ctx: Any) -> int:
            if type(value) is int:
                return _in_range(value, info)
            if type(value) is str and _digits(value, 18):
                return _in_range(int(value), info)
            raise _Delegate
        return integer
    if annotation is float:
        def real(value: Any, ctx: Any) -> float:
            if type(value) is float:
                return _in_range(value, info)
            if type(value) is str and _decimal(value):
                return _in_range(float(value), info)
            raise _Delegate
        return real
    plain_path = (info.path_type is None and not info.exists and not info.resolve_path and info.file_okay
                  and info.dir_okay and not info.writable and not info.allow_dash)
    if annotation is Path and plain_path:
        def path(value: Any, ctx: Any) -> Path:
            if type(value) is not str:
                raise _Delegate
            rv = Path(value)
            try:
                os.stat(rv)
            except OSError:
                return rv  # need not exist
            if info.readable and not os.access(rv, os.R_OK):
                raise _Delegate  # Typer's message
            return rv
        return path
    return None


def fast_coercion(descriptor: TypeDescriptor) -> Leaf | None:
    """A coercion of ``descriptor``'s values equal to Typer's adapter, for the types above."""
    if descriptor.file_annotation is not None:
        return None
    annotation, info = descriptor.annotation, descriptor.parameter_info
    if get_origin(annotation) is list:
        (item_type,) = get_args(annotation)
        item = _leaf(item_type, info)
        if item is None:
            return None

        def items(value: Any, ctx: Any) -> list[Any]:
            values = value if isinstance(value, (list, tuple)) else [value]
            return [item(v, ctx) for v in values]
        return items
    return _leaf(annotation, info)


class FastRuntimeParam(RuntimeParam):
    """Typer's runtime parameter (a frozen dataclass) with :func:`fast_coercion` in front."""

    coerce_fast: Leaf
    descriptor: TypeDescriptor

    def __init__(self, descriptor: TypeDescriptor, coerce_fast: Leaf) -> None:
        super().__init__(descriptor.parameter_info, descriptor.annotation)
        object.__setattr__(self, "coerce_fast", coerce_fast)
        object.__setattr__(self, "descriptor", descriptor)

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        try:
            return self.coerce_fast(value, ctx)
        except _Delegate:
            slow = build_runtime_param(self.descriptor)
            return slow._coerce_value(value, param=param, ctx=ctx)


def _install(params: list[Any]) -> None:
    for p in params:
        descriptor = getattr(p, "type_descriptor", None)
        if descriptor is None or getattr(p, "_runtime_param", True) is not None:
            continue
        fast = fast_coercion(descriptor)
        if fast is not None:
            p._runtime_param = FastRuntimeParam(descriptor, fast)


class KgroupCommand(TyperCommand):
    """A Typer command whose parameters coerce through :class:`FastRuntimeParam`.

    ``kgroup.cli`` starts a command with the cyclic garbage collector off (start-up builds
    modules, classes and the command, nothing cyclic to reclaim); the command body runs
    with everything built so far frozen out of the collector's way and the collector on
    again, unless the command turns it off for its own (bounded) life, as whatif does.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _install(self.params)

    def invoke(self, ctx: Any) -> Any:
        gc.freeze()
        gc.enable()
        return super().invoke(ctx)

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None:
            _install([option])
        return option


class KgroupGroup(TyperGroup):
    """The root group, same for its own options (``--version``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _install(self.params)

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None:
            _install([option])
        return option
