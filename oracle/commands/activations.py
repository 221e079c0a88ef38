"""``absorb activations``: the catalog, with every declared property re-derived."""

from __future__ import annotations

import argparse
import json
import textwrap

from oracle.core import activations


def run(args: argparse.Namespace) -> int:
    """Print the catalog with every declared property re-derived."""
    report = activations.catalog_report()
    if args.json:
        fams = {name: {"members": list(members), "description": what}
                for name, members, what in activations.families()}
        print(json.dumps({"activations": report, "families": fams,
                          "all_verified": all(r["all_verified"] for r in report)}, indent=2))
    else:
        head = f"{'name':<11} {'role':<10} {'hom.deg':>7} {'block':>5} {'s(z)-s(-z)=z':>12} " \
               f"{'g(z)+g(-z)=1':>12} {'s(z)+s(-z)=z^2':>14} {'relu limit':>10} {'f(0)':>5} {'cont@0':>6} " \
               f"{'diff@0':>6}  checked"
        print(head)
        print("-" * len(head))
        for r in report:
            dcl = r["declared"]
            yn = lambda v: "yes" if v else "no"  # noqa: E731
            deg = "-" if dcl["homogeneity_degree"] is None else str(dcl["homogeneity_degree"])
            bdeg = "-" if dcl["block_degree"] is None else str(dcl["block_degree"])
            ok = "all verified" if r["all_verified"] else "MISMATCH: " + ", ".join(
                c["property"] for c in r["checks"] if not c["verified"])
            print(f"{r['name']:<11} {r['role']:<10} {deg:>7} {bdeg:>5} {yn(dcl['odd_part_identity']):>12} "
                  f"{yn(dcl['flip_symmetry']):>12} {yn(dcl['square_flip']):>14} {yn(dcl['relu_limit']):>10} "
                  f"{dcl['value_at_0']:>5} {yn(dcl['continuous_at_0']):>6} {yn(dcl['differentiable_at_0']):>6}  {ok}")
        print("\nEvery declared property was re-derived (sympy where it decides, else 60-digit "
              "evaluation; the relu limit from arb balls on [-64, 64] and 60 digits beyond); use --json "
              "for the method of each check.")
        print("\nFamilies (oracle/core/activations.py):")
        for name, members, what in activations.families():
            print(f"  {name}: {', '.join(members) or '-'}")
            print(textwrap.fill(what, width=100, initial_indent="      ", subsequent_indent="      "))
    return 0 if all(r["all_verified"] for r in report) else 1
