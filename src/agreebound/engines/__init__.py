"""Engines: ratings in, mergeable counts (agreebound.panel.counts) out. numpy in memory (numpy_engine,
over a panel the readers in agreebound.io built); DuckDB out of core (duckdb_engine); Spark on a
cluster (spark_engine). SQL engines only aggregate: agreebound.panel.alpha measures every engine's counts."""
