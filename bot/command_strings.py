"""What Discord accepts as a slash command's name, description or choice in any language: the
command Translator (bot/translator.py) leaves a translation out that Discord would refuse, and
tools/catalogues.py reports it when the catalogues are checked."""

from __future__ import annotations

import re

#: Command names, group names and option names: what Discord accepts (lower case).
NAME_CONTEXTS = ("command_name", "group_name", "parameter_name")
VALID_NAME = re.compile(r"^[-_\w]{1,32}$")
#: Discord's length limits for each kind of command string.
LIMITS = {
    "command_name": 32,
    "group_name": 32,
    "parameter_name": 32,
    "command_description": 100,
    "group_description": 100,
    "parameter_description": 100,
    "choice_name": 100,
}


def command_fault(context: str, text: str) -> str | None:
    """Why Discord would refuse `text` as a command string of `context` (a name that is not
    lower case or has spaces, a description over 100 characters), else None."""
    if context in NAME_CONTEXTS and not (VALID_NAME.match(text) and text == text.lower()):
        return f"{text!r} is no valid command name (lower case, no spaces, 1-32)"
    limit = LIMITS.get(context)
    if limit is not None and len(text) > limit:
        return f"longer than Discord's {limit} characters"
    return None
