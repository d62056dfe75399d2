"""Real headless Chromium renders the profile and the history chart shows (checked from the PNG pixels)."""

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from public.templatetags.ratings_public import CHART_COLOURS
from tests.public.conftest import build_federation

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
]

pytestmark = pytest.mark.browser


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """A tiny PNG decoder (8-bit RGB / RGBA, non-interlaced): width, height and the unfiltered rows."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, idat = 8, b""
    while position < len(data):
        (length,), kind = (
            struct.unpack(">I", data[position : position + 4]),
            data[position + 4 : position + 8],
        )
        chunk = data[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8, (depth, colour_type, interlace)
            assert colour_type in (2, 6), (depth, colour_type, interlace)
            assert interlace == 0, (depth, colour_type, interlace)
            channels = 3 if colour_type == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        position += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[x] = (line[x] + predictor) & 0xFF
        rows.append(bytes(line) if channels == 3 else bytes(b for i, b in enumerate(line) if i % 4 != 3))
        previous = line
    return width, height, rows


def pixels_of(colour_hex: str, width: int, rows: list[bytes], tolerance: int = 10) -> list[tuple[int, int]]:
    target = tuple(int(colour_hex[i : i + 2], 16) for i in (1, 3, 5))
    found = []
    for y, row in enumerate(rows):
        for x in range(width):
            r, g, b = row[3 * x : 3 * x + 3]
            if abs(r - target[0]) <= tolerance and abs(g - target[1]) <= tolerance and abs(b - target[2]) <= tolerance:
                found.append((x, y))
    return found


def screenshot(url: str, path: Path, size: str = "1000,1500") -> bytes:
    if CHROMIUM is None:
        pytest.fail("Chromium is not installed: apt-get install -y chromium")
    subprocess.run(
        [CHROMIUM, *CHROMIUM_FLAGS, f"--window-size={size}", f"--screenshot={path}", url],
        check=True,
        timeout=120,
        capture_output=True,
    )
    return path.read_bytes()


def test_history_chart_renders_in_headless_chromium(live_server, transactional_db, tmp_path):
    federation = build_federation(players=12, lists=12, rapid_lists=6)
    player = federation.players[1]
    data = screenshot(f"{live_server.url}/players/{player.id_number}/", tmp_path / "profile.png")
    width, _height, rows = decode_png(data)
    standard = pixels_of(CHART_COLOURS["standard"], width, rows)
    rapid = pixels_of(CHART_COLOURS["rapid"], width, rows)
    # Without the chart the colour only fills two small swatches at the left; the line crosses the chart.
    xs = [x for x, _ in standard]
    assert len(standard) > 800, len(standard)
    assert max(xs) - min(xs) > width * 0.6, (min(xs), max(xs))
    assert rapid
    assert max(x for x, _ in rapid) > width * 0.6
    # and the stylesheet was served by the project (styled header band, not the browser's white default)
    header = rows[5]
    assert header[3 * 500 : 3 * 500 + 3] == bytes((0x0F, 0x2A, 0x4A))


def test_profile_fits_a_phone_screen_without_horizontal_scrolling(live_server, transactional_db, tmp_path):
    federation = build_federation(players=12, lists=6, rapid_lists=2)
    data = screenshot(
        f"{live_server.url}/players/{federation.star.id_number}/", tmp_path / "phone.png", size="390,2600"
    )
    width, _, rows = decode_png(data)
    assert width == 390
    standard = pixels_of(CHART_COLOURS["standard"], width, rows)
    assert standard
    assert max(x for x, _ in standard) > width * 0.6  # the chart scales down to the screen
