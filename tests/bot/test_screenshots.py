"""The docs' pictures are made by `python -m tools.screenshots`: the command must keep
working, and each picture must show something (a table drawn, not an empty canvas)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from tools.screenshots import expected, make


async def test_every_picture_is_made_and_shows_something(tmp_path: Path) -> None:
    written = await make(tmp_path / "img")
    assert sorted(written) == sorted(expected(tmp_path / "img"))
    for path in written:
        assert path.stat().st_size > 3_000, path.name
        assert path.stat().st_size < 150_000, f"{path.name}: keep the docs' pictures small"
        with Image.open(path) as image:
            assert image.format == "PNG"
            width, height = image.size
            assert width >= 480 and height >= 300, (path.name, image.size)  # 480: two score pads
            colours = image.convert("RGB").getcolors(maxcolors=1_000_000) or []
            assert len(colours) > 50, f"{path.name} is nearly blank"
            if path.name.endswith("-table.png"):
                # the embed's colour bar and some green or blurple buttons are drawn
                rgb = {c for _, c in colours}
                assert (88, 101, 242) in rgb, path.name
