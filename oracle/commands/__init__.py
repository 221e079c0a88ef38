"""Layer 6, the commands behind ``absorb``: one module per subcommand with ``run(args) -> int``
(audit, check, witness, activations, scan, pin) and output.py, the JSON and one-line printing
they share.  oracle/cli.py parses the command line and dispatches here."""

__all__ = ["activations", "audit", "check", "output", "pin", "recheck", "scan", "witness"]
