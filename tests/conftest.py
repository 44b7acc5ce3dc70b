import sys
from pathlib import Path

# tests/ holds helper modules (the seed oracle) imported by tests and benchmarks.
sys.path.insert(0, str(Path(__file__).parent))
