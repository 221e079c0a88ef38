"""Layer 4, the decisions: one block (``decide``, with its certificate re-check), relu blocks
(relu-complete, relu-limit), stacks, and witnesses.  Imports claims, algebra and core.

``from oracle.decide import decide, recheck_block_document`` is the library entry point for a block
(``recheck_block_document`` is the re-check ``absorb recheck`` runs on a ``check --json`` document;
``recheck_certificate`` re-verifies the certificate's evidence alone).
"""

from oracle.decide.block import Verdict, decide, recheck_certificate
from oracle.decide.document import check_block_document, recheck_block_document

__all__ = ["Verdict", "check_block_document", "decide", "recheck_block_document", "recheck_certificate"]
