"""Layer 4, the decisions: one block (``decide``, with its certificate re-check), relu blocks
(relu-complete, relu-limit), stacks, and witnesses.  Imports claims, algebra and core.

``from oracle.decide import decide, recheck_certificate`` is the library entry point for a block.
"""

from oracle.decide.block import Verdict, decide, recheck_certificate

__all__ = ["Verdict", "decide", "recheck_certificate"]
