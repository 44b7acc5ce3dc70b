# The team dashboard: `agreebound serve` with sign-in, as an unprivileged user (README, "Deploy for a team").
#
# python:3.11-slim is Debian (glibc): the binary wheels of pyarrow, duckdb, numpy and psycopg[binary] install
# as they are, where Alpine's musl would build them from source. 3.11 is the oldest Python pyproject.toml
# allows and the one the test suite runs on.
FROM python:3.11-slim

# No .pyc files written at run time (the code is read-only to the server's user), logs straight to
# `docker compose logs`, and pip keeps no cache in the image.
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# The server's user: fixed uid/gid 10001 (a host's file permissions and a volume's owner stay stable
# across rebuilds), a home of its own, no login shell. Its data home (XDG_DATA_HOME) is where runs.db
# goes when AGREEBOUND_DB is unset (`docker run` without compose); it exists in the image, owned by
# the user, so a named volume mounted there starts with the right owner.
RUN groupadd --system --gid 10001 agreebound \
 && useradd --system --uid 10001 --gid agreebound --home-dir /home/agreebound --create-home \
        --shell /usr/sbin/nologin agreebound \
 && mkdir -p /home/agreebound/.local/share/agreebound \
 && chown -R agreebound:agreebound /home/agreebound
ENV HOME=/home/agreebound \
    XDG_DATA_HOME=/home/agreebound/.local/share

WORKDIR /app

# The package first (this layer, with every dependency, is rebuilt only when src/ or pyproject.toml
# change). Installed *editable*: the dashboard finds sample_data/ and docs/ next to its source
# (agreebound/ui/data.py: ROOT = three folders above the module), which is /app only when the code
# is imported from /app/src. A plain `pip install .` puts the module in site-packages, and every
# page then fails on its first run with FileNotFoundError .../lib/python3.11/sample_data/... .
# compileall: the bytecode is made once here, since the server's user cannot write it under /app.
COPY pyproject.toml README.md ./
COPY src/ src/
RUN pip install --no-cache-dir -e '.[postgres]' \
 && python -m compileall -q src

# What the server reads at run time: the app and its pages (serve finds app.py in the working
# folder), the Streamlit config (serve sets the protections on the command line as well), the
# bundled samples and the help page's format reference. Everything stays owned by root: the
# server's user reads it and cannot change it.
COPY app.py ./
COPY pages/ pages/
COPY .streamlit/config.toml .streamlit/config.toml
COPY sample_data/ sample_data/
COPY docs/ docs/

USER agreebound
EXPOSE 8501

# slim has no curl: Python's urllib asks Streamlit's own health route (exit 0 only for "ok"; a refused
# connection or a timeout raises, exit 1).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request as u; sys.exit(u.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).read() != b'ok')"]

# Reachable from other machines, so sign-in is required: without a provider in the environment
# `serve --auth` refuses to start (exit 3) instead of serving every run to anyone.
CMD ["agreebound", "serve", "--host", "0.0.0.0", "--port", "8501", "--auth"]
