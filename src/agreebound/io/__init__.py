"""Bring your own data: files as people have them (every format is in
:data:`agreebound.io.registry.FORMATS`: ratings in any common encoding, delimiter and layout,
annotation tools' and data sets' exports, LLM-judge logs) read into tables, with a suggested
mapping of columns to roles that the user can see and change."""
