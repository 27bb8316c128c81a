"""How kgroup's commands hold their parameters: help labels, and start-up without pydantic.

Everything here goes through Typer's public classes: the app's commands are made with
``cls=KgroupCommand`` / ``cls=KgroupGroup`` (subclasses of ``typer.core.TyperCommand`` /
``TyperGroup``), and a command turns the parameter objects Typer gives it into
:class:`KgroupOption` / :class:`KgroupArgument` (subclasses of ``typer.core.TyperOption`` /
``TyperArgument``; Typer has no per-parameter ``cls=``). No private module of Typer is
imported and no Typer class is changed.

1. Help (always): a value is named by the metavar the command chose (HOST:PORT, FILE,
   GROUP) or not at all, never by the framework's type labels (``<bool>`` after a flag,
   ``<str>`` after an argument that already names itself): the two classes answer
   ``display_type_rich`` so.

2. Start-up (the fast path): Typer 0.29 coerces every parameter value, given or not, through
   a pydantic ``TypeAdapter`` built on first use; importing pydantic and building one
   command's adapters costs more than the rest of an offline command. kgroup's parameters
   are plain (``str``, ``int`` with a minimum, ``float``, ``Path``, an ``Enum`` of choices,
   lists of those), so :func:`fast_coercion` coerces plainly valid values itself, to exactly
   what Typer's adapter returns, and hands everything else (a value that is not plainly
   valid, so that the error is Typer's own, or a type it does not know) to Typer's own
   coercion, built then. This relies on how Typer 0.29 processes a value (it asks the
   parameter's ``get_runtime_param()`` for an object whose ``coerce(value, param=, ctx=)``
   gives the value), so it is taken only with a Typer whose behaviour is known here
   (:data:`KNOWN_TYPER`) and unless ``KGROUP_PLAIN_TYPER=1``: otherwise Typer coerces
   every value itself (correct, slower: pydantic loads). tests/cli/test_cli_startup.py
   checks the values against Typer's own coercion and that both paths print the same bytes;
   bench/startup_bench.py times both.
"""
from __future__ import annotations

import gc
import os
from enum import Enum
from pathlib import Path
from typing import Any, Callable, get_args, get_origin

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

PLAIN_ENV = "KGROUP_PLAIN_TYPER"  # set to 1: Typer coerces every value itself
KNOWN_TYPER = ("0.29.",)  # Typer series whose value processing the fast path was checked against


def fast_path() -> bool:
    """Is the fast coercion taken (a known Typer, not switched off)?"""
    return os.environ.get(PLAIN_ENV, "") in ("", "0") and typer.__version__.startswith(KNOWN_TYPER)


def _digits(text: str, most: int) -> bool:
    """1 to ``most`` ASCII digits and nothing else."""
    return 0 < len(text) <= most and text.isascii() and text.isdigit()


def _decimal(text: str) -> bool:
    """Digits, optionally a point and more digits: what float() and pydantic read alike."""
    whole, point, fraction = text.partition(".")
    return _digits(whole, 15) and (not point or _digits(fraction, 15))


class _Delegate(Exception):
    """The value is not one this module coerces: Typer's coercion decides (and words any error)."""


Leaf = Callable[[Any, Any], Any]  # (value, ctx) -> coerced value, or raise _Delegate


def _in_range(number: Any, info: Any) -> Any:
    if (info.min is not None and number < info.min) or (info.max is not None and number > info.max):
        raise _Delegate
    return number


def _choice(annotation: type[Enum], case_sensitive: bool) -> Leaf:
    """A member of the Enum, or its value as typed (in any case unless ``case_sensitive``)."""
    by_text: dict[str, Any] = {}
    for member in annotation:
        text = str(member.value)
        by_text.setdefault(text if case_sensitive else text.casefold(), member)

    def choice(value: Any, ctx: Any) -> Any:
        if isinstance(value, annotation):
            return value
        if type(value) is str and (ctx is None or ctx.token_normalize_func is None):
            member = by_text.get(value if case_sensitive else value.casefold())
            if member is not None:
                return member
        raise _Delegate
    return choice


def _leaf(annotation: Any, info: Any) -> Leaf | None:
    if info.parser is not None or info.clamp:
        return None
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return _choice(annotation, info.case_sensitive)
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


def fast_coercion(annotation: Any, info: Any) -> Leaf | None:
    """A coercion of the values of a parameter of type ``annotation`` (Typer's parameter info
    ``info``) equal to Typer's own, for the types above; None for any other."""
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


class FastCoercion:
    """What Typer 0.29 asks a parameter's ``get_runtime_param()`` for: ``coerce(value, param=, ctx=)``.
    An absent value is None (an empty tuple for a repeatable parameter), a plainly valid one is
    coerced here, anything else by Typer's own coercion of the parameter."""

    __slots__ = ("leaf",)

    def __init__(self, leaf: Leaf) -> None:
        self.leaf = leaf

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        many = param.multiple or param.nargs == -1
        if value is None:
            return () if many else None
        if not (many and isinstance(value, str)):  # a lone string for a list: Typer's error
            try:
                return self.leaf(value, ctx)
            except _Delegate:
                pass
        return param.typer_runtime_param().coerce(value, param=param, ctx=ctx)


class KgroupOption(TyperOption):
    """A Typer option whose help names its value by its metavar (a flag: nothing), and that
    coerces through :class:`FastCoercion` when one is set."""

    fast: FastCoercion | None = None

    def display_type_rich(self, ctx: Any) -> str | None:
        if self.metavar is None and self.is_flag:
            return None
        return super().display_type_rich(ctx)

    def get_runtime_param(self) -> Any:
        return self.fast if self.fast is not None else super().get_runtime_param()

    def typer_runtime_param(self) -> Any:
        return super().get_runtime_param()


class KgroupArgument(TyperArgument):
    """A Typer argument named by its metavar alone in help (no type label beside it), and
    that coerces through :class:`FastCoercion` when one is set."""

    fast: FastCoercion | None = None

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def get_runtime_param(self) -> Any:
        return self.fast if self.fast is not None else super().get_runtime_param()

    def typer_runtime_param(self) -> Any:
        return super().get_runtime_param()


_OURS: dict[type, type] = {TyperOption: KgroupOption, TyperArgument: KgroupArgument}


def _adopt(params: list[Any], fast: bool) -> None:
    """Make Typer's parameter objects kgroup's (same state, the subclass's methods)."""
    for p in params:
        ours = _OURS.get(type(p))
        if ours is None:
            continue
        p.__class__ = ours
        if fast:
            descriptor = p.type_descriptor
            leaf = None if descriptor.file_annotation is not None else fast_coercion(descriptor.annotation,
                                                                                     descriptor.parameter_info)
            if leaf is not None:
                p.fast = FastCoercion(leaf)


class KgroupCommand(TyperCommand):
    """A Typer command whose parameters are :class:`KgroupOption` / :class:`KgroupArgument`.

    ``kgroup.cli`` starts a command with the cyclic garbage collector off (start-up builds
    modules, classes and the command, nothing cyclic to reclaim); the command body runs
    with everything built so far frozen out of the collector's way and the collector on
    again, unless the command turns it off for its own (bounded) life, as whatif does.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fast_path = fast_path()
        _adopt(self.params, self.fast_path)

    def invoke(self, ctx: Any) -> Any:
        gc.freeze()
        gc.enable()
        return super().invoke(ctx)

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None:
            _adopt([option], self.fast_path)
        return option


class KgroupGroup(TyperGroup):
    """The root group, same for its own options (``--version``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fast_path = fast_path()
        _adopt(self.params, self.fast_path)

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None:
            _adopt([option], self.fast_path)
        return option
