"""Bring your own data: files as people have them (CSV/TSV in any common encoding and delimiter,
Excel, Parquet, JSON Lines, Label Studio and Prodigy exports, LLM-judge logs) read into tables,
with a suggested mapping of columns to roles that the user can see and change."""
