"""Exception types shared by the oracle and the command line."""


class InputError(ValueError):
    """Bad user input (shapes, NaN/Inf, unknown activation, unreadable file); the CLI exits 2 on it."""


class CheckFailed(Exception):
    """A check's verdict is negative: a certificate does not hold, does not re-check from its own
    data, or a construction the oracle relies on does not satisfy its defining identity.

    Raised instead of a bare ``assert``, which ``python -O`` (``PYTHONOPTIMIZE``) removes: a
    verdict must not depend on how the interpreter was started."""


class RegistryError(Exception):
    """The claims' registry cannot be read: a listed claim module does not import (the message
    names it and gives the reason), or a name is not one of the registered oracle checks."""
