"""View model to text, JSON, Markdown, HTML and plotly figures; imports no streamlit."""
