"""Engines: ratings in, mergeable counts (agreebound.counts) out. numpy in memory (the readers in
agreebound.io.formats, then counts.from_coded); DuckDB out of core (duckdb_engine)."""
