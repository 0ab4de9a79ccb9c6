"""``mcsim show`` in a real browser: headless Chromium (Debian's ``chromium``,
installed by ``tests.chromium_check.ensure_chromium`` when missing) opens one game of each of the
five games, steps forward with the arrow key and takes a screenshot of every step.

Fails on a blank screenshot, a step that leaves the picture unchanged or does not advance the
ply, and any script error in the console. Chromium is driven over its DevTools protocol on a
pipe (``--remote-debugging-pipe``), standard library only. The screenshots are kept in pytest's
temporary directory (``.../show-browser*/``) for a person to look at.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from cli import mcsim_cli
from tests.chromium_check import Browser, step_through
from tests.test_show import DATA, GAMES

STEPS = 3
#: a screenshot with fewer distinct colours or a flatter grey level than this is blank (a white
#: page has 1 colour and sd 0; the drawn boards have hundreds of colours and sd > 15)
MIN_COLOURS = 50
MIN_SD = 5.0


@pytest.fixture(scope="module")
def html_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("show-browser")
    out = {}
    for game in GAMES:
        rec = DATA / f"show_{game.replace('-', '_')}.json"
        html = d / f"{game}.html"
        r = CliRunner().invoke(mcsim_cli, ["show", game, str(rec), "--out", str(html)])
        assert r.exit_code == 0, r.output
        out[game] = html
    return d, out


def test_each_game_steps_forward_with_the_keyboard(html_files):
    """Start + 3 ArrowRight presses per game: plies 0..3 shown, every screenshot drawn (not
    blank) and different from the one before, no script error."""
    d, files = html_files
    with Browser() as b:
        for game in GAMES:
            shots = step_through(b, files[game], d, STEPS)
            assert [s["ply"] for s in shots] == list(range(STEPS + 1)), (game, shots)
            for s in shots:
                assert s["colours"] >= MIN_COLOURS and s["sd"] >= MIN_SD, (game, s)
                assert s["changed"], (game, s)
            # the slider and the move list follow the keyboard
            assert b.evaluate("document.getElementById('slider').value") == str(STEPS)
            move = b.evaluate(f"document.querySelectorAll('.frame')[{STEPS}].dataset.move")
            assert b.evaluate("document.querySelector('#moves li.cur').textContent").endswith(move)
            # back with ArrowLeft, to the end with End
            b.key("ArrowLeft", 37)
            assert b.evaluate("window.showCur()") == STEPS - 1
            b.key("End", 35)
            n = b.evaluate("document.querySelectorAll('.frame').length")
            assert b.evaluate("window.showCur()") == n - 1
            errors = b.errors()
            assert errors == [], (game, errors)
        # the check can fail: a script error is seen, a blank page is blank, a page whose
        # script does nothing leaves the picture unchanged
        bad = d / "broken.html"
        bad.write_text(
            "<!DOCTYPE html><html><body><script>window.showCur=function(){return 0};"
            "null.x</script></body></html>"
        )
        shots = step_through(b, bad, d, 1)
        assert shots[0]["colours"] < MIN_COLOURS and shots[0]["sd"] < MIN_SD
        assert not shots[1]["changed"]
        assert any("TypeError" in e for e in b.errors())
