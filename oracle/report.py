"""Render the audit document: a terminal table, and Markdown or HTML reports."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any


def _oracle_cell(o: dict[str, Any]) -> str:
    if o["status"] == "pass":
        exact = o.get("exact_instances", 0)
        return f"pass {o['instances']}/{o['instances']} ({exact} exact)"
    return o["status"].upper() if o["status"] != "FAILED" else "FAILED"


def _coq_cell(c: dict[str, Any]) -> str:
    # A checked proof shows what is formal (full, sufficiency, ...), never a bare "checked".
    if c["status"] == "checked":
        return c.get("scope") or "scope?"
    return {"skipped": "skipped (no coqc)", "absent": "absent", "FAILED": "FAILED"}.get(c["status"], c["status"])


def _lean_cell(c: dict[str, Any]) -> str:
    if c["status"] == "written":
        return (c.get("scope") or "scope?") + "*"
    return {"absent": "absent", "FAILED": "FAILED"}.get(c["status"], c["status"])


def _boundary_cell(cs: list[dict[str, Any]]) -> str:
    if not cs:
        return "-"
    ok = sum(c["verified"] for c in cs)
    return f"{ok}/{len(cs)} verified"


def rows(doc: dict[str, Any]) -> list[list[str]]:
    """One row of short cells per claim."""
    return [[c["id"], c["paper_ref"], c["informal_status"], _coq_cell(c["coq"]), _lean_cell(c["lean"]),
             _oracle_cell(c["oracle"]), _boundary_cell(c["boundary"])] for c in doc["claims"]]


HEADER = ["claim", "paper", "informal", "Coq", "Lean", "oracle", "counterexamples"]


def terminal_table(doc: dict[str, Any]) -> str:
    """The audit as a fixed-width table with a short legend and the verdict."""
    table = [HEADER] + rows(doc)
    widths = [max(len(r[i]) for r in table) for i in range(len(HEADER))]
    fmt = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    lines = [fmt(HEADER), "  ".join("-" * w for w in widths)] + [fmt(r) for r in table[1:]]
    cex = doc["counterexamples"]
    lines.append("")
    lines.append(f"boundary counterexamples: {sum(c['verified'] for c in cex)}/{len(cex)} verified "
                 f"({sum(c['exact'] for c in cex)} exact)")
    for c in cex:
        lines.append(f"  {'ok ' if c['verified'] else 'BAD'} {c['name']:<28} drops {c['dropped']:<18} "
                     f"-> {', '.join(c['claims'])}")
    acts = doc["activations"]
    lines.append(f"activations: {sum(a['all_verified'] for a in acts)}/{len(acts)} catalog entries "
                 "with every declared property re-derived")
    lines.append(f"Coq: {doc['coq']['status']} ({doc['coq']['detail']})")
    lines.append("Coq/Lean columns: the formal scope ('full' = the formal statement is the whole claim, "
                 "else the part that is formal); Coq statements pinned in proofs/pinned/")
    lines.append("* Lean: written, not compiled in this environment (no Lean toolchain here); "
                 "names, binders, escape hatches and pinned statements are checked")
    lines.append(f"oracle: {doc['instances_per_claim']} hypothesis-generated instances per claim"
                 f"{' (--quick)' if doc['quick'] else ''}; 'exact' = exact rationals or arb enclosures")
    if doc["problems"]:
        lines.append("")
        lines.append(f"PROBLEMS ({len(doc['problems'])}):")
        lines += [f"  - {p}" for p in doc["problems"]]
    lines.append("")
    lines.append(f"audit {'PASSED' if doc['ok'] else 'FAILED'} in {doc['seconds']}s")
    return "\n".join(lines)


def markdown(doc: dict[str, Any]) -> str:
    """A Markdown report: the table, then each claim's statement and faces in detail."""
    out = ["# Skip-absorption audit", "",
           f"Verdict: **{'passed' if doc['ok'] else 'failed'}** in {doc['seconds']} s, "
           f"{doc['instances_per_claim']} generated instances per claim.", "",
           "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    out += ["| " + " | ".join(r) + " |" for r in rows(doc)]
    out += ["", "Lean: written, not compiled in this environment.", ""]
    for c in doc["claims"]:
        out += [f"## {c['id']} ({c['paper_ref']})", "", c["statement"], "",
                f"- hypotheses: {', '.join(c['hypotheses']) or '-'}",
                f"- informal proof: `proofs/{c['informal']}` ({c['informal_status']})",
                f"- Coq: {c['coq']['status']}: {', '.join(c['coq'].get('names', [])) or '-'} "
                f"— {c['coq']['detail']}",
                f"- Lean: {c['lean']['status']}: {', '.join(c['lean'].get('names', [])) or '-'} "
                f"— {c['lean']['detail']}"]
        o = c["oracle"]
        if "instances" in o:
            out.append(f"- oracle `{o['ref']}`: {o['status']}, {o['instances']} instances "
                       f"({o['exact_instances']} exact), precision {o['precision']}, {o['seconds']:.1f} s")
        else:
            out.append(f"- oracle: {o['status']} — {o.get('detail', '')}")
        for cx in c["boundary"]:
            out.append(f"- counterexample `{cx['name']}` (drops `{cx['dropped']}`): "
                       f"{'verified' if cx['verified'] else 'NOT verified'}, {cx['method']} — "
                       f"{cx['description']}")
        out.append("")
    if doc["problems"]:
        out += ["## Problems", ""] + [f"- {p}" for p in doc["problems"]]
    return "\n".join(out) + "\n"


def svg_oracle_chart(doc: dict[str, Any]) -> str:
    """A horizontal bar chart (inline SVG, no dependencies) of oracle time per claim."""
    claims = doc["claims"]
    secs = [float(c["oracle"].get("seconds", 0.0)) for c in claims]
    top = max(secs + [1e-9])
    bar_w, label_w, row_h = 360, 190, 18
    height = row_h * len(claims) + 30
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{label_w + bar_w + 120}' height='{height}' "
             "font-family='sans-serif' font-size='11'>",
             f"<text x='0' y='12'>oracle time per claim ({doc['instances_per_claim']} instances each)</text>"]
    for i, (c, t) in enumerate(zip(claims, secs)):
        y = 22 + i * row_h
        ok = c["oracle"]["status"] == "pass"
        w = max(1.0, bar_w * t / top)
        parts.append(f"<text x='0' y='{y + 12}'>{html.escape(c['id'])}</text>")
        parts.append(f"<rect x='{label_w}' y='{y + 2}' width='{w:.1f}' height='{row_h - 5}' "
                     f"fill='{'#5a9' if ok else '#c55'}'/>")
        parts.append(f"<text x='{label_w + w + 4:.1f}' y='{y + 12}'>{t:.2f} s "
                     f"{'' if ok else c['oracle']['status']}</text>")
    parts.append("</svg>")
    return "".join(parts)


def html_report(doc: dict[str, Any]) -> str:
    """A self-contained HTML page with the same content as the Markdown report."""
    esc = html.escape
    color = {"pass": "#d4f4d4", "checked": "#d4f4d4", "FAILED": "#f8d0d0", "missing": "#f8e8c0"}
    head = "".join(f"<th>{esc(h)}</th>" for h in HEADER)
    body = []
    for r in rows(doc):
        cells = "".join(
            f"<td style='background:{color.get(cell.split()[0], '#fff')}'>{esc(cell)}</td>" for cell in r)
        body.append(f"<tr>{cells}</tr>")
    details = "".join(
        f"<h2>{esc(c['id'])} ({esc(c['paper_ref'])})</h2><p>{esc(c['statement'])}</p>"
        f"<ul><li>Coq: {esc(c['coq']['status'])} — {esc(c['coq']['detail'])}</li>"
        f"<li>Lean: {esc(c['lean']['detail'])}</li>"
        f"<li>oracle: {esc(_oracle_cell(c['oracle']))}</li></ul>" for c in doc["claims"])
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>Skip-absorption audit</title>"
            f"<style>body{{font-family:sans-serif;max-width:70em;margin:auto}}td,th{{border:1px solid #ccc;"
            f"padding:.2em .5em}}table{{border-collapse:collapse}}</style></head><body>"
            f"<h1>Skip-absorption audit: {'passed' if doc['ok'] else 'failed'}</h1>"
            f"<table><tr>{head}</tr>{''.join(body)}</table>"
            f"<p>Lean: written, not compiled in this environment.</p>{svg_oracle_chart(doc)}"
            f"{details}</body></html>")


def write_report(doc: dict[str, Any], path: str) -> None:
    """Write a Markdown (.md) or HTML (.html) report, chosen by the file's suffix."""
    from .errors import InputError
    p = Path(path)
    if p.suffix == ".md":
        # The chart goes next to the Markdown file, which links it.
        chart = p.with_suffix(".svg")
        chart.write_text(svg_oracle_chart(doc))
        p.write_text(markdown(doc) + f"\n![oracle time per claim]({chart.name})\n")
    elif p.suffix in (".html", ".htm"):
        p.write_text(html_report(doc))
    else:
        raise InputError(f"--report must end in .md or .html, got {path!r}")
