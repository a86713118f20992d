"""The fake's checks of files and application emojis: it must refuse what Discord refuses,
or the picture tests prove little."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import aiohttp
from PIL import Image

from tests.e2e.fake_discord import MAX_EMOJI_BYTES, FakeDiscord
from tests.e2e.harness import TABLE


def png(size: int = 128) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", (size, size), (200, 30, 40, 255)).save(out, format="PNG")
    return out.getvalue()


def data_uri(raw: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(raw).decode()


async def call(
    fake: FakeDiscord, method: str, path: str, *, json_body: Any = None, form: Any = None
) -> tuple[int, Any]:
    headers = {"Authorization": f"Bot {fake.token}"}
    async with (
        aiohttp.ClientSession(headers=headers) as http,
        http.request(method, fake.api_url + path, json=json_body, data=form) as r,
    ):
        body = await r.json() if r.content_type == "application/json" else None
        return r.status, body


def multipart(payload: dict[str, Any], files: list[bytes]) -> aiohttp.FormData:
    form = aiohttp.FormData()
    form.add_field("payload_json", json.dumps(payload), content_type="application/json")
    for i, data in enumerate(files):
        form.add_field(f"files[{i}]", data, filename=f"f{i}.png")
    return form


async def test_application_emojis_follow_discords_rules(fake: FakeDiscord) -> None:
    path = f"/applications/{fake.app_id}/emojis"
    status, made = await call(
        fake, "POST", path, json_body={"name": "d_1", "image": data_uri(png())}
    )
    assert status == 201 and made["name"] == "d_1"
    status, listed = await call(fake, "GET", path)
    assert status == 200 and [e["id"] for e in listed["items"]] == [made["id"]]

    taken = await call(fake, "POST", path, json_body={"name": "d_1", "image": data_uri(png())})
    assert taken[0] == 400 and "APPLICATION_EMOJI_NAME_ALREADY_TAKEN" in json.dumps(taken[1])
    too_big = b"\x89PNG" + b"\0" * MAX_EMOJI_BYTES
    refused = [
        {"name": "x", "image": data_uri(png())},  # too short
        {"name": "dé", "image": data_uri(png())},  # not [A-Za-z0-9_]
        {"name": "big", "image": data_uri(too_big)},
        {"name": "junk", "image": data_uri(b"not a picture")},
        {"name": "url", "image": "https://example.com/x.png"},
    ]
    for body in refused:
        status, answer = await call(fake, "POST", path, json_body=body)
        assert status == 400 and answer["code"] == 50035, body["name"]
    assert len(fake.violations) == len(refused)
    fake.violations.clear()

    fake.max_emojis = 1
    full = await call(fake, "POST", path, json_body={"name": "d_2", "image": data_uri(png())})
    assert full[0] == 400 and full[1]["code"] == 30008
    fake.emoji_refusal = (403, 50013, "Missing Permissions")
    assert (await call(fake, "POST", path, json_body={"name": "d_3", "image": data_uri(png())}))[1][
        "code"
    ] == 50013

    # A button may show the application's emoji, and no emoji it does not have.
    def with_emoji(emoji_id: str) -> dict[str, Any]:
        emoji = {"id": emoji_id, "name": "d_1"}
        button = {"type": 2, "style": 2, "label": "1", "custom_id": "b", "emoji": emoji}
        return {"content": "dice", "components": [{"type": 1, "components": [button]}]}

    messages = f"/channels/{TABLE}/messages"
    assert (await call(fake, "POST", messages, json_body=with_emoji(made["id"])))[0] == 200
    assert (await call(fake, "POST", messages, json_body=with_emoji("12345")))[0] == 400
    assert "Invalid emoji: 12345" in fake.violations.pop()

    assert (await call(fake, "DELETE", f"{path}/{made['id']}"))[0] == 204
    assert (await call(fake, "DELETE", f"{path}/{made['id']}"))[1]["code"] == 10014
    assert fake.emojis == {}


async def test_files_come_as_multipart_and_stay_until_an_edit_drops_them(
    fake: FakeDiscord,
) -> None:
    path = f"/channels/{TABLE}/messages"
    named = {"content": "story", "attachments": [{"id": 0, "filename": "f0.png"}]}
    status, data = await call(fake, "POST", path, form=multipart(named, [png()]))
    assert status == 200 and data["attachments"][0]["filename"] == "f0.png"
    msg = fake.message(int(data["id"]))
    assert msg is not None and len(msg.attachments) == 1
    assert msg.attachments[0]["content_type"] == "image/png" and msg.attachments[0]["width"] == 128
    assert msg.files[msg.attachments[0]["id"]] == png()
    assert [u.filename for u in fake.uploads] == ["f0.png"]

    # An edit without `attachments` keeps the file; one that lists none drops it.
    edit = f"{path}/{msg.id}"
    assert (await call(fake, "PATCH", edit, json_body={"content": "edited"}))[0] == 200
    assert len(msg.attachments) == 1
    assert (await call(fake, "PATCH", edit, json_body={"attachments": []}))[0] == 200
    assert msg.attachments == [] and msg.files == {}

    # Refused: a file its body does not name, eleven files, an empty file.
    unnamed = {"content": "x", "attachments": []}
    assert (await call(fake, "POST", path, form=multipart(unnamed, [png()])))[0] == 400
    eleven = {"attachments": [{"id": i, "filename": f"f{i}.png"} for i in range(11)]}
    assert (await call(fake, "POST", path, form=multipart(eleven, [png(8)] * 11)))[0] == 400
    assert (await call(fake, "POST", path, form=multipart(named, [b""])))[0] == 400
    said = "\n".join(fake.violations)
    assert all(w in said for w in ("not in attachments", "11 files (at most 10)", "empty file"))
    fake.violations.clear()
