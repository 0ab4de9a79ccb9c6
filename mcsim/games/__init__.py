"""The game registry: game id -> game module (see ``mcsim.games.base`` for the protocol).

>>> sorted(REGISTRY)[:1]
['carcassonne']
"""

from __future__ import annotations

import importlib
from types import ModuleType

from mcsim.errors import UnknownGameError

#: game id -> module name under ``mcsim.games``; modules are imported on first use.
REGISTRY: dict[str, str] = {
    "sacred-hill": "sacred_hill",
    "don-quixote": "don_quixote",
    "el-grande": "el_grande",
    "carcassonne": "carcassonne",
    "thurn-and-taxis": "thurn_and_taxis",
}


def get_game(game_id: str) -> ModuleType:
    """The game module for ``game_id``; raises ``UnknownGameError`` listing the valid ids."""
    if game_id not in REGISTRY:
        raise UnknownGameError(f"unknown game {game_id!r}; choose from: {', '.join(REGISTRY)}")
    return importlib.import_module(f"mcsim.games.{REGISTRY[game_id]}")


def all_games() -> list[ModuleType]:
    """Every registered game package, in registry order."""
    return [get_game(g) for g in REGISTRY]
