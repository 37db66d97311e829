"""Evaluate page: does JECS hold its target on this data, and what power does it buy?

Runs the paper's Monte-Carlo protocol on the active (labelled) data set and the
sensitivity sweeps over lambda, K, k_n and rho.
"""

import streamlit as st

from dashboard import evaluation_runs as runs
from dashboard import state
from dashboard.figures.evaluation import plot_gcp_power, plot_sweep

ALPHA_CHOICES = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5]

data = state.active()
table = data.table

st.title("Evaluate: does the selection hold its target?")
st.caption(
    f"Data: **{data.name}** (n = {table.n:,}, m = {table.m:,}, K = {table.K}). Each repetition draws 80% of the "
    "calibration items and 80% of the test items without replacement, runs all four rules, and measures the "
    "realized GCP and power against the member labels; the page reports means ± standard errors."
)

if not table.has_labels:
    st.info(
        "**This data set has no member labels**, so realized contamination cannot be measured. "
        "Evaluation needs `member_<model>` columns (0/1) on the test rows, as in the bundled samples or in an "
        "audit built with controlled fine-tuning. Choose a labelled sample on the Data page, or upload a table "
        "with labels.",
        icon=":material/info:",
    )
    st.page_link("views/data_page.py", label="Go to the Data page", icon=":material/dataset:")
    st.stop()

with st.container(border=True):
    c1, c2, c3 = st.columns([1, 2.4, 1], gap="large")
    reps = c1.number_input("Repetitions", 10, 5000, 200, 10, key="eval.reps",
                           help="Monte-Carlo repetitions (the paper uses 500). More is smoother and slower.")
    alphas = c2.multiselect("Target levels α", ALPHA_CHOICES, default=[0.1, 0.2, 0.3, 0.4, 0.5], key="eval.alphas",
                            help="Every α is evaluated on the same draws.")
    seed = c3.number_input("Seed", 0, 2**31 - 1, 0, key="eval.seed", help="Same seed, same numbers.")

if not alphas:
    st.warning("Choose at least one α.")
    st.stop()
alphas = tuple(sorted(float(a) for a in alphas))
key = runs.RunKey("protocol", data.key, int(reps), alphas, int(seed))

if st.button("Run evaluation", type="primary", icon=":material/play_arrow:", key="eval.run"):
    bar = st.progress(0.0, text="Starting…")

    def report(done: int, total: int) -> None:
        bar.progress(done / total, text=f"{done:,} of {total:,} repetitions")

    runs.store(key, runs.run_protocol(key, table, report))
    bar.empty()

summary = runs.stored(key)
if summary is None:
    st.caption("Press **Run evaluation** to run the protocol with these settings.")
else:
    st.plotly_chart(plot_gcp_power(summary), width="stretch", key="eval.fig.main")
    over = summary[summary["over_target"]]
    valid_over = over[over["valid"]]
    if len(valid_over):
        st.warning("Mean GCP above α for a valid rule: " + ", ".join(
            f"{r.label} at α = {r.alpha:g} ({r.gcp:.3f} ± {r.gcp_se:.3f})" for r in valid_over.itertuples()))
    st.caption("† mean GCP above α. Union and intersection are invalid baselines, shown because they fail.")
    shown = summary[["label", "alpha", "gcp", "gcp_se", "power", "power_se", "mean_selected", "over_target"]].copy()
    shown["over_target"] = shown["over_target"].map({True: "†", False: ""})
    st.dataframe(
        shown, hide_index=True, width="stretch", key="eval.table",
        column_config={
            "label": "method", "alpha": st.column_config.NumberColumn("α", format="%.2f"),
            "gcp": st.column_config.NumberColumn("GCP", format="%.4f"),
            "gcp_se": st.column_config.NumberColumn("± SE", format="%.4f"),
            "power": st.column_config.NumberColumn("power", format="%.4f"),
            "power_se": st.column_config.NumberColumn("± SE ", format="%.4f"),
            "mean_selected": st.column_config.NumberColumn("mean selected", format="%.1f"),
            "over_target": "over α",
        },
    )
    st.download_button("Download results (CSV)", summary.to_csv(index=False).encode(), file_name="jecs_evaluation.csv",
                       mime="text/csv", icon=":material/download:", key="eval.download")

st.header("Sensitivity sweeps", divider="gray")
st.caption("Each sweep reruns the protocol for every setting, at the α levels chosen above "
           f"(shown: the first, α = {alphas[0]:g}), with the repetitions and seed above.")
SWEEPS = {
    "λ (tail threshold)": ("lambda", "λ", "Fixed λ from 0.3 to 0.9 and the data-driven choice ('auto')."),
    "K (number of models)": ("k", "K", "The first K models of the table, for growing K."),
    "k_n (kNN size)": ("knn", "k_n", "Fixed neighbour counts and the default ⌈√m_R⌉ ('auto')."),
    "ρ (training fraction)": ("rho", "ρ", "A simulated three-block audit (789 items, as in WikiMIA): ρ changes the labels, "
                              "so each ρ gets a freshly generated table with the same pool seed."),
}
tabs = st.tabs(list(SWEEPS))
for tab, (kind, symbol, help_text) in zip(tabs, SWEEPS.values()):
    with tab:
        st.caption(help_text)
        extra = ()
        if kind == "k" and table.K < 2:
            st.info("The K sweep needs a table with at least two models.")
            continue
        if kind == "rho":
            extra = (int(st.slider("Models K in the simulated audit", 2, 16, 8, key="eval.rho_k")),)
        sweep_key = runs.RunKey(kind, data.key if kind != "rho" else "simulated", int(reps), alphas, int(seed), extra)
        if st.button(f"Run the {symbol} sweep", key=f"eval.sweep.{kind}", icon=":material/play_arrow:"):
            with st.spinner(f"Sweeping {symbol}…"):
                runs.store(sweep_key, runs.run_sweep(sweep_key, table))
        frame = runs.stored(sweep_key)
        if frame is None:
            continue
        st.plotly_chart(plot_sweep(frame, alpha=alphas[0], parameter=symbol), width="stretch", key=f"eval.fig.{kind}")
        st.dataframe(frame.drop(columns=["parameter", "value"]), hide_index=True, width="stretch", key=f"eval.sweep_table.{kind}")
        st.download_button(f"Download the {symbol} sweep (CSV)", frame.to_csv(index=False).encode(),
                           file_name=f"jecs_sweep_{kind}.csv", mime="text/csv", key=f"eval.sweep_download.{kind}")
