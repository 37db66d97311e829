"""The Streamlit dashboard's building blocks (the pages live in ``views/``).

* :mod:`dashboard.figures` - pure plotly figure builders (``plot_xxx`` with a private ``_xxx_data``);
* :mod:`dashboard.theme` - one colour and label per method, shared by every figure and card;
* :mod:`dashboard.samples` - the registry of bundled sample data sets;
* :mod:`dashboard.upload` - turn uploaded bytes into a validated score table;
* :mod:`dashboard.export` - the selection CSV and sidecar JSON as download bytes;
* :mod:`dashboard.compute` - cached jecs_core computations (Streamlit cache);
* :mod:`dashboard.state` - session-state keys and helpers;
* :mod:`dashboard.ui` - small widgets shared by the pages.

Every number shown comes from :mod:`jecs_core`; this package only arranges and draws it.
"""
