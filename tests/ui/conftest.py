"""The dashboard's AppTest tests: each starts from empty caches and a zeroed measurement count, and
``db`` gives a test a run store of its own."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def fresh_caches():
    """Every test here starts from empty Streamlit caches and a zeroed measurement count."""
    import streamlit as st

    from agreebound.ui import data

    st.cache_data.clear()
    st.cache_resource.clear()
    data.MEASURE_CALLS.clear()
    yield


@pytest.fixture
def db(tmp_path, monkeypatch):
    """A database of this test's own (the app's sessions share one store per URL)."""
    from agreebound.app import store as store_module

    url = f"sqlite:///{tmp_path / 'runs.db'}"
    monkeypatch.setenv("AGREEBOUND_DB", url)
    store_module.forget_shared()
    yield url
    store_module.forget_shared()
