"""User strings inside the page's Markdown warnings are escaped character by character, entities included."""

from __future__ import annotations

import re

from dashboard.ui import _plain_markdown


def test_every_character_markdown_acts_on_is_escaped():
    text = "a&amp;b **bold** <b>x</b> $x$ :red[y] `code` # h ~s~ | p_1 \\"
    escaped = _plain_markdown(text)
    assert re.sub(r"\\(.)", r"\1", escaped) == text  # nothing lost: unescaping gives the text back
    for ch in "&*<>$:[]`#~|_\\":
        assert "\\" + ch in escaped
    assert "\\&amp;" in escaped  # an HTML entity is shown as written, not as '&'
