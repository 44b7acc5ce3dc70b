import os
import sys
from pathlib import Path

from hypothesis import settings

# tests/ holds helper modules (the seed oracle) imported by tests and benchmarks.
sys.path.insert(0, str(Path(__file__).parent))

# CI runs the property tests with fixed seeds, so a run is reproducible; locally they explore.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
