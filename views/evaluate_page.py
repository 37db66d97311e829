"""Evaluate page: does each rule hold its target on this data, and what power does it buy?

Runs the paper's Monte-Carlo protocol on the active (labelled) data set, the twin estimate
of the unconditional GCR, and the sensitivity sweeps over lambda, K, k_n and rho. Rules come
from the registry (:data:`jecs_core.REGISTRY`).
"""

import streamlit as st

from dashboard import evaluation_runs as runs
from dashboard import shift_keys, state
from dashboard.figures.evaluation import plot_gcp_power, plot_sweep
from dashboard.plain import escape
from jecs_core import METHODS, REGISTRY

ALPHA_CHOICES = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5]
SWEEPS = {
    "λ (tail threshold)": ("lambda", "λ", "Fixed λ from 0.3 to 0.9 and the data-driven choice ('auto')."),
    "K (number of models)": ("k", "K", "The first K models of the table, for growing K."),
    "k_n (kNN size)": ("knn", "k_n", "Fixed neighbour counts and the default ⌈√m_R⌉ ('auto')."),
    "ρ (training fraction)": ("rho", "ρ", "A simulated three-block audit (789 items, as in WikiMIA): ρ changes the labels, "
                              "so each ρ gets a freshly generated table with the same pool seed."),
}


def _download(frame, label: str, file_name: str, key: str) -> None:
    out = runs.download_frame(frame, data_name=data.name, data_key=data.key, seed=int(seed))
    st.download_button(label, runs.csv_bytes(out), file_name=file_name, mime="text/csv",
                       icon=":material/download:", key=key,
                       help="Results live in this browser session: a reload (F5) or a shared link clears them, "
                       "so download them to keep them (the file records the data set and the seed to rerun them).")


def _table(frame, key: str) -> None:
    st.dataframe(runs.readable(frame), hide_index=True, width="stretch", key=key,
                 column_config={c: st.column_config.NumberColumn(format="%.4f")
                                for c in ("GCP", "GCP ± SE", "GCR", "GCR ± SE", "power", "power ± SE")})


def _run(key, task, unit: str | None = None) -> None:
    """Run ``task(report)`` (under a progress bar counting ``unit``, if given) and keep its frame under
    ``key``; a table the run cannot use (too few items for a twin, say) gets one line saying why."""
    bar = st.progress(0.0, text="Starting…") if unit else st.empty()

    def report(done: int, total: int) -> None:
        bar.progress(done / total, text=f"{done:,} of {total:,} {unit}")

    try:
        out = task(report)
    except ValueError as exc:
        st.error(escape(" ".join(str(exc).split())), icon=":material/error:")
        return
    finally:
        bar.empty()
    runs.store(key, out)


def _protocol() -> None:
    key = runs.RunKey("protocol", data.key, int(reps), alphas, int(seed), methods=methods)
    if st.button("Run evaluation", type="primary", icon=":material/play_arrow:", key="eval.run"):
        _run(key, lambda report: runs.run_protocol(key, table, report), "repetitions")
    summary = runs.stored(key)
    if summary is None:
        st.caption("Press **Run evaluation** to run the protocol with these settings.")
        return
    st.plotly_chart(plot_gcp_power(summary), width="stretch", key="eval.fig.main")
    over = summary[summary["over_target"] & summary["valid"]]
    if len(over):
        st.warning("Mean GCP above α for a rule with a finite-sample guarantee: " + ", ".join(
            f"{r.label} at α = {r.alpha:g} ({r.gcp:.3f} ± {r.gcp_se:.3f})" for r in over.itertuples()))
    st.info(SE_NOTE, icon=":material/info:")
    _table(summary, "eval.table")
    _download(summary, "Download results (CSV)", "jecs_evaluation.csv", "eval.download")


def _twin() -> None:
    st.subheader("Unconditional GCR: fresh twin tables")
    st.caption("Fits a simple model of this audit (score distributions, exposure) and evaluates every rule on fresh "
               "synthetic tables drawn from it, so the mean GCR covers the variation between tables that the protocol's "
               "SE leaves out. 'Twin tables per pattern' below; the seed above.")
    tables = st.number_input("Twin tables per pattern", 2, 2000, 100, 10, key="eval.twin_tables")
    key = runs.RunKey("twin", data.key, int(tables), alphas, int(seed), methods=methods)
    if st.button("Run the twin estimate", icon=":material/play_arrow:", key="eval.twin_run"):
        _run(key, lambda report: runs.run_twin(key, table, report), "twin tables")
    frame = runs.stored(key)
    if frame is not None:
        _table(frame, "eval.twin_table")
        _download(frame, "Download the twin estimate (CSV)", "jecs_twin.csv", "eval.twin_download")


def _sweep_figure(frame, symbol: str, kind: str) -> None:
    # One row of GCP / power panels per chosen α.
    st.plotly_chart(plot_sweep(frame, alphas=alphas, parameter=symbol), width="stretch", key=f"eval.fig.{kind}")


def _sweeps() -> None:
    st.header("Sensitivity sweeps", divider="gray")
    st.caption("Each sweep reruns the protocol for every setting at every chosen α, with the repetitions and seed above.")
    for tab, (kind, symbol, help_text) in zip(st.tabs(list(SWEEPS)), SWEEPS.values()):
        with tab:
            st.caption(help_text)
            if kind == "k" and table.K < 2:
                st.info("The K sweep needs a table with at least two models.")
                continue
            extra = (int(st.slider("Models K in the simulated audit", 2, 16, 8, key="eval.rho_k")),) if kind == "rho" else ()
            sweep_key = runs.RunKey(kind, data.key if kind != "rho" else "simulated", int(reps), alphas, int(seed), extra,
                                    methods)
            if st.button(f"Run the {symbol} sweep", key=f"eval.sweep.{kind}", icon=":material/play_arrow:"):
                with st.spinner(f"Sweeping {symbol}…"):
                    _run(sweep_key, lambda _report, key=sweep_key: runs.run_sweep(key, table))
            frame = runs.stored(sweep_key)
            if frame is None:
                continue
            _sweep_figure(frame, symbol, kind)
            _table(frame, f"eval.sweep_table.{kind}")
            _download(frame, f"Download the {symbol} sweep (CSV)", f"jecs_sweep_{kind}.csv", f"eval.sweep_download.{kind}")


data = state.active()
table = data.table
# What the protocol's standard errors cover, in the page's own words (the engine's note names API functions).
SE_NOTE = ("These standard errors cover only the subsampling noise on this one fixed table. A rule's GCP varies far "
           "more between independent tables of the same design (10-25 times this SE on audit-like designs), so the "
           "protocol mean is not the rule's unconditional GCR; the section \"Unconditional GCR: fresh twin tables\" "
           "below averages over fresh synthetic tables matched to this audit.")

st.title("Evaluate: does the selection hold its target?")
st.caption(f"n = {table.n:,}, m = {table.m:,}, K = {table.K}. Each repetition draws 80% of the calibration items and 80% "
           "of the test items without replacement, runs every chosen rule, and measures the realized GCP and power "
           "against the member labels; the page reports means ± standard errors. Data set:")
st.text(data.name)
if shift_keys.spec(data.key) is not None:
    st.info("The evaluation runs the rules on plain conformal p-values: the covariate-aware p-values chosen on the "
            "Data page are not evaluated here.", icon=":material/info:")

if not table.has_labels:
    st.info(
        "**This data set has no member labels**, so realized contamination cannot be measured. "
        "Evaluation needs `member_<model>` columns (0/1) on the test rows, as in the bundled samples or in an "
        "audit built with controlled fine-tuning. Choose a labelled sample on the Data page, or upload a table "
        "with labels.",
        icon=":material/info:",
    )
    st.page_link("views/data_page.py", label="Go to the Data page", icon=":material/dataset:")
else:
    with st.container(border=True):
        c1, c2, c3 = st.columns([1, 2.4, 1], gap="large")
        reps = c1.number_input("Repetitions", 10, 5000, 200, 10, key="eval.reps",
                               help="Monte-Carlo repetitions (the paper uses 500). More is smoother and slower.")
        chosen = c2.multiselect("Target levels α", ALPHA_CHOICES, default=[0.1, 0.2, 0.3, 0.4, 0.5], key="eval.alphas",
                                help="Every α is evaluated on the same draws.")
        seed = c3.number_input("Seed", 0, 2**31 - 1, 0, key="eval.seed", help="Same seed, same numbers.")
        picked = st.multiselect("Rules", list(METHODS), default=list(METHODS), key="eval.methods",
                                format_func=lambda m: REGISTRY[m].label,
                                help="Every registered rule; each one's guarantee is in the table.")
    if not chosen or not picked:
        st.warning("Choose at least one α and one rule.")
    else:
        alphas = tuple(sorted(float(a) for a in chosen))
        methods = tuple(m for m in METHODS if m in picked)
        _protocol()
        if runs.twin_available():
            _twin()
        _sweeps()
