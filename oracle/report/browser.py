"""Render an HTML report in headless Chromium and check that its figures really rendered.

Used by the tests and by `make report-screenshot`:

    python -m oracle.report.browser REPORT.html [--screenshot OUT.png]

`probe` loads a copy of the page with a small script appended that records, for every
<img>, whether it decoded (naturalWidth) and its box on the page; `rendering_problems`
turns that record into a list of problems (empty means every figure rendered), and
`blank_figures` looks at a screenshot's pixels inside each figure's box. Chromium is the
distribution's package (`apt-get install chromium`), run with networking features off.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]
WINDOW = (1280, 1800)

# Appended to a copy of the page: after the load event (images decoded or failed), write one
# JSON record into the DOM, which --dump-dom then prints.
PROBE_SCRIPT = """<script>
window.addEventListener('load', function () {
  var box = function (el) { var r = el.getBoundingClientRect();
    return {x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height}; };
  var imgs = Array.prototype.map.call(document.images, function (im, i) {
    var f = im.closest('figure');
    return {index: i, figure: f ? f.id : null, complete: im.complete, naturalWidth: im.naturalWidth,
            naturalHeight: im.naturalHeight, box: box(im)}; });
  var figs = Array.prototype.map.call(document.querySelectorAll('figure'), function (f) {
    return {id: f.id, images: f.querySelectorAll('img').length, box: box(f)}; });
  var links = Array.prototype.map.call(document.querySelectorAll('a[href^="#"]'), function (a) {
    var id = decodeURIComponent(a.getAttribute('href').slice(1));
    return {href: a.getAttribute('href'), target: document.getElementById(id) !== null}; });
  var out = document.createElement('pre');
  out.id = 'render-probe';
  out.textContent = JSON.stringify({images: imgs, figures: figs, links: links,
                                    page: [document.documentElement.scrollWidth,
                                           document.documentElement.scrollHeight],
                                    viewport: [window.innerWidth, window.innerHeight]});
  document.body.appendChild(out);
});
</script>"""


class ChromiumMissing(RuntimeError):
    """No Chromium binary on PATH."""


def find_chromium() -> Optional[str]:
    """The path of a Chromium binary, or None."""
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _chromium(chromium: Optional[str]) -> str:
    exe = chromium or find_chromium()
    if not exe:
        raise ChromiumMissing("chromium is not installed: run 'make chromium-tools' as root "
                              "(apt-get install -y chromium)")
    return exe


def _run(exe: str, args: list[str], workdir: Path, timeout: int) -> subprocess.CompletedProcess:
    cmd = [exe, *FLAGS, f"--user-data-dir={workdir / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=workdir)


def probe(html_path: str | Path, chromium: Optional[str] = None, timeout: int = 180,
          window: tuple[int, int] = WINDOW) -> dict[str, Any]:
    """Load the page in headless Chromium and return what the probe script recorded."""
    exe = _chromium(chromium)
    page = Path(html_path).resolve()
    text = page.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="absorb-probe-") as tmp:
        work = Path(tmp)
        # The copy sits next to the original so that relative links resolve the same way.
        at = text.rfind("</body>")
        probed = text[:at] + PROBE_SCRIPT + text[at:] if at >= 0 else text + PROBE_SCRIPT
        copy = page.with_name(f".probe-{page.stem}-{work.name}.html")
        try:
            copy.write_text(probed, encoding="utf-8")
        except OSError:  # a read-only folder: figures are data URIs, so only links would differ
            copy = work / "page.html"
            copy.write_text(probed, encoding="utf-8")
        try:
            r = _run(exe, ["--dump-dom", "--virtual-time-budget=10000",
                           f"--window-size={window[0]},{window[1]}", copy.as_uri()], work, timeout)
        finally:
            copy.unlink(missing_ok=True)
    m = re.search(r"<pre id=\"render-probe\">(.*?)</pre>", r.stdout, re.S)
    if not m:
        raise RuntimeError(f"chromium did not run the probe (exit {r.returncode}): "
                           + (r.stderr.strip().splitlines() or ["no output"])[-1])
    return json.loads(html.unescape(m.group(1)))


def rendering_problems(record: dict[str, Any]) -> list[str]:
    """Everything wrong with the images of a probed page: none, broken, or drawn with an empty box."""
    problems = []
    imgs = record.get("images", [])
    if not imgs:
        problems.append("the page has no images")
    for im in imgs:
        where = f"image {im['index']}" + (f" (figure {im['figure']})" if im.get("figure") else "")
        if not im.get("complete") or not im.get("naturalWidth") or not im.get("naturalHeight"):
            problems.append(f"{where} did not decode: a broken image (naturalWidth {im.get('naturalWidth')})")
        box = im.get("box") or {}
        if not box.get("w") or not box.get("h"):
            problems.append(f"{where} has an empty box on the page ({box.get('w')} x {box.get('h')})")
    for f in record.get("figures", []):
        if f.get("images", 0) == 0:
            problems.append(f"figure {f.get('id')} holds no image")
        box = f.get("box") or {}
        width = (record.get("viewport") or [0])[0]
        if width and box.get("x", 0) + box.get("w", 0) > width + 1:
            problems.append(f"figure {f.get('id')} is wider than the window ({box.get('w')} px from "
                            f"x = {box.get('x')}, window {width} px)")
    broken = sorted({ln["href"] for ln in record.get("links", []) if not ln.get("target")})
    if broken:
        problems.append(f"{len(broken)} link(s) inside the page lead nowhere: {', '.join(broken[:10])}")
    return problems


def screenshot(html_path: str | Path, out_png: str | Path, chromium: Optional[str] = None,
               window: tuple[int, int] = WINDOW, timeout: int = 180) -> Path:
    """A PNG of the top of the page, window-sized."""
    exe = _chromium(chromium)
    out = Path(out_png).resolve()
    with tempfile.TemporaryDirectory(prefix="absorb-shot-") as tmp:
        r = _run(exe, [f"--screenshot={out}", "--virtual-time-budget=10000",
                       f"--window-size={window[0]},{window[1]}", Path(html_path).resolve().as_uri()],
                 Path(tmp), timeout)
    if not out.exists() or out.stat().st_size == 0:
        raise RuntimeError(f"chromium wrote no screenshot (exit {r.returncode}): "
                           + (r.stderr.strip().splitlines() or ["no output"])[-1])
    return out


def blank_figures(png: str | Path, record: dict[str, Any], min_colors: int = 8) -> list[str]:
    """Figures inside the screenshot whose pixels are (nearly) one colour: drawn as blank."""
    from PIL import Image  # comes with matplotlib, the report's extra

    im = Image.open(png).convert("RGB")
    W, H = im.size
    out = []
    checked = 0
    for f in record.get("images", []):
        b = f.get("box") or {}
        x0, y0 = int(b.get("x", 0)), int(b.get("y", 0))
        x1, y1 = int(x0 + b.get("w", 0)), int(y0 + b.get("h", 0))
        if x1 <= x0 or y1 <= y0 or y1 > H or x1 > W:
            continue  # outside the screenshot
        checked += 1
        colours = im.crop((x0, y0, x1, y1)).getcolors(maxcolors=1 << 16)
        n = len(colours) if colours is not None else 1 << 16
        if n < min_colors:
            out.append(f"image {f['index']} (figure {f.get('figure')}) is blank in the screenshot: "
                       f"{n} colour(s) in its {x1 - x0} x {y1 - y0} box")
    if checked == 0:
        out.append("no image lies inside the screenshot")
    return out


def window_to_first_figure(record: dict[str, Any], height: int = WINDOW[1]) -> tuple[int, int]:
    """A window at least `height` tall that reaches the bottom of the page's first image, wherever
    the claims table above it puts it (the table grows with the registry)."""
    bottoms = [im["box"]["y"] + im["box"]["h"] for im in record.get("images", []) if im.get("box")]
    return WINDOW[0], max(height, int(min(bottoms)) + 40 if bottoms else height)


def main(argv: Optional[list[str]] = None) -> int:
    """Check a report's figures in Chromium; optionally save a screenshot of its top."""
    p = argparse.ArgumentParser(prog="python -m oracle.report.browser", description=main.__doc__)
    p.add_argument("report", help="an HTML report written by absorb audit --report")
    p.add_argument("--screenshot", metavar="PNG", help="also save a screenshot of the top of the page")
    p.add_argument("--height", type=int, default=WINDOW[1], help="least window height of the screenshot (it always reaches the first figure)")
    args = p.parse_args(argv)
    try:
        rec = probe(args.report)
        problems = rendering_problems(rec)
        if args.screenshot:
            screenshot(args.report, args.screenshot, window=window_to_first_figure(rec, args.height))
            problems += blank_figures(args.screenshot, rec)
    except (ChromiumMissing, RuntimeError, OSError, subprocess.SubprocessError) as e:
        print(f"oracle.report.browser: error: {e}", file=sys.stderr)
        return 2
    n = len(rec.get("images", []))
    if problems:
        print("\n".join(problems))
        return 1
    print(f"{n} images rendered" + (f"; screenshot {args.screenshot}" if args.screenshot else ""))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
