"""User-supplied strings inside Streamlit's Markdown-rendering elements (st.error, st.success, ...).

Prefer ``st.text`` for a bare user string. Where a message mixes our words with a user's
(a file name inside an error), :func:`escape` backslash-escapes every ASCII punctuation
character, which CommonMark (and Streamlit's ``:color[...]`` / ``:material/...:`` / ``$``
extensions) then shows literally: an image link in a column name stays text.
"""

from __future__ import annotations

import re

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def escape(text: object) -> str:
    """``text`` with every ASCII punctuation character backslash-escaped and newlines kept as line breaks."""
    return _PUNCTUATION.sub(r"\\\1", str(text)).replace("\n", "  \n")


def isolated_list(texts) -> str:
    """``texts`` joined by commas, each in a Unicode isolate (FSI ... PDI): a right-to-left override
    inside one id then reorders that id only, never the ones printed after it."""
    return ", ".join(f"\u2068{text}\u2069" for text in texts)
