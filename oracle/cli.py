"""The `absorb` command: audit the claims, decide concrete blocks, scan checkpoints."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Callable, Optional

from oracle import __version__
from oracle.commands.output import one_line
from oracle.core.errors import InputError

# Each subcommand lives in its own module with a `run(args) -> int`; a module that
# is not there yet makes the command say so (exit 2) instead of failing obscurely.
COMMANDS: dict[str, tuple[str, str]] = {
    "audit": ("oracle.commands.audit", "run every claim's checks, proofs and counterexamples (no input)"),
    "check": ("oracle.commands.check", "decide whether one residual block absorbs its skip"),
    "witness": ("oracle.commands.witness", "certified point where two blocks differ, or evidence they agree"),
    "activations": ("oracle.commands.activations", "the activation catalog with its checked properties"),
    "scan": ("oracle.commands.scan", "every MLP block of a model checkpoint (safetensors, GGUF, ONNX, PyTorch)"),
    "pin": ("oracle.commands.pin", "after review: rewrite the pinned Coq/Lean statements (proofs/pinned/)"),
    "recheck": ("oracle.commands.recheck", "re-verify a certificate of check, witness or audit --json, "
                "or the depth-analytic sweep, from the document and the weights alone"),
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="absorb",
        description="When can an MLP block absorb its own skip connection? Proofs, "
                    "certificates and a high-precision oracle.")
    p.add_argument("--version", action="version", version=f"absorb (skip-absorption) {__version__}",
                   help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND",
                           help="what to do (absorb COMMAND --help lists its options)")
    a = sub.add_parser("audit", help=COMMANDS["audit"][1])
    a.add_argument("--json", action="store_true", help="one JSON document on stdout")
    a.add_argument("--quick", action="store_true", help="fewer generated instances (well under a minute)")
    a.add_argument("--report", metavar="FILE", help="also write a Markdown (.md) or HTML (.html) report")
    a.add_argument("--claim", action="append", metavar="ID",
                   help="audit only this claim (repeat, or ID1,ID2); default: every registered claim")
    a.add_argument("--instances", type=int, metavar="N",
                   help="generated instances per claim (default 100, or 20 with --quick)")
    a.add_argument("--seed", type=int, metavar="S",
                   help="seed of the generated instances (default 0; printed in every run)")
    c = sub.add_parser("check", help=COMMANDS["check"][1])
    c.add_argument("file", help="block file (.npz or .safetensors) or stack file (docs/stacks.md)")
    c.add_argument("--json", action="store_true",
                   help="print the verdict, claim, exactness, reason and certificate as one JSON document")
    c.add_argument("--emit", metavar="OUT", help="write the residual-free block here when absorbable")
    c.add_argument("--replacing-biases", choices=("auto", "allowed", "none"), default="auto",
                   help="the question asked: may the replacing block carry biases (allowed), or must it be "
                        "bias-free (none); auto (default): as the block itself, allowed when it has a nonzero "
                        "bias (docs/check.md)")
    w = sub.add_parser("witness", help=COMMANDS["witness"][1])
    w.add_argument("residual", help="residual block file")
    w.add_argument("plain", help="candidate residual-free block file")
    w.add_argument("--json", action="store_true", help="print the verdict and its evidence as one JSON document")
    act = sub.add_parser("activations", help=COMMANDS["activations"][1])
    act.add_argument("--json", action="store_true", help="print the catalog and every check as one JSON document")
    s = sub.add_parser("scan", help=COMMANDS["scan"][1])
    s.add_argument("checkpoint", help="model checkpoint: .safetensors file or Hugging Face directory, .gguf, "
                   ".onnx, PyTorch state dict (.bin/.pt)")
    s.add_argument("--json", action="store_true", help="print every block's entry as one JSON document")
    pn = sub.add_parser("pin", help=COMMANDS["pin"][1])
    pn.add_argument("--dry-run", action="store_true", help="print the whole diff, write nothing")
    r = sub.add_parser("recheck", help=COMMANDS["recheck"][1])
    r.add_argument("certificate", help="the JSON document of absorb check --json, witness --json or audit --json, or a depth-analytic sweep file")
    r.add_argument("files", nargs="*", metavar="FILE",
                   help="the block file of a check document; the residual and plain files of a witness "
                        "document (default: the paths it names); none for a stack, an audit or a sweep document")
    r.add_argument("--json", action="store_true", help="print holds, the reason and the counts as one JSON document")
    r.add_argument("--every", type=int, metavar="K",
                   help="sweep documents only: recompute every K-th entry (the coverage of the claimed "
                        "range is always checked in full); default every entry")
    return p


def _dispatch(name: str) -> Optional[Callable[[argparse.Namespace], int]]:
    # Commands are imported on demand: `absorb check` should not pay for the report's matplotlib
    # or the proof checker's start-up.
    try:
        mod = importlib.import_module(COMMANDS[name][0])
    except ModuleNotFoundError as e:
        if e.name == COMMANDS[name][0]:
            return None
        raise
    return getattr(mod, "run", None)


def main(argv: Optional[list[str]] = None) -> int:
    """Entry point of the `absorb` console script."""
    args = _parser().parse_args(argv)
    if not args.command:
        _parser().print_help()
        return 2
    fn = _dispatch(args.command)
    if fn is None:
        print(f"absorb {args.command}: not built yet", file=sys.stderr)
        return 2
    import warnings

    import numpy as np

    try:
        # Overflow and invalid-value warnings of numpy would add lines to stderr; every
        # computation that matters checks finiteness itself and says what it concluded.
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return fn(args)
    except InputError as e:
        print(f"absorb {args.command}: error: {one_line(str(e))}", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"absorb {args.command}: error: out of memory; the input needs more memory than this "
              "machine grants (see ABSORB_MAX_MEMORY in the README's input limits)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"absorb {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away; stop quietly like other Unix tools.
        sys.stderr.close()
        return 141
    except Exception as e:  # the contract: one line and exit 2, never a traceback
        if os.environ.get("ABSORB_DEBUG"):
            raise
        print(f"absorb {args.command}: internal error ({type(e).__name__}: {one_line(str(e))}); "
              "please report it with the input file (ABSORB_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
