"""Game specs and the game protocol shared by every game.

Each game is a package ``mcsim/games/<game>/`` that implements every hook of ``GameModule``
(below): the runner, stats, report, evaluate, batch, tune and the CLI call nothing else, and
call every hook without checking that it exists. ``tests/test_protocol.py`` checks that each
registered game has every hook with the documented signature. The package's modules are split by
role (see CONTRIBUTING.md): ``__init__`` (spec, data, ``prepare``, ``play_chunk``), ``records``
(records, replay, perft), ``summary`` (summaries), ``charts`` (report figures) and ``show`` (the
drawer of ``mcsim show``).

Policies are an integer id plus a float64 parameter vector; ``PolicySpec`` names both.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from mcsim.errors import (
    BadParameterError,
    BadValueError,
    ConfigError,
    InvalidRecordError,
    UnknownPolicyError,
    UnknownVariantError,
)
from mcsim.values import WHOLE_RULE, Whole, is_number_text, path_value, real_number

if TYPE_CHECKING:  # the drawers' result type; ``mcsim.show`` imports the games, not the reverse
    from mcsim.show.base import Show


@dataclass(frozen=True)
class VariantSpec:
    """One rule reading a user can switch: ``--variant name=value``.

    ``choices[0]`` need not be the default; ``default`` is. Values are strings on the command
    line; ``code(value)`` is the integer the kernel receives (the index in ``choices``).
    """

    name: str
    choices: tuple[str, ...]
    default: str
    help: str
    source: str = ""  # e.g. "docs/rules/sacred_hill.md §3.2"

    def code(self, value: str) -> int:
        return self.choices.index(value)


@dataclass(frozen=True)
class ParamSpec:
    """One numeric policy parameter (``--policy name:param=value``).

    ``low``/``high`` is the documented range (values outside it are refused); ``integer``
    marks a parameter whose kernel use only tells whole numbers apart (a count, a threshold
    on a count, an on/off switch), so ``mcsim tune`` searches integers only.
    """

    name: str
    default: float
    help: str
    low: float = -np.inf
    high: float = np.inf
    integer: bool = False  # a count or an id: only whole numbers are accepted

    def show(self, v: float) -> str:
        """``v`` as messages print it: a whole number of an ``integer`` parameter without
        ``.0`` (``0``, ``1000000``), anything else (and ``9e+99``) as Python prints a float."""
        v = float(v)
        exact = v.is_integer() and abs(v) <= 2**53  # beyond, the digits are not the value's
        return str(int(v)) if self.integer and exact else str(v)


#: the policy parameter that takes restricted play's option names (``heuristic:forbid=a+b``)
FORBID_KEY = "forbid"
#: the prefix of the integer mask parameters that hold a seat's forbidden options (bit
#: ``RestrictionSpec.bit`` of parameter ``RestrictionSpec.param``); set from ``forbid=``
FORBID_MASK_PREFIX = "forbid_mask"
#: bits per mask parameter: a float64 holds every integer below 2**53 exactly
FORBID_MASK_BITS = 52


def forbid_mask_param(name: str = FORBID_MASK_PREFIX) -> ParamSpec:
    """The ``ParamSpec`` of a forbidden-options mask (every policy of a game with restrictions
    declares one per mask its ``GameSpec.restrictions`` use): an integer in [0, 2**52), 0 = no
    restriction. Users set it with ``forbid=NAME+NAME``, not by number."""
    return ParamSpec(
        name,
        0.0,
        "forbidden options as a bit mask (set it with forbid=NAME+NAME; mcsim games lists them)",
        0.0,
        float(2**FORBID_MASK_BITS - 1),
        integer=True,
    )


@dataclass(frozen=True)
class RestrictionSpec:
    """One option a seat can be forbidden: restricted play (Jaffe, Miller, Andersen, Liu,
    Karlin and Popović, AIIDE 2012). ``-p "policy:forbid=name+name"`` forbids it for that seat:
    the seat's policy never chooses it while another legal choice exists, and takes it when the
    rules leave nothing else (a forced move, counted in the ``forbid_forced_<seat>`` column).

    ``name`` is what users type (lowercase, no ``+`` or ``,``); ``param``/``bit`` locate it in
    the kernel's mask parameters (``forbid_mask``, ``forbid_mask2``, ...); ``group`` heads it in
    tables ("action card", "official"); ``source`` cites the rule (``docs/rules/<game>.md §N``).
    """

    name: str
    help: str
    group: str
    bit: int
    param: str = FORBID_MASK_PREFIX
    source: str = ""


@dataclass(frozen=True)
class PolicySpec:
    """A policy: its kernel id, its numeric parameters and a one-line description."""

    name: str
    id: int
    help: str
    params: tuple[ParamSpec, ...] = ()

    def vector(
        self, overrides: dict[str, float] | None = None, written: dict[str, str] | None = None
    ) -> np.ndarray:
        """The float64 parameter vector in ``params`` order, defaults overridden by name;
        ``written`` (``PolicyChoice.written``) is how each override was typed, as refusals
        quote it. Raises ``BadParameterError`` (bad value), ``UnknownPolicyError`` (no such
        parameter)."""
        overrides = dict(overrides or {})
        out = np.empty(len(self.params), dtype=np.float64)
        for k, p in enumerate(self.params):
            where = f"policy {self.name!r}: parameter {p.name}"
            raw = overrides.pop(p.name, p.default)
            try:
                v = real_number(raw, where)
            except BadValueError as e:
                raise BadParameterError(str(e), where) from None
            # a value typed as text is shown as written (1e30, not 1e+30; 2, not 2.0)
            shown = (written or {}).get(p.name) or (
                raw.strip() if isinstance(raw, str) else p.show(v)
            )
            if not (p.low <= v <= p.high):
                raise BadParameterError(
                    f"{where}={shown} is outside [{p.show(p.low)}, {p.show(p.high)}]", where
                )
            if p.integer and v != int(v):
                raise BadParameterError(f"{where} must be a whole number, not {shown}", where)
            out[k] = v
        if overrides:
            known = ", ".join(p.name for p in self.params) or "(none)"
            raise UnknownPolicyError(
                f"policy {self.name!r} has no parameter {next(iter(overrides))!r}; it has: {known}"
            )
        return out


#: the name of every game's frozen copy of its ``mcts`` (``kept_mcts``)
KEPT_MCTS = "mcts1"
KEPT_MCTS_NOTE = (
    "the default `mcts` of 2026-12-02, kept so that 'against today's default' can be re-run"
)


def kept_mcts(
    mcts: PolicySpec, params: tuple[ParamSpec, ...] | None = None, help: str | None = None
) -> PolicySpec:
    """The policy ``mcts1``: the game's ``mcts`` as it was on 2026-12-02 (same kernel policy
    id, so the same kernel code path, and that day's parameters and defaults), kept so that
    "against today's default" can be re-run once ``mcts`` changes. ``params`` is that day's
    parameter tuple and ``help`` that day's description when ``mcts``'s have changed since
    (default: ``mcts``'s own, shared)."""
    return PolicySpec(
        KEPT_MCTS,
        mcts.id,
        f"{KEPT_MCTS_NOTE}: {mcts.help if help is None else help}",
        mcts.params if params is None else params,
    )


@dataclass(frozen=True)
class GameSpec:
    """Facts about one game, as data (OpenSpiel's GameType)."""

    id: str
    long_name: str
    rules: str  # "docs/rules/<game>.md"
    min_players: int
    max_players: int
    default_players: int
    variants: tuple[VariantSpec, ...]
    policies: tuple[PolicySpec, ...]
    summary_key: str  # e.g. "sacred_hill"
    max_plies: int
    description: str = ""
    #: ``(variant, value, name)``: the game's name in a run's header when that variant has that
    #: value (Carcassonne without The Gifts is not "with The Gifts"); else ``long_name``
    titles: tuple[tuple[str, str, str], ...] = ()
    #: ``(switch, value, readings)``: variants that are readings of a part of the game switched
    #: on by ``switch=value``; a run's header lists them only when it is on (they change nothing
    #: otherwise)
    readings_of: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    #: the range of a seat's score (points; None = unbounded): a mean score's 95% interval is
    #: clipped to it (``mcsim.stats.clip_to_range``, docs/outputs.md "Intervals")
    score_bounds: tuple[float | None, float | None] = (None, None)
    #: the options restricted play can forbid a seat (``RestrictionSpec``), in table order
    restrictions: tuple[RestrictionSpec, ...] = ()
    #: groups of ``restrictions`` that cover a whole decision (every power card): forbidding
    #: all of one leaves the seat no choice at all, so ``forbid=`` refuses it
    exhaustive_groups: tuple[str, ...] = ()

    def restriction(self, name: str) -> RestrictionSpec:
        """The restriction called ``name``; ``UnknownPolicyError`` naming the valid ones."""
        for r in self.restrictions:
            if r.name == name:
                return r
        if not self.restrictions:
            raise UnknownPolicyError(f"{self.id} has no options that forbid= can restrict")
        valid = ", ".join(r.name for r in self.restrictions)
        raise UnknownPolicyError(
            f"forbid={name!r}: {self.id} has no such option; choose from: {valid}"
        )

    def forbid_params(self, names: tuple[str, ...]) -> dict[str, float]:
        """``{mask parameter: value}`` forbidding ``names`` (restriction names).

        Raises ``UnknownPolicyError`` (an unknown name, a name given twice, every option of
        an ``exhaustive_groups`` group or every option of the game forbidden)."""
        masks: dict[str, int] = {}
        seen: set[str] = set()
        for name in names:
            r = self.restriction(name)
            if name in seen:
                raise UnknownPolicyError(f"forbid={'+'.join(names)}: {name!r} given twice")
            seen.add(name)
            masks[r.param] = masks.get(r.param, 0) | (1 << r.bit)
        for group in self.exhaustive_groups:
            members = {r.name for r in self.restrictions if r.group == group}
            if members and members <= seen:
                raise UnknownPolicyError(
                    f"forbid={'+'.join(names)} forbids every {group}: the seat would have no "
                    f"choice left; forbid some of them"
                )
        if self.restrictions and seen == {r.name for r in self.restrictions}:
            raise UnknownPolicyError(
                f"forbid={'+'.join(names)} forbids every option restricted play knows; "
                "forbid some of them"
            )
        return {k: float(v) for k, v in masks.items()}

    def with_restrictions(self, choice: PolicyChoice) -> PolicyChoice:
        """``choice`` with its ``forbid`` names turned into mask parameters (validated);
        unchanged when it forbids nothing. ``resolve_config`` calls it for every seat."""
        if not choice.forbid:
            return choice
        masks = self.forbid_params(choice.forbid)
        pol = self.policy(choice.name)
        declared = {p.name for p in pol.params}
        missing = sorted(set(masks) - declared)
        if missing:
            raise UnknownPolicyError(
                f"policy {choice.name!r} of {self.id} cannot be restricted (no {missing[0]})"
            )
        params = {k: v for k, v in choice.params.items() if not k.startswith(FORBID_MASK_PREFIX)}
        return PolicyChoice(choice.name, {**params, **masks}, dict(choice.written), choice.forbid)

    def title(self, variant: dict) -> str:
        """The game's name for a run with the resolved ``variant`` (``titles``)."""
        for name, value, title in self.titles:
            if variant.get(name) == value:
                return title
        return self.long_name

    def shown_variant(self, variant: dict) -> dict:
        """The resolved ``variant`` without the readings of a part that is off
        (``readings_of``): what a run's header lists."""
        hidden = {
            r
            for name, value, readings in self.readings_of
            if variant.get(name) != value
            for r in readings
        }
        return {k: v for k, v in variant.items() if k not in hidden}

    def policy(self, name: str) -> PolicySpec:
        for p in self.policies:
            if p.name == name:
                return p
        valid = ", ".join(p.name for p in self.policies)
        raise UnknownPolicyError(f"unknown policy {name!r} for {self.id}; choose from: {valid}")

    def variant_spec(self, name: str) -> VariantSpec:
        for v in self.variants:
            if v.name == name:
                return v
        valid = ", ".join(v.name for v in self.variants) or "(none)"
        raise UnknownVariantError(f"unknown variant {name!r} for {self.id}; variants: {valid}")

    def resolve_variant(self, given: dict[str, str] | None) -> dict[str, str]:
        """All variants with defaults filled in; raises ``UnknownVariantError``."""
        out = {v.name: v.default for v in self.variants}
        if given is not None and not isinstance(given, dict):
            raise UnknownVariantError(
                f'"variant" must be an object of name: value pairs, not {given!r}'
            )
        for name, value in (given or {}).items():
            spec = self.variant_spec(name)
            value = str(value).lower() if isinstance(value, bool) else str(value)
            if value not in spec.choices:
                raise UnknownVariantError(
                    f"variant {name}={value!r} is not one of: {'|'.join(spec.choices)}"
                )
            out[name] = value
        return out

    def variant_codes(self, resolved: dict[str, str]) -> np.ndarray:
        """int64 vector of variant codes in ``variants`` order (for the kernel)."""
        return np.array([v.code(resolved[v.name]) for v in self.variants], dtype=np.int64)


@dataclass(frozen=True)
class PolicyChoice:
    """A policy as chosen for one seat: spec name plus parameter overrides."""

    name: str
    params: dict[str, float] = field(default_factory=dict)
    #: each parameter as the user typed it (``1e30``, ``2``): how messages quote it
    written: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    #: restricted play: the names of the options this seat may not choose (``forbid=a+b``),
    #: turned into the ``forbid_mask*`` parameters by ``GameSpec.with_restrictions``
    forbid: tuple[str, ...] = ()

    def label(self) -> str:
        """``name`` or ``name:k=v,...,forbid=a+b`` (parameters sorted; the mask parameters
        are shown as the ``forbid=`` names they came from). ``parse_policy`` reads it back."""
        items = [
            f"{k}={_shortest(v)}"
            for k, v in sorted(self.params.items())
            if not (self.forbid and k.startswith(FORBID_MASK_PREFIX))
        ]
        if self.forbid:
            items.append(f"{FORBID_KEY}={'+'.join(self.forbid)}")
        return self.name + (":" + ",".join(items) if items else "")


def _shortest(v) -> str:
    """``v`` as a label shows it: ``{v:g}`` (``600``, ``0.1``) when that reads back as ``v``,
    else the shortest text that does (``0.1234567``, not ``0.123457``), so two players whose
    parameters differ never share a label."""
    short = f"{v:g}"
    try:
        if float(short) == float(v):
            return short
    except (TypeError, ValueError):
        return str(v)
    return repr(float(v))


def refuse_one_player_twice(texts: list[str], spec: GameSpec, what: str, why: str = "") -> None:
    """Raise ``ConfigError`` when two of the policy texts are one player: the same policy with
    every parameter equal once the defaults are filled in (``mcts`` and
    ``mcts:iterations=<its default>``) and the ``forbid`` names turned into their masks. The
    message names both as labels, after ``what`` ("rungs") and before ``why``. Raises what
    ``PolicySpec.vector`` and ``GameSpec.with_restrictions`` raise for a bad parameter."""
    seen: dict[tuple, str] = {}
    for text in texts:
        choice = parse_policy(text, spec)
        c = spec.with_restrictions(choice)
        key = (c.name, tuple(spec.policy(c.name).vector(c.params, c.written)))
        if key in seen:
            raise ConfigError(
                f"{what}{seen[key]} and {choice.label()} are the same policy (every parameter "
                f"equal once the defaults are filled in){why}"
            )
        seen[key] = choice.label()


def parse_policy(text: str, spec: GameSpec | None = None) -> PolicyChoice:
    """Parse ``name`` or ``name:param=value,param=value`` (values are finite numbers in ASCII
    float syntax, ``mcsim.values.real_number``; ``BadParameterError`` otherwise). With the
    game's ``spec``, a count parameter that is not a number at all (``iterations=１０``) is
    refused in the words of every whole-number flag and option.

    >>> parse_policy("greedy:eps=0.1")
    PolicyChoice(name='greedy', params={'eps': 0.1}, forbid=())
    """
    name, colon, rest = text.strip().partition(":")
    params: dict[str, float] = {}
    written: dict[str, str] = {}
    forbid: tuple[str, ...] = ()
    if colon and not rest.strip():
        raise UnknownPolicyError(f"policy {text!r}: no parameters after ':'")
    if rest:
        for item in rest.split(","):
            key, eq, val = item.partition("=")
            key = key.strip()
            if not eq or not key:
                raise UnknownPolicyError(
                    f"policy {name.strip()!r}: parameter {item!r} must be written name=value"
                )
            if key in params or (key == FORBID_KEY and forbid):
                raise UnknownPolicyError(f"policy {name!r}: parameter {key!r} given twice")
            if key == FORBID_KEY:  # option names, checked against the game by resolve_config
                forbid = tuple(n.strip().lower() for n in val.split("+"))
                if not all(forbid):
                    raise UnknownPolicyError(
                        f"policy {name.strip()!r}: forbid={val.strip()!r} must be option names "
                        "joined by + (mcsim games lists them)"
                    )
                continue
            where = f"policy {name.strip()!r}: parameter {key}"
            try:
                params[key] = real_number(val, where)
            except BadValueError as e:
                if spec is not None and not is_number_text(val) and _is_count(spec, name, key):
                    shown = repr(val.strip())
                    raise BadParameterError(
                        f"{where}: {shown} is not a valid integer ({WHOLE_RULE})", where
                    ) from None
                raise BadParameterError(str(e), e.name) from None
            written[key] = val.strip()
    return PolicyChoice(name.strip(), params, written, forbid)


def _is_count(spec: GameSpec, policy: str, param: str) -> bool:
    """True when ``policy`` of ``spec`` has a whole-number parameter ``param``."""
    for pol in spec.policies:
        if pol.name == policy.strip():
            return any(p.name == param and p.integer for p in pol.params)
    return False


@dataclass
class RunConfig:
    """What a run asks for, after the CLI or ``mcsim.simulate`` parsed it."""

    game: str
    players: int
    policies: list[PolicyChoice]  # one per seat
    variant: dict[str, str]  # resolved: every variant with its value
    options: dict[str, Any] = field(default_factory=dict)  # game-specific (e.g. tiles=FILE)


@dataclass
class Prepared:
    """Everything a worker needs to play games of one configuration (picklable).

    ``tables`` are the game's kernel arrays; ``policy_ids`` int64[seats];
    ``policy_params`` float64[seats, max_params] (unused entries 0); ``variant_codes``
    int64[n_variants]; ``info`` goes into the summary as is (e.g. ``{"tileset": {...}}``);
    ``notices`` are one-line messages printed above the summary (e.g. a reconstructed tile set).
    """

    config: RunConfig
    policy_ids: np.ndarray
    policy_params: np.ndarray
    variant_codes: np.ndarray
    tables: dict[str, Any] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)


def policy_arrays(spec: GameSpec, policies: list[PolicyChoice]) -> tuple[np.ndarray, np.ndarray]:
    """``(policy_ids int64[seats], policy_params float64[seats, max_params])`` for the kernel."""
    specs = [spec.policy(p.name) for p in policies]
    width = max([len(s.params) for s in spec.policies] + [1])
    ids = np.array([s.id for s in specs], dtype=np.int64)
    params = np.zeros((len(specs), width), dtype=np.float64)
    for k, (s, p) in enumerate(zip(specs, policies)):
        vec = s.vector(p.params, p.written)
        params[k, : len(vec)] = vec
    return ids, params


def players_range(spec: GameSpec) -> str:
    """The seat counts a game takes, as messages print them: ``2`` or ``2-4``."""
    if spec.min_players == spec.max_players:
        return str(spec.min_players)
    return f"{spec.min_players}-{spec.max_players}"


def check_players(spec: GameSpec, players: int) -> None:
    if not (spec.min_players <= players <= spec.max_players):
        raise ConfigError(f"{spec.id} is for {players_range(spec)} players, not {players}")


def check_options(config: RunConfig, kinds: dict[str, str | Whole]) -> RunConfig:
    """The game options of ``config`` checked and normalised by kind, the same way for every
    game (a game's ``check_config`` calls this with its own ``kinds``): an option given as None
    is dropped; ``"file"`` and ``"dir"`` take a non-empty ``str`` or ``os.PathLike`` (returned as
    ``str``); a ``Whole`` takes an int or a string in the whole-number rule of
    ``mcsim.values`` within its limits (returned as ``int``). Keys not in ``kinds`` are left
    alone (``resolve_config`` has refused unknown keys already).

    Raises
    ------
    BadValueError
        Naming the option: ``option tiles must be a file path (a string), not 5 (int)``.
    """
    opts = {k: v for k, v in dict(config.options or {}).items() if v is not None}
    for key, kind in kinds.items():
        if key not in opts:
            continue
        name = f"option {key}"
        if isinstance(kind, Whole):
            opts[key] = kind.check(opts[key], name, text=True)
        else:
            opts[key] = path_value(opts[key], name, "folder path" if kind == "dir" else "file path")
    return RunConfig(config.game, config.players, config.policies, config.variant, opts)


def check_recorded_points(record: dict, result: dict) -> None:
    """Compare a record's optional ``"points"`` (final points per seat) with its replay.

    Every game's ``replay()`` calls this once at its end. ``result`` is the replay's result: its
    ``"points"`` are compared when ``"finished"`` is true and they are not None.

    >>> check_recorded_points({"points": [3, 1]}, {"finished": True, "points": [3, 1]})
    >>> check_recorded_points({"points": [3, 2]}, {"finished": True, "points": [3, 1]})
    Traceback (most recent call last):
    mcsim.errors.InvalidRecordError: record says points [3, 2], replay gives [3, 1]

    Raises
    ------
    InvalidRecordError
        ``"points"`` is not a list of numbers, or differs from the replay of a finished game.
    """
    claimed = record.get("points")
    if claimed is None:
        return
    if not isinstance(claimed, list) or any(
        isinstance(x, bool) or not isinstance(x, (int, float)) for x in claimed
    ):
        raise InvalidRecordError(
            '"points" must be a list of numbers, not ' + json.dumps(claimed)[:60]
        )
    got = result.get("points")
    if result.get("finished") and got is not None and list(claimed) != list(got):
        raise InvalidRecordError(f"record says points {list(claimed)}, replay gives {list(got)}")


@dataclass(frozen=True, eq=False)
class ReplayResult(Mapping):
    """What a game's ``replay(record)`` returns: the common fields plus the game's own.

    ``finished`` (bool), ``points`` (final points per seat, a list; the points reached so far
    when unfinished, or None where the game has none) and ``winner`` (a seat, or None when shared
    or unfinished) are the same for every game. ``fields`` is the whole result as
    ``mcsim replay --json`` prints it, in the game's key order (the three common fields included
    at their place; ``as_dict()`` returns a copy). A ``ReplayResult`` reads like that dict
    (``result["points"]``), so drawers and tests need not know the game.
    """

    fields: dict[str, Any]

    @property
    def finished(self) -> bool:
        return bool(self.fields["finished"])

    @property
    def points(self) -> list | None:
        return self.fields["points"]

    @property
    def winner(self) -> int | None:
        return self.fields.get("winner")

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.fields)


def replay_result(record: dict, fields: dict[str, Any]) -> ReplayResult:
    """The end of every game's ``replay``: check the common fields of ``fields``, compare the
    record's own ``"points"`` with them (``check_recorded_points``) and wrap them.

    ``fields`` must hold ``"finished"`` (bool) and ``"points"`` (list or None); ``"winner"`` is
    optional (int or None). Raises ``InvalidRecordError`` as ``check_recorded_points``.

    >>> replay_result({}, {"finished": True, "points": [3, 1], "winner": 0}).winner
    0
    """
    if not isinstance(fields.get("finished"), bool):
        raise TypeError("a replay result needs a bool 'finished'")
    if not (fields.get("points") is None or isinstance(fields["points"], list)):
        raise TypeError("a replay result's 'points' must be a list or None")
    check_recorded_points(record, fields)
    return ReplayResult(fields)


#: a report figure builder: ``(ctx) -> mcsim.charts.Figure or None``; raises
#: ``mcsim.charts.MissingData`` when the run lacks what it draws
ChartBuilder = Callable[[Any], Any]


@runtime_checkable
class GameModule(Protocol):
    """Every hook a game package implements (``mcsim/games/<game>/``); all are required.

    Constants
    ---------
    SPEC : GameSpec
    OPTIONS : dict[str, str]
        The game-specific options accepted in ``RunConfig.options`` / ``--option KEY=VALUE``
        (``{key: help}``); ``resolve_config`` refuses any other key.
    CHUNK_SIZE : int
        Games per runner chunk (at most). ``CHUNK_MULTIPLE``: chunk sizes are rounded up to it.
    EVALUATE_BANDS : tuple[float, ...]
        Score thresholds that ``mcsim evaluate`` reports ``P(score > b)`` of (may be empty).
    EVALUATE_GROUPS : dict[str, tuple[str, ...]]
        ``mcsim evaluate`` blocks: name -> per-game columns ``<col>_<seat>`` averaged (may be
        empty).
    ORACLE_POLICY : str or None
        A policy that bounds the others (``evaluate`` reports the regret against it), or None.
    CHARTS : list[tuple[str, ChartBuilder]]
        The game's report figures ``[(slug, builder)]`` (``mcsim.games.<game>.charts``; slugs
        start with ``SPEC.summary_key``), drawn by ``mcsim.report`` after the common ones.
    """

    SPEC: GameSpec
    OPTIONS: dict[str, str]
    CHUNK_SIZE: int
    CHUNK_MULTIPLE: int
    EVALUATE_BANDS: tuple
    EVALUATE_GROUPS: dict
    ORACLE_POLICY: str | None
    CHARTS: list

    def check_config(self, config: RunConfig) -> RunConfig:
        """The game's own checks of a resolved config (variant combinations, option values),
        called once by ``mcsim.runner.resolve_config`` after the generic checks (players,
        policies, variants, option names); returns the config with the options normalised.
        Raises ``ConfigError``. ``prepare`` does not check again."""
        ...

    def prepare(self, config: RunConfig) -> Prepared:
        """Load and validate the data files, build the kernel tables. Raises
        ``DataFileError`` for a bad data file. The result must be picklable (it is sent to worker
        processes) and hold only numpy arrays, numbers, strings, dicts and lists."""
        ...

    def play_chunk(
        self, prep: Prepared, first_game_index: int, n_games: int, root_seed: int
    ) -> dict:
        """Play games ``first_game_index .. first_game_index + n_games - 1`` in a Numba kernel
        and return column arrays, one row per game. Required keys: ``"score"`` (``[n, seats]``,
        points) and ``"length"`` (``int32[n]``, plies). Optional ``"win_share"``
        (``float64[n, seats]``, rows sum to 1; default: seats with the top score share the win
        equally). Any other 1-D array becomes a column of that name; a 2-D ``[n, seats]`` array
        becomes columns ``name_0 ..``. Game *i* depends only on ``(root_seed, i)``."""
        ...

    def partial_summary(self, games: Any, prep: Prepared) -> dict:
        """Additive totals of one chunk's games (a ``pandas.DataFrame``), JSON-ready; chunks
        are merged by adding (``mcsim.aggregate``)."""
        ...

    def finalize_summary(self, t: dict, prep: Prepared) -> dict:
        """The game's summary block (under ``SPEC.summary_key``) from the merged totals ``t``."""
        ...

    def summarize(self, games: Any, prep: Prepared) -> dict:
        """The same block from a whole table of games (``finalize_summary(partial_summary)``)."""
        ...

    def format_summary(self, block: dict, summary: dict | None = None) -> str:
        """Readable text of the game's summary block (``summary``: the whole summary)."""
        ...

    def record_games(self, prep: Prepared, root_seed: int, game_indices: Any) -> list[dict]:
        """JSON-ready records of the given games; replaying one gives the run's result."""
        ...

    def replay(self, record: dict) -> ReplayResult:
        """Validate a record move by move; raise ``InvalidRecordError`` /
        ``IllegalMoveError``. Ends with ``replay_result`` (checks the record's ``"points"``)."""
        ...

    def format_replay(self, result: ReplayResult) -> str:
        """Readable text of a replay for ``mcsim replay``."""
        ...

    def show_frames(self, record: dict, result: ReplayResult) -> Show:
        """The drawer of ``mcsim show`` (``mcsim.games.<game>.show``): ``record`` drawn as one
        ``mcsim.show.base.Frame`` per ply plus the start, ``result`` being its ``replay(record)``
        (``mcsim.show.build_show`` replays first, so the record is valid). Positions come from
        the game's own engine (kernel or ``replay`` loop), the board from its data."""
        ...

    def perft(self, depth: int, variant: dict | None = None, options: dict | None = None) -> int:
        """The number of move sequences of ``depth`` plies from the start (default players), on
        the components of ``options`` (the game options as ``check_config`` returns them, e.g.
        Don Quixote's ``tiles``; default: the shipped data)."""
        ...

    def ensemble_options(
        self, k: int, seed: int, out_dir: str | None = None
    ) -> list[tuple[str, dict]]:
        """``k`` alternative component sets as ``(label, options)`` for
        ``mcsim evaluate --tileset-ensemble``; raises ``ConfigError`` when the game has none."""
        ...

    def search_start(self, prep: Prepared, seed: int, game_index: int) -> tuple:
        """``(state, ctx)``: the start of game ``game_index`` of ``seed`` (its deal) as the
        kernel's search steps see it (``kernels.search``, "Game interface"), with a context of
        the run's rules and a cheap rollout policy; ``ctx`` is an instance of the game's
        registered search context class. Used by ``tests/test_kernel_battery.py``."""
        ...


def no_ensemble(spec: GameSpec) -> Callable[..., list[tuple[str, dict]]]:
    """``ensemble_options`` of a game without alternative component sets (raises
    ``ConfigError``)."""

    def ensemble_options(k: int, seed: int, out_dir: str | None = None) -> list[tuple[str, dict]]:
        raise ConfigError(f"{spec.id} has no component ensemble")

    return ensemble_options


def restricted_seats(config: RunConfig) -> list[int]:
    """The seats of ``config`` whose policy forbids options (restricted play). A game's
    ``play_chunk`` adds the columns ``forbid_avoided_<seat>`` (decisions where a forbidden
    option was legal and the seat chose another) and ``forbid_forced_<seat>`` (decisions where
    only forbidden options were legal, so the rules made the seat take one), int64 per game, for
    every seat, only when this list is not empty: an unrestricted run's table is unchanged."""
    return [k for k, c in enumerate(config.policies) if c.forbid]
