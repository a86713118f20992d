"""The pictures of the docs, made by the project itself so they never go stale: for each
game a seeded game played through the table service to a moment worth showing, its table
drawn as Discord's dark theme shows it, and the story picture the same game ends with.

    python -m tools.screenshots docs/img

writes farkle-table.png, kuriki-table.png, crap-table.png and farkle-story.png,
kuriki-story.png, crap-story.png into the folder (created if missing). The same seeds give
the same pictures, so a change of a table shows up as a change of its picture."""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass
from pathlib import Path

from tools.discord_look import Look, draw_message
from tools.seeded_tables import (
    PersonMove,
    Stage,
    crap_moment,
    crap_move,
    farkle_moment,
    farkle_move,
    kuriki_moment,
    kuriki_move,
    picture_faces,
    play,
)


@dataclass(frozen=True)
class Scene:
    kind: str
    seed: int
    options: dict[str, object]
    move: PersonMove
    moment: Stage


SCENES = (
    Scene("farkle", 1, {"bots": 1}, farkle_move, farkle_moment),
    Scene("kuriki", 1, {"bots": 2}, kuriki_move, kuriki_moment),
    Scene("crap", 1, {"bots": 2}, crap_move, crap_moment),
)


def expected(folder: Path) -> list[Path]:
    """The files `make` writes into `folder`."""
    return [folder / f"{s.kind}-{what}.png" for s in SCENES for what in ("table", "story")]


async def make(folder: Path) -> list[Path]:
    """Play every scene and write its two pictures into `folder`; returns the files."""
    folder.mkdir(parents=True, exist_ok=True)
    _, emojis = picture_faces()
    written = []
    for scene in SCENES:
        moment = await play(scene.kind, scene.seed, scene.options, scene.move, scene.moment)
        table = draw_message(moment.table, Look(moment.names, moment.now, emojis))
        for what, data in (("table", table), ("story", moment.story)):
            path = folder / f"{scene.kind}-{what}.png"
            path.write_bytes(data)
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.screenshots", description=__doc__)
    p.add_argument("folder", type=Path, nargs="?", default=Path("docs/img"))
    args = p.parse_args(argv)
    for path in asyncio.run(make(args.folder)):
        print(f"{path} ({path.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
