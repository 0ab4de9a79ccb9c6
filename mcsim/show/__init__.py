"""``mcsim show``: one game drawn move by move as a self-contained HTML file.

Every game draws its own records: the protocol hook ``show_frames`` of its package
(``mcsim.games.base.GameModule``; the drawer lives in ``mcsim/games/<game>/show.py``)::

    show_frames(record: dict, result: ReplayResult) -> Show

``build_show`` first validates the record with the game's own ``replay`` (so bad input gives
exactly the errors ``mcsim replay`` gives); the drawer then steps through it with the game's
engine (kernel functions or the game's own ``replay`` loop, never a second implementation of the
rules) and draws one ``Frame`` per ply plus the start. Board geometry and components come from the game's data
(``mcsim/data/<game>/`` and the kernels' tables), so a corrected data file redraws correctly.

``mcsim.show.page.render(show)`` turns a ``Show`` into one HTML file: inline SVG and CSS, a
small inline script (buttons, arrow keys, a slider), no external resources. This package holds
only the game-independent parts: ``base`` (frames and SVG helpers), ``page`` (the HTML) and
``examples`` (the report's example games).

>>> from mcsim.show import show_html
>>> html = show_html("sacred-hill", {"game": "sacred-hill", "moves": ["D4", "B3"]})
>>> html.count('class="frame"')
3
"""

from __future__ import annotations

from mcsim.errors import InvalidRecordError
from mcsim.games import get_game
from mcsim.show.base import Frame, Show  # noqa: F401  (re-exported)
from mcsim.values import label


def build_show(game: str, record: dict) -> Show:
    """The frames of ``record`` (a game record of ``game``, as ``mcsim replay`` reads it).

    The record is validated first with the game's ``replay`` (which also checks recorded
    points), then drawn from the game's engine.

    Raises
    ------
    InvalidRecordError, IllegalMoveError
        As ``mcsim replay`` does (a record of another game, a malformed or illegal record); a
        field of the wrong type is reported as a malformed record, as ``mcsim replay`` does.
    """
    module = get_game(game)
    try:
        result = module.replay(record)
    except (TypeError, AttributeError, KeyError, IndexError) as e:
        raise InvalidRecordError(f"malformed {game} record ({type(e).__name__}: {e})") from None
    return module.show_frames(record, result)


def show_html(game: str, record: dict) -> str:
    """The HTML text of ``record`` drawn move by move (see ``build_show``)."""
    from mcsim.show.page import render

    return render(build_show(game, record))


def record_of_seed(
    game: str,
    seed: int,
    game_index: int,
    policies=None,
    variant=None,
    players: int | None = None,
    options: dict | None = None,
) -> dict:
    """The record of game ``game_index`` of ``simulate --seed seed`` with these settings (the
    same engine and seeding: the game's ``record_games``).

    Raises ``ConfigError`` (and the other config errors of ``simulate``) for bad settings.
    """
    from mcsim.runner import GAME_INDEX, check_limits, resolve_config

    check_limits(1, seed)  # the seed range of simulate
    game_index = GAME_INDEX.check(game_index, label("game_index"))
    module, cfg = resolve_config(game, players, policies, variant, options)
    prep = module.prepare(cfg)
    return module.record_games(prep, int(seed), [int(game_index)])[0]
