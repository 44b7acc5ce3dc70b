"""The Panel page's data folder: long ratings of any size from the server's folder, measured out
of core with DuckDB (the browser never sends a path)."""

from __future__ import annotations

import streamlit as st

from agreebound.ui import state
from agreebound.ui.blocks import md
from agreebound.ui.data import Loaded
from agreebound.ui.loading import try_panel_source
from agreebound.ui.state import K, session


def folder_picker() -> None:
    """Long ratings of any size from the server's data folder, measured out of core with DuckDB.
    Only what the folder holds is offered; the browser never sends a path."""
    import os
    import time

    from agreebound.ui.data import data_folder, folder_data, folder_entries

    entries = folder_entries()
    if not entries:
        return
    with st.expander("Open a large data set from the server's data folder (DuckDB, any size)"):
        st.caption(f"Long ratings (columns unit, rater, value, and optionally dimension) in CSV or Parquet, in the folder "
                   f"{md(data_folder().name, 60)} on the server (set by AGREEBOUND_DATA_DIR); a subfolder of parts is "
                   "one data set. Measured out of core: the sliders then only decide, as for uploads.")
        pick = st.selectbox("Data set", list(entries), index=None, key=K.FOLDER_PICK,
                            placeholder="choose a file, or a folder of parts...")
        st.button("Measure with DuckDB", key=K.FOLDER_MEASURE, on_click=session.press_folder_go)
        if session.take_folder_go() and pick in entries:
            files = entries[pick]
            size = sum(os.path.getsize(f) for f in files)
            with st.status(f"Measuring {md(pick, 80)} with DuckDB: {len(files):,} file{'s' if len(files) != 1 else ''}, "
                           f"{size / 2**20:,.1f} MiB...", expanded=False) as status:
                t0 = time.perf_counter()
                # new data starts from its own suggestions: in force once it is adopted
                error = try_panel_source(Loaded(f"data folder: {pick}", folder_data(pick, files)),
                                         ("auto", "auto", None))
                if error:
                    status.update(label=f"Could not measure {md(pick, 80)}", state="error")
                    state.remember_error("panel", error)
                else:
                    status.update(label=f"Measured {md(pick, 80)} in {time.perf_counter() - t0:.1f} s", state="complete")
                    state.remember_error("panel", None)
                    session.set_folder_message(f"Measured {pick} with DuckDB in {time.perf_counter() - t0:.1f} s.")
                    st.rerun()
        if session.folder_message:
            st.caption(md(session.folder_message, 200))
