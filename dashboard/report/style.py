"""The report's inline stylesheet (no external fonts or files: the report opens offline)."""

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1100px;
       color: #1f2937; line-height: 1.45; padding: 0 1rem; }
h1 { font-size: 1.6rem; } h2 { border-bottom: 1px solid #e5e7eb; padding-bottom: .2rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: .5rem 0; font-size: .92rem; }
th, td { border: 1px solid #e5e7eb; padding: .25rem .6rem; text-align: left; vertical-align: top; }
table.kv th { background: #f9fafb; font-weight: 600; width: 16rem; }
table.grid thead th { background: #f3f4f6; }
pre { background: #f9fafb; border: 1px solid #e5e7eb; padding: .6rem; overflow-x: auto; font-size: .82rem; }
ul.warnings li { color: #9a3412; } ul.warnings li.none { color: inherit; }
section.figure { margin: 1.5rem 0; }
"""
