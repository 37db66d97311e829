"""JECS dashboard: the frame.  Run with ``streamlit run app.py``.

Sets the page config and session defaults (the bundled paper sample is active from
the first second), shows the active data set in the sidebar, and routes to the pages.
To add a page, add an ``st.Page`` to ``PAGES`` (see views/README.md).
"""

import streamlit as st

from dashboard import state, ui

st.set_page_config(
    page_title="JECS · joint benchmark decontamination",
    page_icon=":material/filter_alt:",
    layout="wide",
    initial_sidebar_state="expanded",
)

PAGES = {
    "Audit": [
        st.Page("views/data_page.py", title="Data", icon=":material/dataset:", url_path="data"),
        st.Page("views/score_page.py", title="Score", icon=":material/calculate:", url_path="score"),
        st.Page("views/select_page.py", title="Select", icon=":material/filter_alt:", url_path="select", default=True),
        st.Page("views/evaluate_page.py", title="Evaluate", icon=":material/monitoring:", url_path="evaluate"),
    ],
    "Learn": [
        st.Page("views/learn_page.py", title="The super-uniformity tax", icon=":material/school:", url_path="learn"),
    ],
}

state.init_session()
ui.inject_css()
navigation = st.navigation(PAGES)
st.sidebar.markdown("### :material/filter_alt: JECS")
st.sidebar.caption("One shared benchmark subset whose global contamination rate stays below α across K models.")
ui.sidebar_dataset()
navigation.run()
