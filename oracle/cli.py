"""The `absorb` command: audit the claims, decide concrete blocks, scan checkpoints."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import textwrap
from typing import Any, Callable, NoReturn, Optional

from oracle import __version__
from oracle.commands.output import VERDICT_EXIT, one_line
from oracle.core import io as bio
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


def _codes(title: str, rows: list[tuple[int, str]]) -> str:
    """An epilog table: a title and one aligned line per exit code."""
    return title + "\n" + "".join(f"  {code:<4} {what}\n" for code, what in rows)


_BAD = (2, "bad arguments, environment (ABSORB_MAX_MEMORY, ...) or input: one line on stderr")
_END = [(130, "interrupted (Ctrl-C)"), (141, "the reader of stdout went away (e.g. | head)")]
_ANY = (0, "a verdict was printed, whatever it is")


def _verdict_codes(verdicts: tuple[str, str, str]) -> str:
    return _codes("with --exit-code, the verdict's code instead of 0:",
                  [(VERDICT_EXIT[v], v) for v in verdicts])


# What each subcommand does and prints (its --help description) and its exit codes (the epilog).
DESCRIPTIONS: dict[str, tuple[str, str]] = {
    "audit": (
        "Run every claim of proofs/claims.toml: its oracle check on generated instances (each "
        "certificate re-checked from its JSON), the Coq build with the pinned statements and Print "
        "Assumptions, the Lean scans, the boundary counterexamples and the activation catalog.\n\n"
        "Output: a table of every claim on stdout whose last line is the verdict "
        "('audit PASSED in ...s' or 'audit FAILED in ...s'); --json prints one JSON document "
        "instead; --report writes a self-contained Markdown or HTML report. Progress goes to stderr: "
        "a one-line bar on a terminal, a few plain lines otherwise, every step with --verbose.",
        _codes("exit codes:", [(0, "every check passed"),
                               (1, "the audit found a problem (listed above the verdict line)"), _BAD, *_END])),
    "check": (
        "Decide whether the residual block x -> Mx + B(x) of a block file (or a stack of blocks) "
        "equals a residual-free block of the same kind and width, and cite the claim that decides it.\n\n"
        "Output: verdict (absorbable, not_absorbable or undecided; exact or not), block, claim, reason "
        "and certificate lines on stdout; --json prints one JSON document that absorb recheck "
        "re-verifies; --emit writes the replacing block when the verdict is absorbable.",
        _codes("exit codes:", [_ANY, _BAD, *_END])
        + _verdict_codes(("absorbable", "not_absorbable", "undecided"))),
    "witness": (
        "Compare a residual block R with a candidate residual-free block P: a certified input where "
        "they differ, or the evidence that they are the same function.\n\n"
        "Output: verdict (agree, differ or undecided; exact or not) with the point and the two values, "
        "or the evidence, on stdout; --json prints one JSON document that absorb recheck re-verifies.",
        _codes("exit codes:", [_ANY, _BAD, *_END]) + _verdict_codes(("agree", "differ", "undecided"))),
    "activations": (
        "List the activation catalog and re-derive every declared property of every activation "
        "(sympy where it decides, else 60-digit evaluation; the relu limit in arb balls).\n\n"
        "Output: one row per activation and the families the decisions use; --json prints the "
        "catalog, every check and its method as one JSON document.",
        _codes("exit codes:", [(0, "every declared property re-derived"),
                               (1, "a declared property did not re-derive"), _BAD, *_END])),
    "scan": (
        "Find every MLP block of a model checkpoint (safetensors file or Hugging Face folder, GGUF, "
        "ONNX, PyTorch state dict) and decide each one as absorb check does.\n\n"
        "Output: one row per block (shapes, activation and where it was read, biases, verdict, claim) "
        "and a summary on stdout, progress on stderr; --json prints one JSON document (absorb audit "
        "--report R --scan FILE.json puts it in the report).",
        _codes("exit codes:", [(0, "every block found was decided (and, with --emit, the model written)"),
                               (1, "--emit: the compiled model's outputs differ from the original's by more "
                                   "than 1e-4 (relative, float32 onnxruntime runs; for safetensors, numpy encoder runs "
                                   "in float32 and float64); it is deleted, not written"),
                               (2, "bad arguments or input, or a block could not be read (the others "
                                   "are still listed), or --emit refused (the reason on stderr)"),
                               (3, "the checkpoint was read but holds no MLP block (the skipped linear "
                                   "layers are listed with their reasons)"), *_END])),
    "pin": (
        "After reviewing a change of a registered Coq or Lean statement: regenerate the pinned "
        "statements (proofs/pinned/coq-statements.txt and lean-statements.txt) from the compiled "
        "development and rewrite them.\n\n"
        "Output: the diff of each file, then 'rewritten' or 'unchanged'; --dry-run writes nothing.",
        _codes("exit codes:", [(0, "written, nothing to write, or a dry run"),
                               (1, "the statements could not be regenerated (nothing written)"),
                               _BAD, *_END])),
    "recheck": (
        "Re-verify a certificate from its document and the weights alone: a document of absorb check "
        "--json, witness --json or audit --json, or the depth-analytic sweep "
        "(proofs/certificates/depth-analytic-sweep.json).\n\n"
        "Output: 'holds' or 'does not hold' with the reason and the counts on stdout; --json "
        "prints them as one JSON document.",
        _codes("exit codes:", [(0, "the document holds"), (1, "it does not hold (the reason is printed)"),
                               _BAD, *_END])),
}


def _sub(sub: Any, name: str) -> argparse.ArgumentParser:
    """A subcommand's parser with its one-line help, its description and its exit codes."""
    description, epilog = DESCRIPTIONS[name]
    return sub.add_parser(name, help=COMMANDS[name][1], description=_wrap(description), epilog=epilog,
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def _wrap(text: str, width: int = 90) -> str:
    """Paragraphs filled to `width` (the raw formatter keeps the epilog's tables as written)."""
    return "\n\n".join(textwrap.fill(par, width) for par in text.split("\n\n"))


class _Parser(argparse.ArgumentParser):
    """argparse with the project's error contract: one line on stderr and exit 2 (no usage block)."""

    commands: dict[str, argparse.ArgumentParser]

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {one_line(message)} ({self.prog} --help lists the options)\n")


def _parser() -> "_Parser":
    p = _Parser(
        prog="absorb",
        description="When can an MLP block absorb its own skip connection? Proofs, "
                    "certificates and a high-precision oracle.",
        epilog="Every command exits 2 with one line on stderr on bad input, never with a traceback; "
               "absorb COMMAND --help lists each command's output and exit codes.")
    p.add_argument("--version", action="version", version=f"absorb (skip-absorption) {__version__}",
                   help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND",
                           help="what to do (absorb COMMAND --help lists its options)")
    a = _sub(sub, "audit")
    a.add_argument("--json", action="store_true", help="one JSON document on stdout")
    a.add_argument("--quick", action="store_true", help="fewer generated instances (well under a minute)")
    a.add_argument("--report", metavar="FILE", help="also write a Markdown (.md) or HTML (.html) report")
    a.add_argument("--scan", action="append", metavar="FILE.json",
                   help="include this document of absorb scan --json in the report (repeat for "
                        "several; needs --report)")
    a.add_argument("--claim", action="append", metavar="ID",
                   help="audit only this claim (repeat, or ID1,ID2); default: every registered claim")
    a.add_argument("--instances", type=int, metavar="N",
                   help="generated instances per claim (default 100, or 20 with --quick)")
    a.add_argument("--seed", type=int, metavar="S",
                   help="seed of the generated instances (default 0; printed in every run)")
    a.add_argument("--coverage", action="store_true",
                   help="also measure, per claim, the branches of its check and decision code that the "
                        "drawn instances reach (coverage.py, branch mode; the 'coverage' extra); a table "
                        "after the audit's, or the field branch_coverage with --json")
    a.add_argument("--verbose", "-v", action="store_true",
                   help="every progress line on stderr, and the reasons proofs/claims.toml gives for "
                        "weakened or absent checks on stdout")
    c = _sub(sub, "check")
    c.add_argument("file", help="block file (.npz or .safetensors) or stack file (docs/stacks.md)")
    c.add_argument("--json", action="store_true",
                   help="print the verdict, claim, exactness, reason and certificate as one JSON document")
    c.add_argument("--emit", metavar="OUT", help="write the residual-free block here when absorbable")
    c.add_argument("--min-width", action="store_true",
                   help="with --emit: write a residual-free block of exactly the minimal width (relu-complete, "
                        "gelu-complete), whatever the verdict at the block's own width")
    c.add_argument("--exit-code", action="store_true",
                   help="exit with the verdict's code: 0 absorbable, 3 not_absorbable, 4 undecided")
    c.add_argument("--replacing-biases", choices=("auto", "allowed", "none"), default="auto",
                   help="the question asked: may the replacing block carry biases (allowed), or must it be "
                        "bias-free (none); auto (default): as the block itself, allowed when it has a nonzero "
                        "bias (docs/check.md)")
    w = _sub(sub, "witness")
    w.add_argument("residual", help="residual block file")
    w.add_argument("plain", help="candidate residual-free block file")
    w.add_argument("--json", action="store_true", help="print the verdict and its evidence as one JSON document")
    w.add_argument("--exit-code", action="store_true",
                   help="exit with the verdict's code: 0 agree, 3 differ, 4 undecided")
    act = _sub(sub, "activations")
    act.add_argument("--json", action="store_true", help="print the catalog and every check as one JSON document")
    s = _sub(sub, "scan")
    s.add_argument("checkpoint", help="model checkpoint: .safetensors file or Hugging Face directory, .gguf, "
                   ".onnx, PyTorch state dict (.bin/.pt)")
    s.add_argument("--json", action="store_true", help="print every block's entry as one JSON document")
    s.add_argument("--emit", metavar="OUT", help="ONNX models, and BERT-family (bert, roberta) safetensors "
                   "checkpoints with config.json: write the model with every MLP skip compiled away (post-LN "
                   "blocks x + B(x) replaced by equal residual-free blocks; safetensors out with a config.json "
                   "beside OUT saying absorb.mlp_skip = false, which standard loaders do not read) and check it "
                   "end to end (onnxruntime; a numpy encoder for safetensors); refused (exit 2) where the "
                   "architecture does not allow it")
    s.add_argument("--tokenizer", metavar="FILE", help="with --emit: a Hugging Face tokenizer file (JSON) or a vocab.txt for the "
                   "end-to-end check of a text model (else random token ids)")
    pn = _sub(sub, "pin")
    pn.add_argument("--dry-run", action="store_true", help="print the whole diff, write nothing")
    r = _sub(sub, "recheck")
    r.add_argument("certificate", help="the JSON document of absorb check --json, witness --json or audit --json, or a depth-analytic sweep file")
    r.add_argument("files", nargs="*", metavar="FILE",
                   help="the block file of a check document; the residual and plain files of a witness "
                        "document (default: the paths it names); for a stack document the stack file when its "
                        "verdict is undecided without a claim (docs/stacks.md), none for an audit or "
                        "a sweep document")
    r.add_argument("--json", action="store_true", help="print holds, the reason and the counts as one JSON document")
    r.add_argument("--every", type=int, metavar="K",
                   help="sweep documents only: recompute every K-th entry (the coverage of the claimed "
                        "range is always checked in full); default every entry")
    p.commands = sub.choices  # name -> the command's parser (its errors name the command)
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


def check_environment() -> None:
    """Refuse a malformed ABSORB_MAX_MEMORY or ABSORB_MAX_INFLATION before any work (InputError)."""
    bio.max_memory()
    bio.max_inflation()


def main(argv: Optional[list[str]] = None) -> int:
    """Entry point of the `absorb` console script."""
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # said by the command's own parser: "absorb pin: error: unrecognized arguments: ..."
        sub = parser.commands.get(args.command) if args.command else None
        (sub or parser).error(f"unrecognized arguments: {' '.join(extra)}")
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
        check_environment()
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
