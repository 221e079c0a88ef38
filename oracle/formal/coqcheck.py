"""Ask the compiled Coq development what the registered declarations say.

Everything here is read back from Coq itself, never grepped from the sources:

* the build uses its own coq_makefile invocation with fixed flags (the project's
  Makefile, a Makefile.coq.local or flags in the environment cannot change it);
* a registered name is resolved by its full path with ``Locate``;
* the statement is displayed as a goal after introducing its outer binders, in an
  environment where only the standard library's notations are active (project
  modules are Required, not Imported) with coercions and implicit arguments shown;
  a fingerprint of the ``Set Printing All`` form guards against anything the
  display could still hide;
* each outer binder is described from the kernel term (name or anonymous, whether
  later parts of the statement depend on it, which earlier binders it mentions)
  and from its sort;
* the bodies of the project definitions a statement mentions are printed;
* ``Print Assumptions`` runs on one bundle of every registered declaration and is
  parsed strictly: any line that is not an allowed axiom fails;
* a counterexample lemma registered for a dropped hypothesis is checked to prove
  the negation of the main theorem with exactly that binder removed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

from oracle.formal import coqsource

LOGICAL = "SkipAbsorption"
SCRIPT_VERSION = "proofcheck-3"

# The axioms a registered declaration may rest on, by fully qualified name, with the
# reason each is acceptable.  Extend only with a reason (e.g. for Coquelicot).
ALLOWED_AXIOMS: dict[str, str] = {
    "Coq.Reals.ClassicalDedekindReals.sig_forall_dec":
        "the standard library's real numbers (Coq >= 8.12 builds R from Cauchy reals plus this)",
    "Coq.Reals.ClassicalDedekindReals.sig_not_dec":
        "the standard library's real numbers",
    "Coq.Logic.FunctionalExtensionality.functional_extensionality_dep":
        "the standard library's real numbers",
    "Coq.Logic.Classical_Prop.classic":
        "the standard library's ln and Rpower (real exponents t^k) are proved with excluded middle",
}

# The axioms that mathcomp-analysis (Lebesgue measure, loaded by proofs/coq/NullSets.v alone)
# brings, with the reason each is acceptable.  They are allowed only for a claim one of whose
# registered declarations lives in the measure interface file or in a file importing it
# (measure_modules); every other claim keeps ALLOWED_AXIOMS.
MEASURE_AXIOMS: dict[str, str] = {
    "mathcomp.classical.boolp.propositional_extensionality":
        "mathcomp-analysis (classical sets and measures): equivalent propositions are equal",
    "mathcomp.classical.boolp.functional_extensionality_dep":
        "mathcomp-analysis: functions equal at every point are equal (the same statement as the "
        "standard library's axiom, declared again by mathcomp's boolp)",
    "mathcomp.classical.boolp.constructive_indefinite_description":
        "mathcomp-analysis: a witness is chosen from a proof of existence (classical choice, "
        "used for measures built by Caratheodory's extension and for sup/inf in the extended reals)",
    "Coq.Logic.Epsilon.epsilon_statement":
        "mathcomp-analysis: Hilbert's epsilon (choice of an element of a nonempty type), which "
        "mathcomp's classical library takes from the standard library's Epsilon",
}
# The one file that imports the measure library, and the library's logical root.
MEASURE_INTERFACE = "NullSets.v"
MEASURE_LIBRARY = "mathcomp"
# The lemmas that pin down what `null_set` means (a box has the product of its sides as measure,
# the unit cube 1, no null set contains a box, the whole space is not null): while any claim uses
# the measure library they must be registered, hence compiled, pinned and checked with it, so
# that "null" cannot be redefined as something every set satisfies or the measure made zero.
MEASURE_SANITY = (f"{LOGICAL}.NullSets.box_volume", f"{LOGICAL}.NullSets.unit_cube_volume",
                  f"{LOGICAL}.NullSets.null_set_contains_no_box", f"{LOGICAL}.NullSets.whole_space_not_null")

# Flags of `coqc` that the build and the queries use; nothing else reaches coqc.
COQC_FLAGS = ["-q"]
# Files next to the sources that would change the build if present.
FORBIDDEN_BUILD_FILES = ("Makefile.coq.local", "Makefile.coq.local-late", "CoqMakefile.local")
# _CoqProject lines accepted besides the .v files.
PROJECT_LINE = re.compile(rf"^(?:-R \. {LOGICAL}|-arg -w -arg [-+\w,]+)$")


@dataclass
class Binder:
    """One outer binder of a statement, as the kernel term has it."""

    pos: int
    name: Optional[str]  # None when anonymous (A -> B)
    dependent: bool  # later binders or the conclusion mention it
    mentions: list[int]  # positions of earlier binders its type mentions
    sort: str = ""  # Prop, Set, Type, ...

    @property
    def hypothesis(self) -> bool:
        """A premise rather than a parameter: a proposition, or nothing depends on it."""
        return self.sort == "Prop" or not self.dependent


@dataclass
class Decl:
    """What Coq says about one registered declaration."""

    name: str
    resolved: Optional[str] = None  # the full path Locate gives, None if absent
    kind: str = ""  # Constant, Inductive, ...
    short: str = ""  # the name as the printer writes it in the query's environment
    binders: list[Binder] = field(default_factory=list)
    conclusion_mentions: list[int] = field(default_factory=list)
    display: str = ""  # the statement shown as a goal
    printing_all: str = ""  # the statement under Set Printing All
    refs: list[str] = field(default_factory=list)  # globals its proof refers to (from the .glob)


@dataclass
class CoqReport:
    """The result of building and querying the development."""

    status: str  # "compiled" | "failed" | "skipped"
    detail: str = ""
    errors: list[dict[str, Any]] = field(default_factory=list)  # build errors: file, line, message
    compiled_modules: list[str] = field(default_factory=list)
    decls: dict[str, Decl] = field(default_factory=dict)
    defs: dict[str, dict[str, str]] = field(default_factory=dict)  # full name -> {short, print, all}
    unresolved_defs: list[str] = field(default_factory=list)
    axioms: dict[str, list[str]] = field(default_factory=dict)  # bundle name -> axiom names
    bad_assumption_lines: dict[str, list[str]] = field(default_factory=dict)
    allowed_short: dict[str, str] = field(default_factory=dict)  # printed short -> full allowed axiom
    cex_checks: dict[str, str] = field(default_factory=dict)  # "main|tag|lemma" -> ok/bad/notag
    cached: bool = False

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (for the cache)."""
        d = asdict(self)
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> "CoqReport":
        """Inverse of to_json."""
        decls = {}
        for k, v in d.get("decls", {}).items():
            v = dict(v)
            v["binders"] = [Binder(**b) for b in v.get("binders", [])]
            decls[k] = Decl(**v)
        d = dict(d, decls=decls)
        return CoqReport(**d)


def coq_available() -> bool:
    """True when coqc and coq_makefile are on PATH."""
    return shutil.which("coqc") is not None and shutil.which("coq_makefile") is not None


def _clean_env() -> dict[str, str]:
    """The environment without variables that would change coqc or make."""
    drop = ("COQ", "OTHERFLAGS", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "CAMLFLAGS")
    return {k: v for k, v in os.environ.items() if not k.startswith(drop)}


def _run(cmd: list[str], cwd: Path, timeout: int = 1200,
         extra_env: Optional[dict[str, str]] = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=dict(_clean_env(), **(extra_env or {})))


def project_problems(coqdir: Path) -> list[str]:
    """What in _CoqProject or next to it could change how coqc checks the sources."""
    out = []
    proj = coqdir / "_CoqProject"
    if not proj.exists():
        return ["proofs/coq/_CoqProject is missing"]
    for n, line in enumerate(proj.read_text().splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#") or (s.endswith(".v") and " " not in s and "/" not in s):
            continue
        if not PROJECT_LINE.match(s):
            out.append(f"proofs/coq/_CoqProject:{n}: '{s}' is not an accepted line "
                       f"(only '-R . {LOGICAL}', warning flags and file names; flags like "
                       "-type-in-type or -impredicative-set weaken the logic)")
    for name in FORBIDDEN_BUILD_FILES:
        if (coqdir / name).exists():
            out.append(f"proofs/coq/{name} would change the build; remove it")
    for f in coqsource.project_files(coqdir):
        if not (coqdir / f).exists():
            out.append(f"proofs/coq/_CoqProject lists {f}, which does not exist")
    listed = set(coqsource.project_files(coqdir))
    for p in sorted(coqdir.glob("*.v")):
        if p.name not in listed:
            out.append(f"proofs/coq/{p.name} is not listed in _CoqProject, so it is never compiled")
    return out


def _requires(coqdir: Path, name: str) -> list[tuple[str, list[str], int]]:
    """(library after From, or '' without From; the modules; line) of every Require of one file."""
    text = coqsource.strip_comments_and_strings((coqdir / name).read_text())
    out = []
    for s in coqsource.sentences(text):
        words = s.text.split()
        if "Require" not in words[:3]:
            continue
        lib = words[1] if words[0] == "From" else ""
        mods = [w for w in words[words.index("Require") + 1:] if w not in ("Import", "Export")]
        out.append((lib, mods, s.line))
    return out


def measure_modules(coqdir: Path) -> set[str]:
    """The modules (SkipAbsorption.<File>) that use the measure library: the interface file and
    every file that imports it, directly or through another file (read from the sources)."""
    files = coqsource.project_files(coqdir)
    if MEASURE_INTERFACE not in files:
        return set()
    uses = {Path(MEASURE_INTERFACE).stem}
    for name in files:  # _CoqProject lists a file after every file it imports
        if not (coqdir / name).exists():
            continue
        mods = {m for lib, ms, _ in _requires(coqdir, name) if lib == LOGICAL for m in ms}
        if mods & uses:
            uses.add(Path(name).stem)
    return {f"{LOGICAL}.{m}" for m in uses}


def measure_library_outside_interface(coqdir: Path) -> list[str]:
    """Every Require of the measure library outside its one interface file: the measure
    axioms are allowed only where the interface is used, so no other file may load the
    library by itself."""
    out = []
    for name in coqsource.project_files(coqdir):
        if name == MEASURE_INTERFACE or not (coqdir / name).exists():
            continue
        for lib, mods, line in _requires(coqdir, name):
            if lib == MEASURE_LIBRARY or lib.startswith(MEASURE_LIBRARY + ".") or \
                    any(m == MEASURE_LIBRARY or m.startswith(MEASURE_LIBRARY + ".") for m in mods):
                out.append(f"proofs/coq/{name}:{line}: loads {MEASURE_LIBRARY} directly; only "
                           f"proofs/coq/{MEASURE_INTERFACE} may (the measure axioms are allowed "
                           "only for claims that use it)")
    return out


def _parse_build_errors(text: str) -> list[dict[str, Any]]:
    errs = []
    for m in re.finditer(r'File "\.?/?([^"]+\.v)", line (\d+), characters [^\n]*\n(?:Error:)?\s*([^\n]*)'
                         r'((?:\n(?!File "|make|COQ)[^\n]*){0,3})', text):
        msg = (m.group(3) + " " + " ".join(m.group(4).split())).strip()
        errs.append({"file": Path(m.group(1)).name, "line": int(m.group(2)), "message": msg[:300]})
    return errs


UP_TO_DATE = re.compile(r"^make(?:\[\d+\])?: '([^'\s]+\.vo)' is up to date\.$", re.M)
WOULD_COMPILE = re.compile(r"\bCOQC (\S+)\.v\b")


def up_to_date(coqdir: Path, files: list[str]) -> list[str]:
    """The .vo files (of the .v files given) that exist and that make would not rebuild.

    One `make -n` over all targets answers for each: it names an up-to-date target and prints
    the COQC line of every one it would compile.  If its answer does not account for every
    target exactly once, each target is asked on its own with `make -q`."""
    vos = [Path(f).with_suffix(".vo").name for f in files]
    flags = "COQFLAGS=" + " ".join(COQC_FLAGS)
    q = _run(["make", "-n", "-k", "-f", "Makefile.coq", *vos, flags], cwd=coqdir, extra_env={"LC_ALL": "C"})
    up = set(UP_TO_DATE.findall(q.stdout))
    stale = {f"{stem}.vo" for stem in WOULD_COMPILE.findall(q.stdout)}
    if q.returncode != 0 or up & stale or not set(vos) <= up | stale:
        up = {vo for vo in vos
              if _run(["make", "-q", "-f", "Makefile.coq", vo, flags], cwd=coqdir).returncode == 0}
    return [vo for vo in vos if vo in up and (coqdir / vo).exists()]


def build(coqdir: Path) -> tuple[bool, list[dict[str, Any]], list[str], str]:
    """Compile with our own coq_makefile call; (all ok, errors, up-to-date modules, log tail)."""
    files = coqsource.project_files(coqdir)
    r = _run(["coq_makefile", "-f", "_CoqProject", "-o", "Makefile.coq"], cwd=coqdir)
    if r.returncode != 0:
        return False, [{"file": "_CoqProject", "line": 0, "message": (r.stderr or r.stdout).strip()[:300]}], [], ""
    jobs = "-j2"
    r = _run(["make", "-k", jobs, "-f", "Makefile.coq", "COQFLAGS=" + " ".join(COQC_FLAGS),
              "COQEXTRAFLAGS=", "OTHERFLAGS="], cwd=coqdir)
    log = r.stdout + r.stderr
    errors = _parse_build_errors(log)
    fresh = [f"{LOGICAL}.{Path(vo).stem}" for vo in up_to_date(coqdir, files)]
    ok = r.returncode == 0 and len(fresh) == len(files)
    if not ok and not errors:
        tail = " | ".join(log.strip().splitlines()[-4:])
        errors = [{"file": "-", "line": 0, "message": tail[:300] or "make failed"}]
    return ok, errors, fresh, log[-2000:]


# ---------------------------------------------------------------- the query script

LTAC2_PRELUDE = r"""
Ltac2 rec pc_rels (depth : int) (c : constr) :=
  let sub := fun k x => pc_rels (Int.add depth k) x in
  match Constr.Unsafe.kind c with
  | Constr.Unsafe.Rel n => if Int.lt depth n then [Int.sub n depth] else []
  | Constr.Unsafe.Prod b body => List.append (sub 0 (Constr.Binder.type b)) (sub 1 body)
  | Constr.Unsafe.Lambda b body => List.append (sub 0 (Constr.Binder.type b)) (sub 1 body)
  | Constr.Unsafe.LetIn b v body =>
      List.append (sub 0 (Constr.Binder.type b)) (List.append (sub 0 v) (sub 1 body))
  | Constr.Unsafe.App f args => List.append (sub 0 f) (List.flat_map (sub 0) (Array.to_list args))
  | Constr.Unsafe.Cast c1 _ c2 => List.append (sub 0 c1) (sub 0 c2)
  | Constr.Unsafe.Case _ ret _ scrut brs =>
      List.append (sub 0 ret) (List.append (sub 0 scrut) (List.flat_map (sub 0) (Array.to_list brs)))
  | Constr.Unsafe.Fix _ _ bs bodies =>
      let n := Array.length bs in
      List.append (List.flat_map (fun b => sub 0 (Constr.Binder.type b)) (Array.to_list bs))
                  (List.flat_map (sub n) (Array.to_list bodies))
  | Constr.Unsafe.CoFix _ bs bodies =>
      let n := Array.length bs in
      List.append (List.flat_map (fun b => sub 0 (Constr.Binder.type b)) (Array.to_list bs))
                  (List.flat_map (sub n) (Array.to_list bodies))
  | Constr.Unsafe.Proj _ x => sub 0 x
  | Constr.Unsafe.Evar _ args => List.flat_map (sub 0) (Array.to_list args)
  | _ => []
  end.

Ltac2 pc_ints (l : int list) :=
  List.fold_left (fun m i => Message.concat m (Message.concat (Message.of_string " ") (Message.of_int i)))
    l (Message.of_string "").

Ltac2 pc_say (s : string) := Message.print (Message.of_string s).

Ltac2 rec pc_walk (pos : int) (t : constr) :=
  match Constr.Unsafe.kind t with
  | Constr.Unsafe.Prod b body =>
      let nm := match Constr.Binder.name b with
                | Some id => Message.of_ident id | None => Message.of_string "_" end in
      let ms := List.map (fun k => Int.sub pos k) (pc_rels 0 (Constr.Binder.type b)) in
      Message.print (Message.concat (Message.of_string "@@BINDER ")
        (Message.concat (Message.of_int pos) (Message.concat (Message.of_string " ")
        (Message.concat nm
        (Message.concat (Message.of_string " mentions") (pc_ints ms))))));
      pc_walk (Int.add pos 1) body
  | _ =>
      let ms := List.map (fun k => Int.sub pos k) (pc_rels 0 t) in
      Message.print (Message.concat (Message.of_string "@@CONCL mentions") (pc_ints ms))
  end.

Ltac2 pc_sorts () :=
  List.iter (fun (id, _, ty) =>
    Message.print (Message.concat (Message.of_string "@@SORT ")
      (Message.concat (Message.of_ident id)
      (Message.concat (Message.of_string " ") (Message.of_constr (Constr.type ty))))))
    (Control.hyps ()).
"""

INTROS = "repeat (match goal with |- forall _ : _, _ => intro end)."


def _mark(tag: str) -> str:
    return f'Ltac2 Eval pc_say "@@{tag}".'


def _header(modules: list[str]) -> list[str]:
    return ["From Coq Require Reals.", "From Ltac2 Require Import Ltac2.",
            'Set Default Proof Mode "Classic".',
            "Require " + " ".join(modules) + "." if modules else "",
            LTAC2_PRELUDE]


def _readable() -> list[str]:
    # Only the standard library's notations (fixed by the Coq version) become active.
    return ["Import Coq.Reals.Reals.", "Open Scope R_scope.", "Set Printing Width 100.",
            "Set Printing Coercions.", "Set Printing Implicit."]


def locate_script(modules: list[str], names: list[str]) -> str:
    """Pass 1: which names exist (Locate never fails, so a missing name cannot stop the run)."""
    lines = ["From Coq Require Reals."]
    if modules:
        lines.append("Require " + " ".join(modules) + ".")
    lines.append("Set Printing Width 10000.")
    lines += [f"Locate {n}." for n in names]
    return "\n".join(lines) + "\n"


SHORTER = re.compile(r"\(shorter name to refer to it in current context is (\S+)\)")


def _shorter(lines: list[str], i: int) -> Optional[str]:
    """The 'shorter name' note of the Locate answer starting at lines[i] (same or next line)."""
    for ln in lines[i:i + 2]:
        m = SHORTER.search(ln)
        if m:
            return m.group(1)
    return None


LOCATE_LINE = re.compile(r"^(Constant|Inductive|Constructor|Notation|Module|Module Type|Ltac|Ltac2|"
                         r"Section|Variable)\s+(\S+)")


def parse_locate(out: str, names: list[str]) -> dict[str, tuple[str, str, str]]:
    """name -> (kind, full path, printed short name) for every name found at exactly that path."""
    wanted = set(names)
    res: dict[str, tuple[str, str, str]] = {}
    lines = out.splitlines()
    for i, line in enumerate(lines):
        m = LOCATE_LINE.match(line)
        if m and m.group(2) in wanted and m.group(2) not in res:
            res[m.group(2)] = (m.group(1), m.group(2), _shorter(lines, i) or m.group(2))
    return res


@dataclass
class QueryPlan:
    """What the second pass asks."""

    modules: list[str]
    decls: list[str]  # registered declarations that resolved to constants
    defs: list[str]  # project definitions to print (full names)
    instances: list[str]  # declarations whose proof term is printed
    cex_checks: list[tuple[str, str, str]]  # (main, tag, lemma)
    bundle: list[str]  # declarations whose assumptions are printed together


def bundle_definition(name: str, decls: list[str]) -> str:
    """One constant whose body mentions every declaration, for Print Assumptions.

    A chain of let-ins (Coq keeps them in the body, so Print Assumptions walks every value)
    rather than one tuple: elaborating a tuple of 200 statements takes seconds, the lets
    take milliseconds, and the assumptions printed are the same."""
    return (f"Definition {name} : True :=\n" + "".join(f"  let _ := @{n} in\n" for n in decls) + "  I.")


def query_script(plan: QueryPlan) -> str:
    """Pass 2: statements, binders, definitions, instance bodies, counterexamples, assumptions."""
    L = _header(plan.modules)
    # Assumptions first, before any Import, so axioms print with their qualified names.
    L.append("Set Printing Width 10000.")
    L.append(_mark("ALLOWED"))
    for ax in list(ALLOWED_AXIOMS) + list(MEASURE_AXIOMS):
        L.append(f"Locate {ax}.")
    if plan.bundle:
        L.append(bundle_definition("pc_bundle", plan.bundle))
        L.append(_mark("ASSUMPTIONS pc_bundle"))
        L.append("Print Assumptions pc_bundle.")
    L.append(_mark("END"))
    L += _readable()
    for n in plan.decls:
        L.append(_mark(f"DECL {n}"))
        L.append(f"Set Printing Width 10000. Locate {n}. Set Printing Width 100.")
        L.append(f"Ltac2 Eval pc_walk 1 (Constr.type constr:(@{n})).")
        L.append(f"Goal ltac:(let t := type of @{n} in exact t).")
        L.append(INTROS)
        L.append("ltac2:(pc_sorts ()).")
        L.append(_mark(f"SHOW {n}"))
        L.append("Show.")
        L.append("Abort.")
        L.append(_mark(f"ALL {n}"))
        L.append("Set Printing All. Check @" + n + ". Unset Printing All.")
        L.append(_mark("END"))
    for n in plan.defs:
        L.append(_mark(f"DEF {n}"))
        L.append(f"Set Printing Width 10000. Locate {n}. Set Printing Width 100.")
        L.append(f"Print {n}.")
        L.append(_mark(f"DEFALL {n}"))
        L.append(f"Set Printing All. Print {n}. Unset Printing All.")
        L.append(_mark("END"))
    for main, tag, lemma in plan.cex_checks:
        key = f"{main}|{tag}|{lemma}"
        L.append(f"Goal ltac:(let t := type of @{main} in exact t).")
        L.append(INTROS)
        L.append(f'first [ clear {tag} | idtac "@@CEX {key} notag" ].')
        L.append("repeat (match goal with H : _ |- _ => revert H end).")
        L.append(f'first [ (match goal with |- ?G => pose proof (@{lemma} : ~ G) as pc_ok end); '
                 f'idtac "@@CEX {key} ok" | idtac "@@CEX {key} bad" ].')
        L.append("Abort.")
    L.append(_mark("DONE"))
    return "\n".join(x for x in L if x) + "\n"


def attribution_script(modules: list[str], bundles: dict[str, list[str]]) -> str:
    """Print Assumptions of one bundle per claim (only needed when something fails)."""
    L = _header(modules)
    L.append("Set Printing Width 10000.")
    for i, (label, names) in enumerate(bundles.items()):
        if not names:
            continue
        L.append(bundle_definition(f"pc_bundle_{i}", names))
        L.append(_mark(f"ASSUMPTIONS {label}"))
        L.append(f"Print Assumptions pc_bundle_{i}.")
    L.append(_mark("END"))
    return "\n".join(x for x in L if x) + "\n"


def _sections(out: str) -> list[tuple[str, list[str]]]:
    """Split query output at '@@TAG' marker lines."""
    secs: list[tuple[str, list[str]]] = []
    cur = ("", [])
    for line in out.splitlines():
        if line.startswith("@@") and not line.startswith(("@@BINDER", "@@CONCL", "@@SORT", "@@CEX")):
            secs.append(cur)
            cur = (line[2:].strip(), [])
        elif line.strip() == "- : unit = ()":
            continue
        else:
            cur[1].append(line)
    secs.append(cur)
    return secs


def parse_assumptions_block(lines: list[str]) -> tuple[list[str], list[str]]:
    """(axiom names, lines that are neither an axiom nor the 'closed' notice) of one Print Assumptions."""
    axioms, bad = [], []
    for line in lines:
        if not line.strip() or line.startswith((" ", "\t")):
            continue  # continuation of an axiom's type
        s = line.rstrip()
        if s in ("Closed under the global context", "Axioms:"):
            continue
        m = re.match(r"^([A-Za-z_][\w'.]*)(?:\s+:(?:\s.*)?)?$", s)
        if m and not s.endswith("."):
            axioms.append(m.group(1))
        else:
            bad.append(s)
    return axioms, bad


def _strip_goal(lines: list[str]) -> str:
    """The Show output without the goal count, dedented."""
    body = [ln for ln in lines if not re.match(r"^\d+ goals?\b", ln)]
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    return "\n".join(ln[2:] if ln.startswith("  ") else ln for ln in body)


def mark_dependent(d: Decl) -> None:
    """A binder is dependent when a later binder's type or the conclusion mentions it.

    The rest of a product chain after a binder is exactly the later binders' types and the
    conclusion, and the walk records which earlier binders each of them mentions, so this is
    the same as asking whether the binder occurs in the rest of the statement."""
    later: set[int] = set(d.conclusion_mentions)
    for b in reversed(d.binders):
        b.dependent = b.pos in later
        later.update(b.mentions)


def parse_query(out: str, report: CoqReport) -> None:
    """Fill report from the output of query_script."""
    for tag, lines in _sections(out):
        if tag == "ALLOWED":
            loc_lines = lines
            for i, ln in enumerate(loc_lines):
                m = re.match(r"^Constant (\S+)", ln)
                if m and (m.group(1) in ALLOWED_AXIOMS or m.group(1) in MEASURE_AXIOMS):
                    report.allowed_short[_shorter(loc_lines, i) or m.group(1)] = m.group(1)
        elif tag.startswith("ASSUMPTIONS "):
            label = tag.split(" ", 1)[1]
            axioms, bad = parse_assumptions_block(lines)
            report.axioms[label] = axioms
            if bad:
                report.bad_assumption_lines[label] = bad
        elif tag.startswith("DECL "):
            name = tag.split(" ", 1)[1]
            d = report.decls.setdefault(name, Decl(name))
            for i, ln in enumerate(lines):
                m = re.match(r"^@@BINDER (\d+) (\S+) mentions(.*)$", ln)
                if m:
                    d.binders.append(Binder(int(m.group(1)), None if m.group(2) == "_" else m.group(2),
                                            False, [int(x) for x in m.group(3).split()]))
                    continue
                m = re.match(r"^@@CONCL mentions(.*)$", ln)
                if m:
                    d.conclusion_mentions = [int(x) for x in m.group(1).split()]
                    continue
                m = re.match(r"^@@SORT (\S+) (.*)$", ln)
                if m:
                    d.__dict__.setdefault("_sorts", []).append(m.group(2).strip())
                    continue
                m = re.match(r"^(Constant|Inductive|Constructor)\s+(\S+)", ln)
                if m:
                    d.kind, d.resolved = m.group(1), m.group(2)
                    d.short = _shorter(lines, i) or m.group(2)
            sorts = d.__dict__.pop("_sorts", [])
            for b, s in zip(d.binders, sorts):
                b.sort = s
            mark_dependent(d)
        elif tag.startswith("SHOW "):
            report.decls[tag.split(" ", 1)[1]].display = _strip_goal(lines)
        elif tag.startswith("ALL "):
            report.decls[tag.split(" ", 1)[1]].printing_all = "\n".join(lines).strip()
        elif tag.startswith("DEF "):
            name = tag.split(" ", 1)[1]
            short = name
            for i, ln in enumerate(lines):
                if ln.startswith(("Constant ", "Inductive ", "Constructor ")):
                    short = _shorter(lines, i) or short
            text = [ln for ln in lines if not ln.startswith(("Constant ", "Inductive ", "Constructor "))
                    and not SHORTER.search(ln)]
            report.defs[name] = {"short": short, "print": "\n".join(text).strip(), "all": ""}
        elif tag.startswith("DEFALL "):
            name = tag.split(" ", 1)[1]
            report.defs.setdefault(name, {"short": name, "print": "", "all": ""})["all"] = "\n".join(lines).strip()
    for m in re.finditer(r"@@CEX (\S+) (ok|bad|notag)", out):
        report.cex_checks[m.group(1)] = m.group(2)


def glob_references(coqdir: Path, module: str, name: str) -> Optional[list[str]]:
    """Globals that the proof of `name` refers to, read from the compiler's .glob file
    (Coq's own name resolution); None when the .glob is missing or stale."""
    stem = module.split(".")[-1]
    glob, src = coqdir / f"{stem}.glob", coqdir / f"{stem}.v"
    if not glob.exists() or not src.exists():
        return None
    text = glob.read_text(errors="replace").splitlines()
    if not text or text[0] != "DIGEST " + hashlib.md5(src.read_bytes()).hexdigest():
        return None
    short = name[len(module) + 1:]
    start, end = None, None
    defs = []
    for ln in text:
        m = re.match(r"^(\w+) (\d+):(\d+) (\S+) (\S+)$", ln)
        if m and not ln.startswith("R") and m.group(1) not in ("binder", "not"):
            defs.append((int(m.group(2)), m.group(5), m.group(4)))
    for i, (pos, nm, sec) in enumerate(defs):
        full = nm if sec == "<>" else f"{sec}.{nm}"
        if full == short:
            start = pos
            end = defs[i + 1][0] if i + 1 < len(defs) else 10 ** 12
            break
    if start is None:
        return None
    refs = []
    for ln in text:
        m = re.match(r"^R(\d+):\d+ (\S+) (\S+) (\S+) \w+$", ln)
        if m and start <= int(m.group(1)) < end:
            sec = "" if m.group(3) == "<>" else m.group(3) + "."
            refs.append(f"{m.group(2)}.{sec}{m.group(4)}")
    return refs


# ---------------------------------------------------------------- tokens and closures

TOKEN = re.compile(r"[A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)+")


def qualified_tokens(text: str) -> set[str]:
    """Dotted identifiers in printed Coq text."""
    return set(TOKEN.findall(text))


def project_token(tok: str, file_modules: set[str]) -> bool:
    """Does a printed dotted name refer into this development?"""
    first = tok.split(".", 1)[0]
    return first == LOGICAL or first in file_modules


def def_closure(text: str, report: CoqReport, file_modules: set[str],
                owners: Optional[dict[str, str]] = None) -> tuple[list[str], list[str]]:
    """(project definitions mentioned transitively, in first-use order; unresolved project tokens).

    A constructor or field of a project Record/Inductive (owners: full name -> full name of
    the type) resolves to its type, whose printed definition contains it."""
    by_short = {v["short"]: k for k, v in report.defs.items()}
    by_short.update({k: k for k in report.defs})
    for member, owner in (owners or {}).items():
        if owner in report.defs:
            short_owner = report.defs[owner]["short"]
            prefix = short_owner.rsplit(".", 1)[0] + "." if "." in short_owner else ""
            by_short.setdefault(prefix + member.rsplit(".", 1)[-1], owner)
            by_short.setdefault(member, owner)
    seen: list[str] = []
    unresolved: list[str] = []
    todo = [text]
    while todo:
        t = todo.pop(0)
        for tok in sorted(qualified_tokens(t), key=t.find):
            if not project_token(tok, file_modules):
                continue
            full = by_short.get(tok)
            if full is None:
                if tok not in unresolved:
                    unresolved.append(tok)
                continue
            if full not in seen:
                seen.append(full)
                todo.append(report.defs[full]["print"])
    return seen, unresolved


# ---------------------------------------------------------------- the whole query

def cache_dir() -> Path:
    """Where query results are cached, outside any repository copy."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "skip-absorption" / "proofcheck"


def _cache_key(coqdir: Path, request: dict[str, Any]) -> str:
    h = hashlib.sha256(SCRIPT_VERSION.encode())
    h.update(Path(__file__).read_bytes())  # a changed checker never reads an old answer
    for p in sorted(coqdir.glob("*.v")) + [coqdir / "_CoqProject"]:
        if p.exists():
            h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    h.update(json.dumps(request, sort_keys=True).encode())
    h.update(_run(["coqc", "--version"], cwd=coqdir).stdout.encode())
    return h.hexdigest()


def _coqc(coqdir: Path, script: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "ProofCheckQuery.v"
        f.write_text(script)
        return _run(["coqc", *COQC_FLAGS, "-R", str(coqdir), LOGICAL, str(f)], cwd=Path(tmp))


def query(root: Path, registered: list[str], instances: list[str],
          cex_checks: list[tuple[str, str, str]], claim_bundles: dict[str, list[str]],
          attribute: bool = False, use_cache: bool = True) -> CoqReport:
    """Build the development and ask Coq about every registered declaration."""
    root = Path(root).resolve()
    coqdir = root / "proofs" / "coq"
    if not coq_available():
        return CoqReport("skipped", "coqc not installed (apt-get install -y coq)")
    ok, errors, fresh, log = build(coqdir)
    request = {"registered": registered, "instances": instances, "cex": cex_checks,
               "bundles": claim_bundles, "attribute": attribute, "fresh": fresh}
    key = _cache_key(coqdir, request)
    cfile = cache_dir() / f"{key}.json"
    if ok and use_cache and cfile.exists():
        try:
            rep = CoqReport.from_json(json.loads(cfile.read_text()))
            rep.cached = True
            return rep
        except (OSError, ValueError, TypeError, KeyError):
            pass  # unreadable or pruned meanwhile: ask Coq again
    report = CoqReport("compiled" if ok else "failed", errors=errors, compiled_modules=fresh)
    if not ok:
        report.detail = "; ".join(f"{e['file']}:{e['line']}: {e['message']}" for e in errors[:3])
    sources = coqsource.read_project(coqdir, LOGICAL)
    candidates = [n for sf in sources if sf.module in fresh
                  for n, (kw, _) in sf.declarations.items() if kw in coqsource.DEF_KEYWORDS]
    owners = {k: v for sf in sources for k, v in sf.owners.items()}
    # Pass 1: resolve every registered name (and the candidate definitions) by its full path.
    names = list(dict.fromkeys(registered + candidates))
    r1 = _coqc(coqdir, locate_script(fresh, names))
    if r1.returncode != 0:
        report.status = "failed"
        report.detail = "Locate pass failed: " + (r1.stderr or r1.stdout).strip()[:400]
        return report
    located = parse_locate(r1.stdout, names)
    for n in registered:
        d = Decl(n)
        if n in located:
            d.kind, d.resolved, d.short = located[n]
        report.decls[n] = d
    usable = [n for n in registered if report.decls[n].kind == "Constant"
              and report.decls[n].resolved == n]
    defs = [n for n in candidates if n in located and located[n][1] == n and n not in owners]
    plan = QueryPlan(fresh, usable, defs, [n for n in instances if n in usable],
                     [(m, t, c) for m, t, c in cex_checks if m in usable and c in usable], usable)
    r2 = _coqc(coqdir, query_script(plan))
    if r2.returncode != 0:
        report.status = "failed"
        report.detail = "query pass failed: " + (r2.stderr or r2.stdout).strip()[:600]
        return report
    parse_query(r2.stdout, report)
    for n in plan.instances:
        refs = glob_references(coqdir, ".".join(n.split(".")[:2]), n)
        report.decls[n].refs = list(dict.fromkeys(refs)) if refs is not None else ["<no up-to-date .glob>"]
    if "@@DONE" not in r2.stdout:
        report.status = "failed"
        report.detail = "query pass stopped early"
        return report
    # Anything beyond the axioms of the reals is judged claim by claim (a measure axiom is
    # allowed only for the claims that use the measure library), so it needs the attribution.
    bad_bundle = bool(report.bad_assumption_lines) or any(
        report.allowed_short.get(a) not in ALLOWED_AXIOMS for a in report.axioms.get("pc_bundle", []))
    if attribute or bad_bundle:
        bundles = {k: [n for n in v if n in usable] for k, v in claim_bundles.items()}
        _attribute(coqdir, fresh, bundles, report, use_cache and ok)
    if report.status == "compiled":
        try:
            cache_dir().mkdir(parents=True, exist_ok=True)
            cfile.write_text(json.dumps(report.to_json()))
            _prune_cache()
        except OSError:
            pass
    return report


def _closure_files(coqdir: Path, names: list[str]) -> Optional[list[str]]:
    """The project files that the modules of these declarations Require, directly or not
    (with those modules' own files); None when a module's file is missing."""
    todo = {n.split(".")[1] + ".v" for n in names if n.startswith(LOGICAL + ".") and n.count(".") >= 2}
    seen: set[str] = set()
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        if not (coqdir / f).is_file():
            return None
        seen.add(f)
        for lib, mods, _ in _requires(coqdir, f):
            for m in mods:
                if lib == LOGICAL:
                    todo.add(m.split(".")[0] + ".v")
                elif not lib and m.startswith(LOGICAL + "."):
                    todo.add(m.split(".")[1] + ".v")
    return sorted(seen)


_LIBRARIES: list[str] = []


def _libraries_fingerprint() -> str:
    """Name, size and time of every compiled file of the installed Coq libraries outside the
    standard library (Coquelicot, mathcomp): a changed installation never reads an old answer."""
    if not _LIBRARIES:
        h = hashlib.sha256()
        where = _run(["coqc", "-where"], cwd=Path.cwd()).stdout.strip()
        contrib = Path(where) / "user-contrib"
        for p in sorted(contrib.rglob("*.vo")) if contrib.is_dir() else []:
            st = p.stat()
            h.update(f"{p.relative_to(contrib)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
        _LIBRARIES.append(h.hexdigest())
    return _LIBRARIES[0]


def _bundle_key(coqdir: Path, modules: list[str], label: str, names: list[str]) -> Optional[str]:
    """The cache key of one claim's Print Assumptions: everything its answer depends on (the
    checker, Coq and its libraries, the Required module list, _CoqProject, and the sources of
    the files its declarations depend on).  None when those files cannot be determined."""
    files = _closure_files(coqdir, names)
    if files is None:
        return None
    h = hashlib.sha256(b"attribution\0" + SCRIPT_VERSION.encode())
    h.update(Path(__file__).read_bytes())
    h.update(_run(["coqc", "--version"], cwd=coqdir).stdout.encode())
    h.update(_libraries_fingerprint().encode())
    project = coqdir / "_CoqProject"
    h.update(project.read_bytes() if project.exists() else b"")
    h.update(json.dumps([modules, label, names]).encode())
    for f in files:
        h.update(f.encode() + b"\0" + (coqdir / f).read_bytes() + b"\0")
    return h.hexdigest()


def _attribute(coqdir: Path, modules: list[str], bundles: dict[str, list[str]], report: CoqReport,
               use_cache: bool) -> None:
    """Print Assumptions of one bundle per claim, into report.axioms / bad_assumption_lines.

    A claim whose declarations depend on no changed file reads its answer from the cache (the
    answer of Print Assumptions is fixed by the compiled files in its Require closure), so a
    copy of the development with one file changed asks Coq only about the claims that file can
    reach; the measure library makes each of these questions cost seconds."""
    keys = {label: (_bundle_key(coqdir, modules, label, names) if use_cache and names else None)
            for label, names in bundles.items()}
    todo = {}
    for label, names in bundles.items():
        cfile = cache_dir() / "attribution" / f"{keys[label]}.json" if keys[label] else None
        if cfile is not None and cfile.exists():
            try:
                got = json.loads(cfile.read_text())
                report.axioms[label] = list(got["axioms"])
                if got["bad"]:
                    report.bad_assumption_lines[label] = list(got["bad"])
                continue
            except (OSError, ValueError, TypeError, KeyError):
                pass  # unreadable: ask Coq again
        todo[label] = names
    if not any(todo.values()):
        return
    r3 = _coqc(coqdir, attribution_script(modules, todo))
    if r3.returncode != 0:
        return
    parse_query(r3.stdout, report)
    for label, names in todo.items():
        if keys.get(label) and label in report.axioms:
            try:
                (cache_dir() / "attribution").mkdir(parents=True, exist_ok=True)
                target = cache_dir() / "attribution" / f"{keys[label]}.json"
                part = target.with_suffix(f".{os.getpid()}.part")
                part.write_text(json.dumps({"axioms": report.axioms[label],
                                            "bad": report.bad_assumption_lines.get(label, [])}))
                os.replace(part, target)  # a reader in another process never sees half a file
            except OSError:
                pass
    _prune_cache(keep=2000, sub="attribution")


def _prune_cache(keep: int = 40, sub: str = "") -> None:
    files = sorted((cache_dir() / sub).glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for p in files[keep:]:
        try:
            p.unlink()
        except OSError:
            pass
