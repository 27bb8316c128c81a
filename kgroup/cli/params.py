"""The classes of kgroup's commands: Typer's own, through its public ``cls=`` argument.

The app's commands are made with ``cls=KgroupCommand`` / ``cls=KgroupGroup`` (subclasses of
``typer.core.TyperCommand`` / ``TyperGroup``). Typer builds and coerces every parameter
itself; the subclasses only

1. label flags with nothing in help: Typer names a value by its metavar, or else by its type
   (``<bool>`` after a flag, which takes no value); a flag without a metavar of its own is
   given an empty one, as ``typer.Option(metavar="")`` would, here once for every flag
   (the help option included) rather than at each declaration;
2. give the help option the default a flag declared ``= False`` has: Typer takes a bool flag's
   bool value as it is, but coerces a missing one (None) through a pydantic adapter it builds
   then, which ``kgroup COMMAND --help`` would load for the root's help option alone;
3. run a command's body with the garbage collector on and start-up's objects frozen (see
   :class:`KgroupCommand`);
4. turn a closed pipe (stdout's reader went away: ``kgroup lag G1 | head -1``) into
   :class:`ReaderGone`, which ``kgroup.cli`` ends with exit 0: the framework would take the
   ``BrokenPipeError`` (an OSError) itself and exit 1, kgroup's "flagged".
"""
from __future__ import annotations

import gc
from typing import Any

from typer.core import TyperCommand, TyperGroup, TyperOption


class ReaderGone(Exception):
    """The reader of kgroup's output went away (a closed pipe): nothing more is wanted, the exit
    is 0. Not an OSError, so that the CLI framework lets it through to ``kgroup.cli``."""


def _reader_kept(call: Any, *args: Any) -> Any:
    """``call(*args)``, a closed pipe raised as :class:`ReaderGone`."""
    try:
        return call(*args)
    except BrokenPipeError:
        raise ReaderGone() from None


def _help_written(call: Any, *args: Any) -> Any:
    """``call(*args)`` writing help. Typer writes it through rich, whose console answers a closed
    pipe with ``SystemExit(1)`` (``rich.console.Console.on_broken_pipe``, documented): writing
    help raises nothing else, so that is :class:`ReaderGone` here."""
    try:
        return _reader_kept(call, *args)
    except SystemExit:
        raise ReaderGone() from None


def _unlabelled_flags(params: list[Any]) -> None:
    """An empty metavar for each flag that has none (help shows no type label after it)."""
    for p in params:
        if isinstance(p, TyperOption) and p.is_flag and p.metavar is None:
            p.metavar = ""


def _help_flag(option: Any) -> Any:
    """The help option (None: the command has none) as kgroup's own flags are: no type label,
    False when not given."""
    if option is not None:
        _unlabelled_flags([option])
        if option.default is None:
            option.default = False
    return option


class KgroupCommand(TyperCommand):
    """A Typer command whose flags carry no type label in help.

    ``kgroup.cli`` starts a command with the cyclic garbage collector off (start-up builds
    modules, classes and the command, nothing cyclic to reclaim); the command body runs
    with everything built so far frozen out of the collector's way and the collector on
    again, unless the command turns it off for its own (bounded) life, as whatif does.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _unlabelled_flags(self.params)

    def invoke(self, ctx: Any) -> Any:
        gc.freeze()
        gc.enable()
        return _reader_kept(super().invoke, ctx)

    def get_help_option(self, ctx: Any) -> Any:
        return _help_flag(super().get_help_option(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _help_written(super().format_help, ctx, formatter)


class KgroupGroup(TyperGroup):
    """The root group, same for its own flags (``--version``, ``--help``); a closed pipe while it
    parses (``kgroup --help | head -1``) or runs a command (parsing its options, its help) is
    :class:`ReaderGone` too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _unlabelled_flags(self.params)

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        return _reader_kept(lambda: super(KgroupGroup, self).make_context(*args, **kwargs))

    def invoke(self, ctx: Any) -> Any:
        return _reader_kept(super().invoke, ctx)

    def get_help_option(self, ctx: Any) -> Any:
        return _help_flag(super().get_help_option(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _help_written(super().format_help, ctx, formatter)
