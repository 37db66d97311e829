"""JECS dashboard: the frame.  Run with ``streamlit run app.py``.

Sets the page config and session defaults (the shipped real audit, Wikipedia x 8
fine-tuned SmolLM2 models, is active from the first second; the paper's synthetic K = 4
sample when the real audit's files are absent), routes to the pages, then shows the
active data set in the sidebar and writes it into the URL. The sidebar is drawn after the
page so an upload or scoring run is named there in the same rerun.
To add a page, add an ``st.Page`` to ``PAGES`` in :func:`frame` (see views/README.md).

The file has two roles.  ``streamlit run app.py`` finds ``app`` (an ``st.App``) at the bottom,
imports this file as a module and serves it; the app's lifespan starts the warm-up
(:func:`dashboard.runtime_gc.lifespan`: the landing page's imports and its default view,
computed while the server starts and the browser loads the page).  Every session's script run
(and every ``AppTest``) executes this file as ``__main__`` and draws the frame.
"""

from pathlib import Path

import streamlit as st

HERE = Path(__file__).resolve().parent
SELECT = "views/select_page.py"


def _home() -> None:
    from dashboard.runtime_gc import freeze_loaded

    # The default page is served at "/" only, so a link to "/select" would not find it; "/" forwards here.
    freeze_loaded()  # Streamlit's collection after this run walks only what the run created
    st.switch_page(SELECT, query_params=st.query_params.to_dict())


def frame() -> None:
    """One script run: page config, session defaults, the chosen page, then the sidebar and the URL."""
    from dashboard.runtime_gc import freeze_imported_modules, wait_for_warm_up

    wait_for_warm_up()  # two threads importing the same circularly linked modules can deadlock
    from dashboard import state, ui

    st.set_page_config(
        page_title="JECS · joint benchmark decontamination",
        # A local file: a Material icon here would make the browser fetch the favicon from a font host.
        page_icon=str(HERE / "dashboard" / "assets" / "favicon.png"),
        layout="wide",
        initial_sidebar_state="expanded",
    )
    home = st.Page(_home, title="Home", url_path="home", default=True, visibility="hidden")
    PAGES = {  # a hidden home that forwards to Select, the audit pages, the lesson
        "": [home],
        "Audit": [
            st.Page("views/data_page.py", title="Data", icon=":material/dataset:", url_path="data"),
            st.Page("views/score_page.py", title="Score", icon=":material/calculate:", url_path="score"),
            st.Page(SELECT, title="Select", icon=":material/filter_alt:", url_path="select"),
            st.Page("views/leaderboard_page.py", title="Leaderboard", icon=":material/leaderboard:",
                    url_path="leaderboard"),
            st.Page("views/evaluate_page.py", title="Evaluate", icon=":material/monitoring:", url_path="evaluate"),
        ],
        "Learn": [
            st.Page("views/learn_page.py", title="The super-uniformity tax", icon=":material/school:",
                    url_path="learn"),
        ],
    }
    navigation = st.navigation(PAGES)
    if navigation is home:  # "/" forwards at once: the sidebar and the data set are drawn by the run it forwards to
        navigation.run()
        return
    state.init_session()
    ui.inject_css()
    st.sidebar.markdown("### :material/filter_alt: JECS")
    st.sidebar.caption("One shared benchmark subset whose global contamination rate stays below α across K models.")
    sidebar_slot = st.sidebar.container()
    try:
        navigation.run()
    finally:
        # Also after st.stop() in a page; the page may have changed the active data set.
        with sidebar_slot:
            ui.sidebar_dataset()
        state.sync_url()
    # Once per process, after a page is drawn to its end (not on a run that forwards or stops): importing
    # every dashboard module first would delay a fresh server's first paint. Keeps Streamlit's per-run
    # gc.collect(2) cheap afterwards.
    freeze_imported_modules()


if __name__ == "__main__":  # a session's script run
    frame()
else:  # imported by `streamlit run app.py`, which serves `app`
    from dashboard.runtime_gc import lifespan

    app = st.App(Path(__file__).resolve(), lifespan=lifespan)
