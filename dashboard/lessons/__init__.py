"""The Learn page's sections, one module each (``views/learn_page.py`` lays them out in order).

Each module draws one part of the lesson with Streamlit: its controls, its figure (from
``dashboard.figures.lesson`` / ``lesson_posthoc``) and its text, whose numbers come from the data
functions of ``dashboard.lesson_data``, ``lesson_looking`` and ``lesson_granularity`` through the
cached wrappers of ``dashboard.lesson_cache``.
"""
