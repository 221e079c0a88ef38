"""The audit report (`absorb audit --report`): header, claims table, per-claim sections,
figures from real runs, the hypothesis glossary, and rendering in headless Chromium.

Generic over the registry: every claim of proofs/claims.toml is checked, whatever they are
(today skip-reduction, homogeneous-impossible, homogeneous-any-width, gated-impossible,
gated-continuity, depth-impossible, depth-any, relu-gelu-iff, non-generic,
absorption-width, glu-flip).
"""

import base64
import json
import re
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from oracle.commands import audit
from oracle.report import browser, figures, document as report
from oracle import cli
from oracle.formal import consistency, pinned
from oracle.core.blocks import Block, Stack
from oracle.claims import base, boundary
from oracle.core.errors import InputError

REGISTRY = consistency.load_registry()
ROOT = consistency.ROOT


@pytest.fixture(scope="module")
def small_doc(quick_audit_doc) -> dict:
    """A real quick audit (tests/conftest.py: one run shared with test_cli_audit)."""
    return quick_audit_doc


@pytest.fixture(scope="module")
def reports(quick_audit_reports) -> dict:
    """small_doc written as HTML and Markdown (tests/conftest.py: shared with test_cli_audit)."""
    return quick_audit_reports


# ------------------------------------------------------------------ registry-side checks

def test_every_hypothesis_tag_has_a_meaning():
    gaps = report.glossary_gaps(REGISTRY, report.load_glossary())
    assert gaps == [], "\n".join(gaps)


def test_a_tag_without_meaning_is_named_exactly():
    fake = [{"id": "some-claim", "hypotheses": ["bias_free", "brand_new_tag"],
             "formal_not_needed": {"other_new_tag": "structural"}}]
    gaps = report.glossary_gaps(fake, report.load_glossary())
    assert any("'brand_new_tag'" in g and "claim some-claim (hypotheses)" in g for g in gaps)
    assert any("'other_new_tag'" in g and "formal_not_needed" in g for g in gaps)
    assert not any("'bias_free'" in g for g in gaps)


def test_statements_are_plain_mathematics():
    # Internal remarks (what SPEC said, what was corrected, issue numbers) belong in the informal proofs.
    for c in REGISTRY:
        for word in ("SPEC", "corrected", "issue", "TODO", "FIXME"):
            assert word not in c["statement"], f"{c['id']}: statement mentions {word!r}"
    text = (ROOT / "proofs" / "informal" / "homogeneous-any-width.md").read_text()
    assert "## Correction" in text and "absolute value" in text


def test_pinned_statements_parse_defensively(tmp_path):
    """The report reads the pinned file with oracle.formal.pinned.parse (one parser for the format):
    the goal separator is no header, a header without a name keeps nothing, uses are shown."""
    text = ("# how this file is made\n=== SkipAbsorption.A.thm\n--- for c (main)\n--- fingerprint ab\n"
            "x : R\n============================\nx = x\n--- uses SkipAbsorption.A.d\nd = 1\n"
            "=== SkipAbsorption.B.empty\n\n=== \nnot a block\n=== SkipAbsorption.C.c\nc : True\n")
    parsed = report.parse_pinned(text)
    assert parsed == {"SkipAbsorption.A.thm": "x : R\n============================\nx = x\n"
                                              "--- uses SkipAbsorption.A.d\nd = 1",
                      "SkipAbsorption.C.c": "c : True"}
    assert set(parsed) <= set(pinned.parse(text))
    assert report.parse_pinned("no blocks at all\n") == {}
    assert report.load_pinned(tmp_path / "absent.txt") is None
    # the real files: every registered declaration is shown as pinned
    coq, lean = report.load_pinned(), report.load_pinned(report.LEAN_PINNED)
    for c in REGISTRY:
        for n in consistency.registry_names(c.get("coq")) + consistency.registry_names(c.get("coq_instance")):
            assert n in coq, n
        for n in consistency.registry_names(c.get("lean")):
            assert n in lean, n


def test_scope_labels():
    def claim(**reg):
        return {"coq": {"status": "checked", "names": ["x"]}, "registry": reg}
    assert report.scope_label(claim()) == ("full", "")
    assert report.scope_label(claim(formal_scope="sufficiency", formal_scope_note="necessity: oracle")) == \
        ("sufficiency", "necessity: oracle")
    label, note = report.scope_label(claim(formal_scope="a long sentence about what the proof covers"))
    assert label == "partial" and "long sentence" in note
    assert report.scope_label({"coq": {"status": "absent"}, "registry": {}}) == ("", "")


# ------------------------------------------------------------------ instance sizes

def test_run_check_records_size_and_time_of_every_instance():
    from oracle.claims import relu_gelu
    res = base.run_check(relu_gelu.check, 6)
    assert res.passed and len(res.sizes) == res.instances == 6
    for s in res.sizes:
        assert 2 <= s["d"] <= 3 and 1 <= s["m"] <= 8 and s["seconds"] >= 0
    assert figures.size_summary(res.sizes).startswith("d ")


def test_instance_size_finds_blocks_and_stacks():
    b = Block("relu", W_up=np.ones((5, 2)), W_down=np.ones((2, 5)))
    b3 = Block("relu", W_up=np.ones((7, 2)), W_down=np.ones((2, 7)))
    assert base.instance_size(b) == {"d": 2, "m": 5}
    assert base.instance_size((b, [[Fraction(1), Fraction(2)]])) == {"d": 2, "m": 5}
    assert base.instance_size(Stack([b, b3])) == {"d": 2, "m": 7, "depth": 2}
    assert base.instance_size({"no": "block"}) is None and base.instance_size(3) is None


def test_audit_doc_carries_sizes_run_info_and_counterexample_data(small_doc):
    for c in small_doc["claims"]:
        o = c["oracle"]
        # one size per checked instance: the quick count, and the top-up that reached the declared ranges
        assert o["instances"] == audit.QUICK_INSTANCES and len(o["sizes"]) == o["instances"] + o["top_up"], c["id"]
        assert c["registry"]["id"] == c["id"]
    run = small_doc["run"]
    assert run["version"] and run["python"] and run["date"]
    assert re.fullmatch(r"[0-9a-f]{40}", run["commit"]) or run["commit"].startswith("unknown")
    assert all(cx["data"] for cx in small_doc["counterexamples"] if cx["verified"])


# ------------------------------------------------------------------ counterexamples

def test_counterexample_violation_is_computed_and_can_fail():
    data = boundary.relu_degree_one().data
    v = report.counterexample_violation(data)
    assert v["computed"] and v["pairs"][0]["exact"] and v["pairs"][0]["zero"]
    assert v["points"] == len(data["points"])
    bad = json.loads(json.dumps(data))
    bad["plain"]["W_down"][0][0] = "-2"  # no longer the sign-flipped block
    w = report.counterexample_violation(bad)
    assert w["computed"] and not w["pairs"][0]["zero"] and "NOT zero" in w["text"]
    balls = report.counterexample_violation(boundary.biased_swiglu().data)
    assert balls["computed"] and not balls["pairs"][0]["exact"]
    assert float(balls["pairs"][0]["max_abs"]) < 1e-20


# ------------------------------------------------------------------ figures from real runs

def test_ray_slopes_match_the_degrees():
    d = figures.ray_data()
    for act in ("relu2", "swiglu"):  # skip term of degree 1 near 0, degree-2 terms far out
        assert abs(d[act]["slope_small_t"] - 1) < 0.01 and abs(d[act]["slope_large_t"] - 2) < 0.01
    assert abs(d["relu"]["slope_small_t"] - 1) < 1e-6 and abs(d["relu"]["slope_large_t"] - 1) < 1e-6


def test_measured_gap_stays_above_c2_R_and_touches_it():
    d = figures.c2_data()
    assert abs(d["c2"] - 0.20710678) < 1e-8
    ratios = d["min_ratio"]
    assert min(ratios.values()) >= 1 - 1e-9
    # The one-dimensional candidates a x|x| attain the bound at R = (1 + sqrt 2)/(2a).
    touching = [v for k, v in ratios.items() if k.startswith("d = 1")]
    assert touching and max(touching) < 1 + 1e-6


def test_relaxation_bound_is_below_every_measured_distance():
    d = figures.relaxation_data()
    pts = d["random"] + d["minilm"]
    assert {p["d"] for p in d["random"]} == {2, 4, 8, 16, 32, 64}
    for p in pts:
        assert 0 < p["certified"] <= p["found"] * (1 + 1e-12) <= p["norm_M"] * (1 + 1e-12)
        assert p["certified"] <= p["relaxed"] * (1 + 1e-9) + 1e-12
        if "exact_min" in p:
            # both are float64 sums of the same terms in different orders: compare up to rounding
            assert p["certified"] <= p["exact_min"] * (1 + 1e-12)
            assert p["exact_min"] <= p["found"] * (1 + 1e-9)


def test_enumeration_and_local_search_agree_on_a_planted_index_set():
    U = np.array([[1.0, 0], [0, 1], [1, 1]])
    W = np.array([[-1.0, 0, 0.5], [0, -1, 0.25]])
    M = np.eye(2)
    assert figures.enumerate_min(U, W, M) == 0.0
    found, S = figures.local_search(U, W, M, np.array([1.0, 1.0, 0.0]))
    assert found == 0.0 and S == [0, 1]


def test_depth_fit_figure_from_a_results_file(tmp_path, monkeypatch):
    path = tmp_path / "depth_fit_results.json"
    assert figures.depth_fit_figure(path) == (None, "")
    runs = [{"label": f"relu2 d=2 L=2 seed {s}", "d": 2, "residual_widths": [3, 3], "plain_widths": [3 + w, 3],
             "added_width": w, "best_error": 10.0 ** -w if w < 4 else 0.0, "restarts": 4, "seconds": 0.1}
            for s in (0, 1) for w in range(5)]
    path.write_text(json.dumps({"script": "experiments/depth_fit.py", "seeds": [0, 1], "generated": "today",
                                "note": "synthetic file of the test", "runs": runs}))
    fig, note = figures.depth_fit_figure(path)
    assert note == "" and fig is not None
    assert "not proof" in fig.caption and "synthetic file of the test" in fig.caption
    assert len(fig.data["runs"]) == 10 and fig.svg.startswith(b"<?xml")
    # a note that only repeats the caption is not printed twice (the committed file's note does)
    path.write_text(json.dumps({"script": "s", "note": "floating-point evidence, not proof", "runs": runs}))
    assert figures.depth_fit_figure(path)[0].caption.lower().count("evidence, not proof") == 1
    path.write_text('{"runs": [{"added_width": 1, "best_error": NaN}]}')
    fig, note = figures.depth_fit_figure(path)
    assert fig is None and "unreadable" in note
    runs[0]["best_error"] = None  # one bad run is left out, and the caption says so
    path.write_text(json.dumps({"script": "s", "runs": runs}))
    fig, note = figures.depth_fit_figure(path)
    assert len(fig.data["runs"]) == 9 and "1 run(s) without a finite error left out" in fig.caption
    path.write_text(json.dumps({"runs": "not a list"}))
    assert figures.depth_fit_figure(path)[0] is None
    path.write_text("not json")
    assert figures.depth_fit_figure(path)[0] is None


def test_report_includes_depth_fits_when_present(small_doc, tmp_path, monkeypatch):
    path = tmp_path / "depth_fit_results.json"
    path.write_text(json.dumps({"script": "s", "seeds": [0], "generated": "g", "note": "n", "runs": [
        {"label": "L=2", "d": 2, "residual_widths": [2], "plain_widths": [3], "added_width": 1,
         "best_error": 0.5, "restarts": 1, "seconds": 0.0}]}))
    monkeypatch.setattr(figures, "DEPTH_FIT", path)
    out = tmp_path / "r.html"
    report.write_report(small_doc, str(out))
    assert "id='fig-depth-fit'" in out.read_text()


def test_missing_matplotlib_is_one_clear_line(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(InputError, match=r"matplotlib: pip install 'skip-absorption\[report\]'"):
        figures.require_matplotlib()
    # The audit refuses before it runs (no minute lost), with exit code 2 and one line.
    assert cli.main(["audit", "--quick", "--report", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "needs matplotlib" in err[0]
    assert not (tmp_path / "x.html").exists()


# ------------------------------------------------------------------ the written reports

def _hrefs(text: str) -> list[str]:
    return re.findall(r"href='([^']*)'", text)


def test_html_report_header_and_table(small_doc, reports):
    path, text = reports["html"]
    run = small_doc["run"]
    for item in (f"skip-absorption {run['version']}", run["commit"], run["date"], run["python"],
                 run["coq_version"], f"{audit.QUICK_INSTANCES} hypothesis-generated instances per claim",
                 "written, not compiled in this environment"):
        assert item in text, item
    assert ("Skip-absorption audit: passed" if small_doc["ok"] else "FAILED") in text
    table = text[text.index("<table id='claims'>"):]
    table = table[:table.index("</table>")]
    rows = re.findall(r"<tr>(.*?)</tr>", table)[1:]
    assert len(rows) == len(REGISTRY)
    for c, row in zip(small_doc["claims"], rows):
        assert f"#claim-{c['id']}" in row
        if c["coq"]["status"] == "checked":
            label, _ = report.scope_label(c)
            assert f"checked: {label}" in row
            # the label is the registry's short formal_scope ('full' only where it says so)
            assert label == c["registry"]["formal_scope"], c["id"]
            for ax in {a.rsplit(".", 1)[-1] for a in c["coq"]["axioms"]}:
                assert ax in row
        if c["lean"]["status"] == "written":
            assert "written, not compiled here" in row
        assert f"{c['oracle']['instances']}/{c['oracle']['instances']}" in row
        assert figures.size_summary(c["oracle"]["sizes"]) in row


def test_html_report_sections_per_claim(small_doc, reports):
    path, text = reports["html"]
    glossary = report.load_glossary()
    pinned = report.load_pinned_parts()
    import html as h
    start = text.index("<section id='coq-definitions'>")
    defs = text[start:text.index("</section>", start)]
    for c in small_doc["claims"]:
        start = text.index(f"<section id='claim-{c['id']}'>")
        sec = text[start:text.index("</section>", start)]
        assert h.escape(c["statement"], quote=True) in sec
        for tag in c["hypotheses"]:
            assert f"<code>{tag}</code></td><td>{h.escape(glossary[tag])}</td>" in sec, (c["id"], tag)
        for name in c["coq"].get("names", []):
            assert f"<code>{name}</code>" in sec
            if pinned and name in pinned:
                # the statement as Coq prints it, in the claim's section; each definition it uses
                # linked from there and printed once, in the definitions section
                assert h.escape(pinned[name].statement) in sec
                for use, body in pinned[name].uses.items():
                    anchor = report.def_anchor("coq", use)
                    assert f"href='#{anchor}'" in sec, (name, use)
                    at = defs.index(f"<div class='def' id='{anchor}'>")
                    assert h.escape(body) in defs[at:defs.index("</div>", at)], (name, use)
                    assert f"href='#claim-{c['id']}'" in defs[at:defs.index("</div>", at)]
            else:
                assert "not pinned" in sec
        if c["coq"]["status"] == "checked":
            assert f"scope <i>{h.escape(c['registry']['formal_scope'])}</i>" in sec, c["id"]
        if c["lean"]["status"] == "written":
            label = c["registry"].get("lean_formal_scope") or c["registry"]["formal_scope"]
            assert f"Lean: written, scope <i>{h.escape(label)}</i>" in sec, c["id"]
        assert f"id='fig-instances-{c['id']}'" in sec
        for cx in c["boundary"]:
            assert f"<code>{cx['name']}</code> drops <code>{cx['dropped']}</code>" in sec
        if c["boundary"]:
            assert "computed violation" in sec
    # concrete weights of a counterexample, and its computed violation
    assert "W_up = [[1, 0], [0, 1]]; W_down = [[-1, 0], [0, -1]]" in text
    assert h.escape("max |F(x) − B'(x)| = 0 (exact rationals)") in text


def test_reports_are_self_contained_and_links_resolve(reports):
    for kind, (path, text) in reports.items():
        # nothing loaded from the network: the one web address is the link to the paper
        assert "http://" not in text, kind
        assert re.findall(r"https://[^\s'\")<>]*", text) == [report.PAPER[1]], kind
        assert not re.findall(r"src=['\"](?!data:)", text), kind
        uris = re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", text)
        assert len(uris) >= 4 + len(REGISTRY), kind
        for u in uris:
            assert base64.b64decode(u).lstrip().startswith(b"<?xml")
    path, text = reports["html"]
    links = [x for x in _hrefs(text) if not x.startswith("#") and x != report.PAPER[1]]
    assert links
    for href in links:
        assert (path.parent / href).resolve().exists(), href
    ids = set(re.findall(r" id='([^']*)'", text))
    inside = [x[1:] for x in _hrefs(text) if x.startswith("#")]
    assert inside and set(inside) <= ids, sorted(set(inside) - ids)[:5]
    for c in REGISTRY:
        assert f"proofs/{c['informal']}" in text
    md_path, md = reports["md"]
    for c in REGISTRY:
        assert f"## {c['id']}: " in md
    md_ids = set(re.findall(r'<a id="([^"]*)"></a>', md))
    for href in re.findall(r"\]\(((?!data:)[^)]+)\)", md):
        if href.startswith("#"):
            assert href[1:] in md_ids, href  # a link inside the report leads to its anchor
        elif href != report.PAPER[1]:
            assert (md_path.parent / href).resolve().exists(), href


def test_a_failing_audit_still_renders_with_its_failures(small_doc, tmp_path):
    doc = json.loads(json.dumps(small_doc, default=str))
    doc["ok"] = False
    doc["problems"] = ["x: something failed"]
    doc["claims"][0]["oracle"] = {"status": "missing", "detail": "oracle.claims.gone: no module"}
    doc["claims"][1]["coq"] = {"status": "FAILED", "detail": "coqc: boom", "names": doc["claims"][1]["coq"]["names"]}
    doc["counterexamples"][0].update(verified=False, data=None, detail="ValueError: broken")
    for c in doc["claims"]:
        c["boundary"] = [cx for cx in doc["counterexamples"] if c["id"] in cx["claims"]]
    out = tmp_path / "failed.html"
    report.write_report(doc, str(out))
    text = out.read_text()
    assert "Skip-absorption audit: FAILED" in text and "x: something failed" in text
    assert "missing: oracle.claims.gone: no module" in text and "coqc: boom" in text
    assert "NOT verified" in text and "no stored points to evaluate" in text


def test_pinned_statement_is_shown_when_the_file_has_it(small_doc, tmp_path, monkeypatch):
    c = next(c for c in small_doc["claims"] if c["coq"].get("names"))
    name = c["coq"]["names"][0]
    pinned = tmp_path / "coq-statements.txt"
    pinned.write_text(f"# test file\n=== {name}\n{name.rsplit('.', 1)[-1]}\n     : PRINTED_BY_COQ_MARKER\n")
    monkeypatch.setattr(report, "PINNED", pinned)
    out = tmp_path / "p.html"
    report.write_report(small_doc, str(out))
    text = out.read_text()
    assert "PRINTED_BY_COQ_MARKER" in text and "As Coq prints it" in text


# ------------------------------------------------------------------ headless Chromium

def _chromium() -> str:
    exe = browser.find_chromium()
    if exe is None:
        pytest.fail("chromium is not installed, so the report cannot be checked in a browser: run "
                    "'make chromium-tools' as root (apt-get install -y chromium); make test does this")
    return exe


def test_report_renders_its_figures_in_chromium(reports, small_doc, tmp_path):
    exe = _chromium()
    path, _ = reports["html"]
    rec = browser.probe(path, exe)
    assert browser.rendering_problems(rec) == []
    ids = {f["id"] for f in rec["figures"]}
    assert {"fig-ray-degree", "fig-c2-bound", "fig-relaxation", "fig-time"} <= ids
    assert {f"fig-instances-{c['id']}" for c in small_doc["claims"]} <= ids
    for im in rec["images"]:
        assert im["naturalWidth"] > 100 and im["box"]["w"] > 100 and im["box"]["h"] > 50
    # The screenshot must reach at least the first figure, wherever the growing claims table puts it.
    window = browser.window_to_first_figure(rec)
    assert window[1] >= min(im["box"]["y"] + im["box"]["h"] for im in rec["images"])
    shot = browser.screenshot(path, tmp_path / "shot.png", exe, window=window)
    assert browser.blank_figures(shot, rec) == []


def test_chromium_check_fails_on_a_broken_or_blank_figure(tmp_path):
    exe = _chromium()
    good = figures.c2_figure().data_uri()
    white = "data:image/svg+xml;base64," + base64.b64encode(
        b"<svg xmlns='http://www.w3.org/2000/svg' width='400' height='200'>"
        b"<rect width='400' height='200' fill='white'/></svg>").decode()
    page = tmp_path / "broken.html"
    page.write_text(f"<!doctype html><html><body><figure id='fig-good'><img src='{good}'></figure>"
                    "<figure id='fig-broken'><img src='data:image/png;base64,iVBORw0KGgoAAAA'></figure>"
                    f"<figure id='fig-blank'><img src='{white}'></figure>"
                    "<figure id='fig-empty'></figure></body></html>")
    rec = browser.probe(page, exe)
    problems = browser.rendering_problems(rec)
    assert any("figure fig-broken" in p and "broken image" in p for p in problems)
    assert any("figure fig-empty holds no image" in p for p in problems)
    assert not any("fig-good" in p or "fig-blank" in p for p in problems)
    shot = browser.screenshot(page, tmp_path / "broken.png", exe)
    blank = browser.blank_figures(shot, rec)
    assert any("fig-blank" in b for b in blank) and not any("fig-good" in b for b in blank)


# ------------------------------------------------------------------ a report a reviewer can read

def test_reports_open_with_the_paper_link_and_a_table_of_contents(small_doc, reports):
    assert report.PAPER[1] == "https://arxiv.org/abs/2604.23705" and "arXiv 2604.23705" in report.PAPER[0]
    path, text = reports["html"]
    import html as h
    head = text[:text.index("<table class='hdr'>")]
    assert f"<a href='{report.PAPER[1]}'>{h.escape(report.PAPER[0])}</a>" in head
    nav = text[text.index("<nav id='toc'>"):text.index("</nav>")]
    assert text.index("<nav id='toc'>") < text.index("<table id='claims'>")  # before the content
    targets = re.findall(r"href='#([^']*)'", nav)
    for part in ("claims", "figures", "counterexamples", "claim-sections", "coq-definitions"):
        assert part in targets, part
    assert [t for t in targets if t.startswith("claim-") and t != "claim-sections"] == \
        [f"claim-{c['id']}" for c in small_doc["claims"]]
    # each entry leads to a part of the page, in the order the parts appear
    at = [text.index(f" id='{t}'", text.index("</nav>")) for t in targets]
    assert at == sorted(at), targets
    md_path, md = reports["md"]
    assert f"[{report.PAPER[0]}]({report.PAPER[1]})" in md.split("## Contents")[0]
    contents = md.split("## Contents", 1)[1].split("\n## ", 1)[0]
    md_targets = re.findall(r"\]\(#([^)]*)\)", contents)
    assert md_targets == targets
    assert all(f'<a id="{t}"></a>' in md for t in md_targets)


def test_each_definition_is_printed_once_and_linked_from_its_statements(small_doc, reports):
    import html as h
    pinned = report.load_pinned_parts()
    assert pinned, "proofs/pinned/coq-statements.txt holds the printed statements"
    path, text = reports["html"]
    md_path, md = reports["md"]
    used = {}
    for c in small_doc["claims"]:
        for name in c["coq"].get("names", []):
            if name in pinned:
                used.update(pinned[name].uses)
    assert len(used) >= 5, "the registered statements use definitions"
    for name, body in used.items():
        anchor = report.def_anchor("coq", name)
        assert text.count(h.escape(body)) == 1, name       # printed once in the page ...
        assert text.count(f" id='{anchor}'") == 1, name
        assert f"href='#{anchor}'" in text, name            # ... and linked from the statements
        indented = "\n".join("  " + ln for ln in body.splitlines())  # inside a list item
        assert md.count(indented) == 1, name
        assert f"(#{anchor})" in md, name
    # much shorter than printing every definition under every statement that uses it
    repeated = sum(len(h.escape(b)) * sum(name in pinned[n].uses for c in small_doc["claims"]
                                          for n in c["coq"].get("names", []) if n in pinned)
                   for name, b in used.items())
    once = sum(len(h.escape(b)) for b in used.values())
    assert repeated > once


def test_every_report_figure_is_readable(small_doc):
    """No legend over a panel or its axis labels or cut off by the figure's edge, at most
    figures.MAX_SERIES colours in a legend, none twice, and panels of a readable number of series."""
    figs = [figures.ray_figure(), figures.c2_figure(), figures.relaxation_figure(), figures.time_figure(small_doc)]
    figs += [f for f in (figures.depth_fit_figure()[0], figures.analytic_sweep_figure()[0]) if f is not None]
    figs += [f for f in (figures.instance_figure(c) for c in small_doc["claims"]) if f is not None]
    assert len(figs) >= 6 + len(small_doc["claims"]) // 2
    assert sum(1 for f in figs for p in f.panels if p["legend"]) >= 6
    for f in figs:
        assert f.panels, f.key
        assert figures.layout_problems(f) == [], f.key


def test_the_figure_check_finds_a_legend_over_its_plot_and_repeated_colours():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure
    fig = MplFigure(figsize=(5, 3))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    x = np.linspace(0, 1, 20)
    for i in range(13):
        ax.plot(x, x * i, color=f"C{i}", label=f"series {i}")  # C10 is C0 again
    ax.legend(loc="upper left")
    planted = figures.Figure("planted", "t", "c", figures._svg(fig), panels=figures.panel_layout(fig))
    problems = figures.layout_problems(planted)
    assert "planted panel 1: its legend covers panel 1 or its axis labels" in problems
    assert any("legend colours used twice: #1f77b4ff" in p for p in problems), problems
    assert "planted panel 1: 13 series in one panel" in problems
    assert not any("colours in one legend" in p for p in problems)  # 10 distinct colours: allowed
    ax.legend(loc="upper left", bbox_to_anchor=(1.5, 1.0))
    moved = figures.Figure("planted", "t", "c", figures._svg(fig), panels=figures.panel_layout(fig))
    assert "planted panel 1: its legend is cut off by the figure's edge" in figures.layout_problems(moved)
