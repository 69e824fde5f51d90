"""Tools/screenshot-device.py (README, "A screenshot in CI"): a device's page as a PNG, signed in, with the system's
python3 and chromium alone, outside this suite's virtual environment."""

import os
import struct
import subprocess

from conftest import ROOT

SCRIPT = ROOT / "Tools" / "screenshot-device.py"
CATEGORIES = [{"identifier": "msg", "categorySummaryFormat": "%u more messages from %@"}]


def screenshot(*arguments):
    """The script run by Debian's own python3 in isolated mode (no virtual environment, no user site, no PYTHON*
    variables), with a PATH that has chromium and nothing of the suite's."""
    return subprocess.run(["/usr/bin/python3", "-I", str(SCRIPT), *map(str, arguments)], capture_output=True, text=True,
                          timeout=90, env={"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")})


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_a_device_page_is_taken_signed_in_and_a_wrong_secret_is_refused(huddle, tmp_path):
    phone = huddle.device(topic="com.example.chat", categories=CATEGORIES, name="Screenshot iPhone")
    payload = {"aps": {"alert": {"title": "Teja", "body": "Pizza?", "summary-arg": "Teja"}, "thread-id": "team", "category": "msg"}}
    assert huddle.push(phone, payload).status_code == 200
    page = f"{huddle.url}/devices/{phone.token}"

    out = tmp_path / "center.png"
    run = screenshot(page + "?locked=true", phone.secret, out, "--size", "500x700", "--scale", "2")
    assert run.returncode == 0, run.stdout + run.stderr
    # The page reached was the device's (its title is the device's name; the sign-in form's is not), at its address.
    assert run.stdout == f"{out}: Screenshot iPhone · Huddle ({page}?locked=true), 500x700 at 2x\n", run.stdout + run.stderr
    assert png_size(out) == (1000, 1400)

    refused = tmp_path / "refused.png"
    wrong = screenshot(page, "0" * 64, refused)
    assert wrong.returncode == 1 and not refused.exists(), wrong.stdout + wrong.stderr
    assert "refused the secret" in wrong.stderr and "401" in wrong.stderr, wrong.stderr


def test_an_iphone_with_an_android_phone_beside_it(huddle, tmp_path):
    phone = huddle.device(topic="com.example.chat", categories=CATEGORIES, name="Pair iPhone")
    pixel = huddle.android_device(package="com.example.chat", name="Pair Pixel")
    page = f"{huddle.url}/devices/{phone.token}?beside={pixel.token}"

    asked = screenshot(page, phone.secret, tmp_path / "pair.png")
    assert asked.returncode == 2 and "--beside-secret" in asked.stderr, asked.stdout + asked.stderr

    out = tmp_path / "pair.png"
    run = screenshot(page, phone.secret, out, "--beside-secret", pixel.secret, "--size", "1280x900")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith(f"{out}: Pair iPhone · Huddle ({page}), 1280x900"), run.stdout
    assert png_size(out) == (1280, 900)
