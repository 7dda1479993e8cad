"""Command lines of the experiment tools (nbfft-experiments, nbfft-model): argparse, with an
unknown option named before a missing required argument."""
from __future__ import annotations

import argparse
import re
import sys
from typing import Optional, Sequence

_NUMBER = re.compile(r"-\.?\d")  # a negative number is a value, not an option


def _command(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.ArgumentParser:
    """The subcommand's parser argv[0] names, else parser itself."""
    for action in parser._actions:  # argparse keeps its actions here; there is no public list
        if isinstance(action, argparse._SubParsersAction) and argv and argv[0] in action.choices:
            return action.choices[argv[0]]
    return parser


def parse(parser: argparse.ArgumentParser, argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    """parser.parse_args(argv), but an option the command does not know is the error even
    when a required argument is missing too: argparse reports the missing one first, so a
    misspelt `--modle` came out as "the following arguments are required: --model"."""
    args = list(sys.argv[1:] if argv is None else argv)
    command = _command(parser, args)
    known = [s for a in command._actions for s in a.option_strings]
    for token in args[0 if command is parser else 1:]:
        if token == "--":
            break
        if not token.startswith("-") or _NUMBER.match(token):
            continue
        name = token.split("=", 1)[0]
        # argparse takes an unambiguous prefix of a long option (--mod for --model)
        if not any(k == name or (name.startswith("--") and k.startswith(name)) for k in known):
            command.error(f"unrecognized arguments: {token}")
    return parser.parse_args(args)
