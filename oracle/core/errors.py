"""Exception types shared by the oracle and the command line."""


class InputError(ValueError):
    """Bad user input (shapes, NaN/Inf, unknown activation, unreadable file); the CLI exits 2 on it."""
