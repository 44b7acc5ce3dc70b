"""Agreebound: is this verdict reliable enough to act on?  (streamlit run app.py)"""

from agreebound.ui import shell

shell.run_app()
