"""Layer 5, the reports: the Markdown/HTML audit report, its figures (matplotlib) and the
headless-browser check of the rendered page.  Imports the layers below."""

__all__ = ["branches", "browser", "document", "figures"]
