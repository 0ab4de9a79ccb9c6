"""Drive headless Chromium over the DevTools protocol (``--remote-debugging-pipe``, stdlib only)
to look at ``mcsim show`` pages as a person would: open the file, press the arrow key, take
screenshots, collect script errors from the console.

Used by ``tests/test_show_browser.py``; also runnable by hand to look at the screenshots::

    python -m tests.chromium_check game.html OUTDIR [steps]
"""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--mute-audio",
]


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


def ensure_chromium() -> str:
    """The Chromium binary; installs Debian's ``chromium`` package when it is missing (we run as
    root here and in CI). Raises ``RuntimeError`` when that is impossible."""
    p = find_chromium()
    if p:
        return p
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "update"], ["apt-get", "install", "-y", "chromium"]):
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr.strip()[-300:]}")
    p = find_chromium()
    if not p:
        raise RuntimeError("chromium is still not on PATH after apt-get install")
    return p


class Browser:
    """One headless Chromium with a DevTools session on its first page (flattened protocol)."""

    def __init__(self, width: int = 1400, height: int = 1000):
        exe = ensure_chromium()
        self.profile = tempfile.mkdtemp(prefix="mcsim-chromium-")
        r_cmd, w_cmd = os.pipe()  # we write commands -> chromium reads fd 3
        r_ev, w_ev = os.pipe()  # chromium writes fd 4 -> we read
        self.proc = subprocess.Popen(
            [
                exe,
                *FLAGS,
                f"--user-data-dir={self.profile}",
                "--remote-debugging-pipe",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=lambda: (os.dup2(r_cmd, 3), os.dup2(w_ev, 4), None)[-1],
        )
        os.close(r_cmd)
        os.close(w_ev)
        self.wf = os.fdopen(w_cmd, "wb", buffering=0)
        self.rf = os.fdopen(r_ev, "rb", buffering=0)
        self.buf = b""
        self.next_id = 0
        self.events: list[dict] = []
        self.session = None
        try:
            targets = self.call("Target.getTargets")["targetInfos"]
            page = next(t for t in targets if t["type"] == "page")
            self.session = self.call(
                "Target.attachToTarget", targetId=page["targetId"], flatten=True
            )["sessionId"]
            for dom in ("Page", "Runtime", "Log"):
                self.call(f"{dom}.enable")
            self.call(
                "Emulation.setDeviceMetricsOverride",
                width=width,
                height=height,
                deviceScaleFactor=1,
                mobile=False,
            )
        except BaseException:
            self.close()  # never leave a browser running
            raise

    # --- protocol
    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self.buf:
            if time.monotonic() > deadline:
                raise TimeoutError("chromium did not answer in time")
            chunk = self.rf.read(1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buf += chunk
        msg, _, self.buf = self.buf.partition(b"\0")
        return json.loads(msg)

    def call(self, method: str, timeout: float = 30.0, **params) -> dict:
        self.next_id += 1
        mid = self.next_id
        msg = {"id": mid, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        self.wf.write(json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == mid:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, name: str, timeout: float = 30.0) -> dict:
        for i, e in enumerate(self.events):
            if e["method"] == name:
                return self.events.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("method") == name:
                return m
            if "method" in m:
                self.events.append(m)

    # --- page actions
    def open(self, path: str | Path) -> None:
        self.events.clear()
        self.call("Page.navigate", url=Path(path).resolve().as_uri())
        self.wait_event("Page.loadEventFired")

    def key(self, key: str, code: int) -> None:
        for kind in ("keyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent",
                type=kind,
                key=key,
                code=key,
                windowsVirtualKeyCode=code,
                nativeVirtualKeyCode=code,
            )

    def evaluate(self, expr: str):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"evaluate {expr!r}: {r['exceptionDetails'].get('text')}")
        return r["result"].get("value")

    def screenshot(self) -> bytes:
        return base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])

    def errors(self) -> list[str]:
        """Script errors seen so far: uncaught exceptions, console.error, error log entries,
        failed resource loads."""
        # drain what has arrived
        self.call("Runtime.evaluate", expression="0")
        out = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                out.append(
                    f"exception: {d.get('exception', {}).get('description') or d.get('text')}"
                )
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(
                    "console.error: "
                    + " ".join(str(a.get("value", a.get("description"))) for a in p.get("args", []))
                )
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}")
        return out

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for f in (self.wf, self.rf):
            try:
                f.close()
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def image_stats(png: bytes):
    """(distinct colours, standard deviation of the grey levels) of a PNG screenshot."""
    import numpy as np
    from PIL import Image

    im = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    grey = im.mean(axis=2)
    colours = len(np.unique(im.reshape(-1, 3)[::7], axis=0))
    return colours, float(grey.std()), im


def step_through(browser: Browser, html: Path, out_dir: Path, steps: int) -> list[dict]:
    """Open ``html``, screenshot the start, press ArrowRight ``steps`` times with a screenshot
    after each; returns one dict per screenshot (ply shown, file, colours, grey sd, changed)."""
    browser.open(html)
    shots = []
    prev = None
    for k in range(steps + 1):
        if k:
            browser.key("ArrowRight", 39)
        ply = browser.evaluate("window.showCur ? window.showCur() : -1")
        png = browser.screenshot()
        path = out_dir / f"{html.stem}-{k:02d}.png"
        path.write_bytes(png)
        colours, sd, im = image_stats(png)
        changed = prev is None or im.shape != prev.shape or bool((im != prev).any())
        shots.append(
            {"ply": ply, "file": str(path), "colours": colours, "sd": sd, "changed": changed}
        )
        prev = im
    return shots


if __name__ == "__main__":
    html, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    with Browser() as b:
        for s in step_through(b, html, out, int(sys.argv[3]) if len(sys.argv) > 3 else 3):
            print(s)
        print("errors:", b.errors())
