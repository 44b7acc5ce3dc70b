import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# tests/ holds helper modules (the seed oracle) imported by tests and benchmarks.
sys.path.insert(0, str(Path(__file__).parent))

# CI runs the property tests with fixed seeds, so a run is reproducible; locally they explore.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True)
def fresh_caches(request):
    """Dashboard tests (tests/app) start from empty caches and a zeroed measurement count."""
    if "app" in request.node.path.parent.parts[-1:]:
        import streamlit as st

        from agreebound.ui import data

        st.cache_data.clear()
        st.cache_resource.clear()
        data.MEASURE_CALLS.clear()
    yield
