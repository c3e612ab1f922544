"""Draw the page's PNG icons (solver/web/static/icon-192.png, icon-512.png) from icon.svg.

The web app manifest names PNG icons of 192 and 512 pixels, which Chromium's installability
check asks for; they are the SVG icon drawn by the system's headless Chromium, full bleed (the
icon is its own background, so it also serves as a maskable icon). Run again after icon.svg
changes: `python scripts/web_icons.py`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "solver" / "web" / "static"
SIZES = (192, 512)


def main() -> int:
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    svg = (STATIC / "icon.svg").read_text(encoding="utf-8")
    for size in SIZES:
        with tempfile.TemporaryDirectory() as tmp:
            page = Path(tmp) / "icon.html"
            page.write_text(
                "<!doctype html><html><body style='margin:0;background:#1d3557'>"
                f"<div style='width:{size}px;height:{size}px'>"
                + svg.replace("<svg ", f"<svg width='{size}' height='{size}' ")
                + "</div></body></html>", encoding="utf-8")
            out = STATIC / f"icon-{size}.png"
            subprocess.run([chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                            "--hide-scrollbars", "--force-device-scale-factor=1",
                            f"--window-size={size},{size}", f"--user-data-dir={tmp}/profile",
                            f"--screenshot={out}", page.as_uri()], check=True,
                           capture_output=True, timeout=60)
            print(f"wrote {out.relative_to(STATIC.parent.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
