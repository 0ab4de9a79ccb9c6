"""Carcassonne rare rule paths, found in simulated games and checked by the naive implementation.

docs/rules/carcassonne.md §3.2 (draws, unplaceable tiles, meeple supply), §3.3 (majority ties),
§4.2-§4.4 (gift deck reshuffle, empty deck, Take 2), §6 #10-#14. Each test names a
fixed configuration, counts how often the path is reached there, and checks every game of it with
tests/test_carcassonne_naive.py (``check_draws``: draws, placements and meeples legal by the
rules, gift receipts from the naive deck and discards; then the naive final scores): never with
the kernel's own legal-move list.

Configurations (all gifts=true; records of every game; counts at the commit that added this file):

* ``FIVE``: 5 players, heuristic, seed 11, games 0-59.
* ``TAKE2``: 2 players, random, gift_deck=take_2 (every gift is a Take 2), seed 12, games 0-59;
  ``TAKE2_UNPLACEABLE``: its games 1379, 1735, 1931, found by scanning games 0-19,999 (15 of
  them draw an unplaceable tile during a Take 2; 8 more open Take 2 on an exhausted pile after
  removing an unplaceable tile).
* ``HOARD``: 5 players, heuristic with hold=100 (opens a gift only for a gain over 100
  points), seed 13, games 0-19.
"""

import pytest

import mcsim
from mcsim.runner import resolve_config
from tests.test_carcassonne_naive import check_draws

FIVE = dict(players=5, policies=["heuristic"], variant={"gifts": "true"}, seed=11, games=60)
TAKE2 = dict(
    players=2,
    policies=["random"],
    variant={"gifts": "true", "gift_deck": "take_2"},
    seed=12,
    games=60,
)
TAKE2_UNPLACEABLE = [1379, 1735, 1931]
HOARD = dict(
    players=5, policies=["heuristic:hold=100"], variant={"gifts": "true"}, seed=13, games=20
)


def _checked(records):
    """Per game ``(record, naive game, path counts)``; every game passes the naive checks."""
    out = []
    for i, rec in enumerate(records):
        n, counts = check_draws(rec)
        assert n.finish() == rec["points"], f"game {i}: naive scores differ"
        counts["reshuffles"], counts["dry"], counts["ties"] = n.reshuffles, n.dry, dict(n.ties)
        out.append((rec, counts))
    return out


def _run(cfg):
    r = mcsim.simulate("carcassonne", record=cfg["games"], workers=1, **cfg)
    return _checked(r.records)


@pytest.fixture(scope="module")
def five():
    return _run(FIVE)


@pytest.fixture(scope="module")
def take2():
    return _run(TAKE2)


def _games(games, key):
    return sum(1 for _, c in games if c[key] > 0)


def test_s6_12_gift_deck_reshuffled_from_the_discards(five):
    """docs/rules/carcassonne.md §4.2, §4.3, §6 #12: the empty gift deck is rebuilt from the
    discard pile and gifts keep coming (FIVE: 5 of 60 games)."""
    assert _games(five, "reshuffles") >= 1
    assert all((len(rec["gift_cards"]) > 25) == (c["reshuffles"] > 0) for rec, c in five)


def test_s4_2_gift_due_with_deck_and_discards_empty():
    """docs/rules/carcassonne.md §4.2, §6 #12: with all 25 cards held unopened an earned gift
    gives nothing (HOARD: 2 of 20 games; the naive deck agrees turn by turn)."""
    games = _run(HOARD)
    assert _games(games, "dry") >= 1
    assert all(len(rec["gift_cards"]) <= 25 for rec, _ in games)  # nothing opened, no reshuffle


def test_s3_2_unplaceable_tiles_are_removed(five):
    """docs/rules/carcassonne.md §3.2 step 1, §5 #13, §6 #14: a drawn tile with no legal
    placement (naive edge matching) is removed and the same player draws again (FIVE: 5 games)."""
    assert _games(five, "unplaceable") >= 1


def test_s4_4_5_take_2_on_an_exhausted_pile(take2):
    """docs/rules/carcassonne.md §4.4.5: Take 2 opened when no placeable tile is left has no
    effect; the player places his tile (TAKE2: 3 of 60 games)."""
    assert _games(take2, "take2_empty_pile") >= 1


def test_s6_11_take_2_with_unplaceable_extra_draws():
    """docs/rules/carcassonne.md §4.4.5, §6 #11: Take 2's unplaceable extra draws are removed
    and drawing goes on (TAKE2_UNPLACEABLE: all three games; 15 in 20,000 TAKE2 games)."""
    module, cfg = resolve_config(
        "carcassonne", players=2, policies=TAKE2["policies"], variant=TAKE2["variant"]
    )
    records = module.record_games(module.prepare(cfg), TAKE2["seed"], TAKE2_UNPLACEABLE)
    games = _checked(records)
    assert _games(games, "take2_unplaceable") == len(TAKE2_UNPLACEABLE)


def test_s3_2_meeple_supply_runs_out(take2, five):
    """docs/rules/carcassonne.md §3.1, §3.2 step 2: with all 7 meeples on the board no meeple
    may be placed (the naive supply check; TAKE2: every game, FIVE: 2 games)."""
    assert _games(take2, "meeple_supply_empty") == len(take2)
    assert _games(five, "meeple_supply_empty") >= 1


def test_s3_3_majority_ties_of_every_size(five):
    """docs/rules/carcassonne.md §3.3, §5 #7, §6 #19: tied majorities all score the full points;
    ties of 2, 3 and 4 players are reached in 5-player play and scored as by the naive scorer
    (FIVE: 128, 26 and 6 tied features or fields)."""
    sizes = {}
    for _, c in five:
        for k, v in c["ties"].items():
            sizes[k] = sizes.get(k, 0) + v
    assert all(sizes.get(k, 0) > 0 for k in (2, 3, 4))


def test_s3_1_game_end_on_more_than_one_seat(five, take2):
    """docs/rules/carcassonne.md §3.1, §3.4: the game ends when the pile is empty (naive check:
    every tile left after the last turn is unplaceable); a removed tile moves the last turn to
    another seat (FIVE: seats 0 and 4; TAKE2: seats 0 and 1)."""
    assert len({(len(rec["turns"]) - 1) % 5 for rec, _ in five}) >= 2
    assert len({(len(rec["turns"]) - 1) % 2 for rec, _ in take2}) == 2


def test_s3_final_score_ties(five, take2):
    """Summary rule (DESIGN: ties share a win): games whose best score is shared are reached
    (FIVE: 1 game, TAKE2: 2 games) and scored like the naive scorer."""
    tied = sum(
        1
        for games in (five, take2)
        for rec, _ in games
        if rec["points"].count(max(rec["points"])) > 1
    )
    assert tied >= 1
