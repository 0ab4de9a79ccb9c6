"""Errors raised at the Python edge. The CLI turns each into one line on stderr and exit 1/2.

Every class is a ``ValueError`` subclass so library users can catch them broadly.
"""


class McsimError(ValueError):
    """Base class of all mcsim input errors (one-line message, no traceback in the CLI)."""


class UnknownGameError(McsimError):
    """A game id that is not in the registry; the message lists the valid ids."""


class UnknownPolicyError(McsimError):
    """A policy name (or policy parameter) the game does not have."""


class UnknownVariantError(McsimError):
    """A variant name or value the game does not have."""


class ConfigError(McsimError):
    """An impossible option combination (player count, game count, workers, ...)."""


class BadValueError(ConfigError):
    """A value of the wrong type or outside its range: a keyword of the Python API, a flag, a
    game option or a plan entry (``mcsim.values``). The message starts with ``name``, the input
    as the caller wrote it: ``games=`` from Python, ``--games`` on the command line.

    Attributes
    ----------
    name : str or None
        The input's name as it starts the message.
    """

    def __init__(self, message: str, name: str | None = None):
        super().__init__(message)
        self.name = name


class BadParameterError(UnknownPolicyError, BadValueError):
    """A policy parameter the policy has, given a value that is not a finite number, not whole
    (for a count) or outside its documented range. Callers catching ``UnknownPolicyError`` (any
    bad ``--policy``) or ``ConfigError`` (any bad value) catch it too."""


class DataFileError(McsimError):
    """A malformed component data file (tiles, maps, cards); names the entry and the rule."""


class MissingFileError(DataFileError):
    """A named input file that does not exist (the CLI exits 2, like a bad option)."""


class InputFileError(DataFileError):
    """An input file that cannot be read or parsed: unreadable, too large, not UTF-8, not valid
    JSON/TOML/Parquet, nested too deeply (``mcsim.files``); the message starts with its path."""


class NotAFileError(MissingFileError, InputFileError):
    """A named input path that is not a regular file (a folder, a named pipe, a socket): a bad
    argument like a missing file, so the CLI exits 2 (``MissingFileError``); also an
    ``InputFileError`` (the file cannot be read)."""


class OutputError(McsimError):
    """An output refused before anything is played (missing, read-only or full folder; an
    existing output without ``--force``; a resume with nothing to resume): a bad option, so
    the CLI exits 2. The message names the user's flag and path."""


class OutputWriteError(OutputError):
    """An output that could not be written while or after the command ran (e.g. the disk filled
    up): the CLI exits 1. The message names the user's flag and path."""


class InvalidRecordError(McsimError):
    """A game record that is not valid JSON or not of the documented shape."""


class IllegalMoveError(McsimError):
    """A record move that is illegal in the position reached.

    Attributes
    ----------
    ply : int
        0-based index of the offending move in the record.
    move : str
        The move as written in the record.
    legal : list[str]
        The legal moves in that position.
    """

    def __init__(self, ply, move, legal):
        self.ply = ply
        self.move = move
        self.legal = list(legal)
        shown = ", ".join(self.legal[:60]) + (" ..." if len(self.legal) > 60 else "")
        super().__init__(f"illegal move {move!r} at ply {ply}; legal moves: {shown or '(none)'}")
