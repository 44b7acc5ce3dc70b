# The team dashboard: `agreebound serve` with sign-in, as an unprivileged user (README, "Deploy for a team").
# The image holds agreebound's wheel, installed (not editable) into a virtual environment at
# /opt/agreebound with the [postgres] extra, at the versions deploy/constraints.txt pins.
#
# The base, pinned by digest: two builds start from the same bytes, and a changed python:3.11-slim tag
# changes nothing until this line does. Where the digest comes from: it is one published for
# python:3.11-slim, found pinned in the public Dockerfiles of two unrelated projects (one names Docker
# Hub's python:3.11-slim, the other AWS's mirror of Docker's official images,
# public.ecr.aws/docker/library/python:3.11-slim). To move to a newer one:
# `docker pull python:3.11-slim && docker inspect --format '{{index .RepoDigests 0}}' python:3.11-slim`.
# python:3.11-slim is Debian (glibc): the binary wheels of pyarrow, duckdb, numpy and psycopg[binary]
# install as they are, where Alpine's musl would build them from source. 3.11 is the oldest Python
# pyproject.toml allows and the one the tests run on. Any Debian-like base with python3 (and its venv
# module), useradd and groupadd works: tests/app/test_container.py builds on a Debian bookworm root it
# makes itself (`--build-arg BASE=...`), since no registry image can be pulled where it runs.
ARG BASE=python:3.11-slim@sha256:9c900dea9e8fb7e16277c179b555cc72d29a352dbc33cff48ad5a0412fd5bfc7

# Words added to every pip command of the build. Empty: PyPI, as users' builds do. The container test
# gives "--no-index --find-links /wheelhouse" with a wheelhouse mounted there (podman build -v ...); a
# site with its own mirror can give "--index-url https://...". A build argument is visible in the
# image's history: never put a password or token in it.
ARG PIP_ARGS=""

# --- stage 1: the wheel, built from this source tree ----------------------------------------------
# The same wheel `python -m build` makes: the package with the dashboard (app.py, pages/, the Streamlit
# config), the samples, the format reference and the report schema under agreebound/site, whose links
# point at the top-level folders copied here beside src/.
FROM ${BASE} AS wheel
ARG PIP_ARGS
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python3 -m venv /opt/build
WORKDIR /src
COPY pyproject.toml README.md LICENSE app.py ./
COPY .streamlit/config.toml .streamlit/config.toml
COPY pages/ pages/
COPY sample_data/ sample_data/
COPY docs/ docs/
COPY schemas/ schemas/
COPY src/ src/
RUN /opt/build/bin/pip wheel --no-deps ${PIP_ARGS} --wheel-dir /wheels .

# --- stage 2: the image -----------------------------------------------------------------------------
FROM ${BASE}
ARG PIP_ARGS

# Logs straight to `docker compose logs`; pip keeps no cache in the image.
ENV PYTHONUNBUFFERED=1 \
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

# The wheel with the [postgres] extra into a virtual environment of its own (a Debian python3 has no
# pip of its own; the venv brings one), every dependency at the version deploy/constraints.txt pins:
# two builds resolve the same versions, whatever PyPI has published since (deploy/lock.py regenerates
# the file). `pip check` stops the build if the pins do not fit together. pip writes the bytecode at
# install time: everything here stays owned by root, and the server's user reads it and cannot change it.
COPY deploy/constraints.txt /opt/agreebound-constraints.txt
COPY --from=wheel /wheels/ /tmp/wheels/
RUN python3 -m venv /opt/agreebound \
 && set -- /tmp/wheels/agreebound-*.whl \
 && /opt/agreebound/bin/pip install ${PIP_ARGS} --constraint /opt/agreebound-constraints.txt "$1[postgres]" \
 && /opt/agreebound/bin/pip check \
 && rm -rf /tmp/wheels
ENV PATH=/opt/agreebound/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1

# `agreebound serve` finds the dashboard inside the installed package and runs it from there; the
# working folder is the user's home, so `agreebound samples` and reports written by hand land there.
WORKDIR /home/agreebound
USER agreebound
EXPOSE 8501

# slim has no curl: Python's urllib asks Streamlit's own health route (exit 0 only for "ok"; a refused
# connection or a timeout raises, exit 1). Podman keeps a HEALTHCHECK only in Docker's image format
# (`podman build --format docker`).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request as u; sys.exit(u.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).read() != b'ok')"]

# Reachable from other machines, so sign-in is required: without a provider in the environment
# `serve --auth` refuses to start (exit 3) instead of serving every run to anyone.
CMD ["agreebound", "serve", "--host", "0.0.0.0", "--port", "8501", "--auth"]
