"""Settings, read once at the entry point from the environment and .env, then passed down as values."""
from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    SecretStr,
    Tag,
    ValidationError,
    field_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict, SettingsError

from rag.errors import ConfigurationError

from . import threads


class _Spec(BaseModel):
    """A JSON setting's item: unknown keys are refused (a typo is an error, not a silent default)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class SourceSpec(_Spec):
    """One DOCBOT_SOURCES entry: a folder, its globs, and the channels that may see it."""

    kind: Literal["folder"] = "folder"
    path: Path
    name: str = ""
    include: list[str] | None = None
    exclude: list[str] | None = Field(None, description="globs skipped in addition to hidden and _ names")
    include_hidden: bool = Field(False, description="also index hidden (.name) and draft (_name) files and folders")
    channels: list[str] | None = Field(None, description="channel ids that may see it; unset: every channel")


class GitSpec(_Spec):
    """A DOCBOT_SOURCES entry of kind "git": one branch of a repository, synced from the last indexed commit."""

    kind: Literal["git"]
    repository: str = Field(min_length=1, description="clone URL (https, ssh) or a local path; no credentials in it")
    branch: str = Field("HEAD", min_length=1, description="branch to follow; HEAD: the remote's default")
    name: str = ""
    include: list[str] | None = None
    exclude: list[str] | None = None
    channels: list[str] | None = Field(None, description="channel ids that may see it; unset: every channel")
    link: str | None = Field(None, description="citation URL template with {commit}, {branch}, {path}")
    token_env: str | None = Field(None, description="environment variable holding an HTTPS token (read-only)")
    token_file: Path | None = Field(None, description="file holding an HTTPS token (read-only)")
    username: str = Field("x-access-token", description="user name sent with the token (GitHub: x-access-token)")


class ConfluenceSpec(_Spec):
    """A DOCBOT_SOURCES entry of kind "confluence": the pages of some spaces, synced by CQL `lastmodified`."""

    kind: Literal["confluence"]
    base_url: str = Field(min_length=1, description="https://<site>.atlassian.net/wiki (Cloud) or the server's URL")
    spaces: list[str] = Field(min_length=1, description="space keys to index")
    edition: Literal["cloud", "datacenter"] = "cloud"
    name: str = ""
    channels: list[str] | None = Field(None, description="channel ids that may see it; unset: every channel")
    email: str | None = Field(None, description="Cloud: the Atlassian account the API token belongs to")
    token_env: str | None = Field(None, description="environment variable holding the API token (Cloud) or PAT (DC)")
    token_file: Path | None = Field(None, description="file holding the API token or PAT")
    listing_every: int = Field(1, ge=1, description="list every page (for deletions) every N runs; CQL between")
    permissions: bool = Field(False, description="store each page's readers (read restrictions) per document: "
                                                 "restricted pages are shown only to them, in direct messages")


class GraphSpec(_Spec):
    """A DOCBOT_SOURCES entry of kind "sharepoint" or "onedrive": one drive through Microsoft Graph `delta`."""

    kind: Literal["sharepoint", "onedrive"]
    drive: str = Field(min_length=1, description="drives/<drive-id>, sites/<site-id>/drive or users/<upn>/drive")
    folder: str = Field("", description="only the files under this folder of the drive")
    name: str = ""
    channels: list[str] | None = Field(None, description="channel ids that may see it; unset: every channel")
    tenant_id: str = Field(min_length=1, description="the Entra tenant (directory) id")
    client_id: str = Field(min_length=1, description="the app registration's application (client) id")
    client_secret_env: str | None = Field(None, description="environment variable holding the client secret")
    client_secret_file: Path | None = Field(None, description="file holding the client secret")
    permissions: bool = Field(False, description="store each file's readers (item permissions) per document: "
                                                 "restricted files are shown only to them, in direct messages")
    pages: bool = Field(False, description="also the site's pages (drive sites/<site-id>/drive; needs Sites.Read.All)")


class DriveSpec(_Spec):
    """A DOCBOT_SOURCES entry of kind "gdrive": what a Google service account can read, through Drive's change feed."""

    kind: Literal["gdrive"]
    service_account_file: Path = Field(description="the service account's JSON key (a mounted secret; never logged)")
    folder: str = Field("", description="only the files under this folder id (the id in the folder's URL)")
    drive_id: str = Field("", description="only this shared drive (its id); unset: everything shared with the account")
    api_url: str = Field("https://www.googleapis.com/drive/v3", pattern=r"^https?://",
                         description="the Drive API's base URL (a private endpoint, a proxy, a test stand-in)")
    name: str = ""
    channels: list[str] | None = Field(None, description="channel ids that may see it; unset: every channel")


def _source_kind(value: Any) -> str:
    """Which spec a DOCBOT_SOURCES entry is: its `kind`, "folder" when it has none (the old format)."""
    kind = (value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)) or "folder"
    return "sharepoint" if kind == "onedrive" else kind  # one spec reads both


SOURCE_KINDS = ("folder", "git", "confluence", "sharepoint", "gdrive")
AnySourceSpec = Annotated[Annotated[SourceSpec, Tag("folder")] | Annotated[GitSpec, Tag("git")]
                          | Annotated[ConfluenceSpec, Tag("confluence")] | Annotated[GraphSpec, Tag("sharepoint")]
                          | Annotated[DriveSpec, Tag("gdrive")],
                          Discriminator(_source_kind)]


class LookupSpec(_Spec):
    """One DOCBOT_LOOKUPS entry: a live-state HTTP JSON endpoint."""

    name: str = Field(min_length=1)
    url: str = Field(pattern=r"^https?://")
    keywords: list[str] = Field(default_factory=list)
    path: str = ""
    template: str = "{name}: {value}"
    timeout: float = Field(5.0, gt=0, le=120)
    headers: dict[str, str] = Field(default_factory=dict)


class PromptSpec(_Spec):
    """One suggested prompt of Slack's assistant pane."""

    title: str = Field(min_length=1, max_length=75)
    message: str = Field(min_length=1, max_length=2000)


class WebhookSpec(_Spec):
    """One DOCBOT_WEBHOOKS entry: an action that POSTs the confirmed request."""

    name: str = Field(min_length=1)
    url: str = Field(pattern=r"^https?://")
    keywords: list[str] = Field(min_length=1)
    description: str = ""
    timeout: float = Field(10.0, gt=0, le=300)
    headers: dict[str, str] = Field(default_factory=dict)


# Each embedder's relevance floor (DOCBOT_COSINE_GAP when unset), chosen on the dev sets only.
COSINE_GAPS = {"e5": 0.08, "use": 0.08, "openai": 0.08}


class Settings(BaseSettings):
    """Every knob docbot has. Env names are DOCBOT_<FIELD> unless an alias says otherwise."""

    model_config = SettingsConfigDict(env_prefix="DOCBOT_", env_file=".env", extra="ignore")

    # Where things live
    data_dir: Path = Path("data")
    database_url: str | None = Field(None, description="SQLAlchemy URL; default sqlite:///<data_dir>/docbot.sqlite3")
    docs: list[Path] = Field(default_factory=lambda: [Path("samples/handbook")],
                             description="Folders to index when DOCBOT_SOURCES is not set")
    sources: list[AnySourceSpec] = Field(default_factory=list,
                                description='Sources, JSON: [{"name": "handbook", "path": "docs", "include": ["*.md"], '
                                            '"exclude": ["drafts/*"], "channels": ["C0123"]}] (channels: only cited there); '
                                            'kind "git" for a repository, "confluence" for wiki spaces, "sharepoint"/"onedrive" for a drive, "gdrive" for Google Drive (docs/connectors.md)')
    index_schedule: str | None = Field("*/15 * * * *", description="crontab (UTC) or '<n>s'; empty disables")
    index_full_schedule: str | None = Field(None, description="periodic full re-embed, e.g. '0 3 * * 0'")
    index_on_start: bool = Field(True, description="`docbot serve` runs an incremental index once at start-up")
    index_lease_seconds: float = 120.0
    index_stall_seconds: float = Field(
        600.0, gt=0, description="A run that makes no progress this long stops renewing its lease (another may take it)")
    max_file_mb: float = Field(20.0, gt=0, description="Files larger than this are skipped and reported with their size")
    source_missing_grace_hours: float = Field(
        24.0, description="A configured folder missing this long has its documents withdrawn from the index")
    port: int = 3000
    host: str = Field("127.0.0.1", description="Interface `docbot serve` binds; 0.0.0.0 to expose it (behind TLS)")
    metrics_token: SecretStr | None = Field(None, description="Bearer token /metrics requires, when set")

    # Search backend: the embedded SQLite index, or Elasticsearch
    index: Literal["sqlite", "elasticsearch"] = "sqlite"
    elasticsearch_url: str | None = Field(None, validation_alias=AliasChoices("ELASTICSEARCH_URL"))
    elasticsearch_api_key: SecretStr | None = Field(None, validation_alias=AliasChoices("ELASTICSEARCH_API_KEY"))
    elasticsearch_username: str | None = Field(None, validation_alias=AliasChoices("ELASTICSEARCH_USERNAME"))
    elasticsearch_password: SecretStr | None = Field(None, validation_alias=AliasChoices("ELASTICSEARCH_PASSWORD"))
    elasticsearch_ca_certs: str | None = Field(None, validation_alias=AliasChoices("ELASTICSEARCH_CA_CERTS"))
    es_alias: str = "docbot-chunks"
    es_index_options: str = Field("int8_hnsw", description="dense_vector index_options type (int8_hnsw, hnsw, bbq_hnsw...)")
    es_korean: Literal["auto", "nori", "kiwi"] = "auto"
    es_shards: int = Field(1, ge=1, le=64, description="primary shards of a new index (one holds millions of chunks)")
    es_replicas: int | None = Field(None, ge=0, le=10, description="replicas of a new index; unset: the cluster's default")

    # Embeddings and search
    embedder: Literal["e5", "use", "openai"] = "e5"
    embedding_model: str = "text-embedding-3-small"
    embedding_dim: int = 1536
    # e5's OpenMP threads: one per query keeps concurrent turns from contending inside one; indexing
    # batches take the default docbot.threads chose by measurement beside a busy neighbour.
    embed_query_threads: int = Field(threads.QUERY_THREADS, ge=1, le=64)
    embed_index_threads: int = Field(threads.INDEX_THREADS, ge=1, le=64,
                                     description="e5 threads while indexing (docs/performance.md)")
    vector_cache: int = Field(4096, ge=0, le=1_000_000, description="query and sentence vectors remembered (0: off)")
    reader_model: bool = Field(True, description="order quoted lines and decide answered / hedged / not found by "
                               "the fitted reader model (rag/answer/data/reader.json); false: the hand-set weights")
    sentence_vectors: bool = Field(True, description="fill the answer's sentence vectors in a second pass while "
                                   "the server is idle, after indexing (<data_dir>/sentences.sqlite3); a turn "
                                   "embeds and keeps those it reads either way")
    chunker: Literal["overlap", "semantic"] = "overlap"
    chunk_size: int = 900
    chunk_overlap: int = 150
    top_k: int = Field(5, ge=1, le=50)
    # BM25 matches and nearest chunks per language handed to the ranker. Elasticsearch asks kNN for
    # 4x this many candidates and allows at most 10,000, hence the bound.
    candidates: int = Field(40, ge=1, le=2500)
    keyword_weight: float = 0.25  # BM25's bonus, in within-language z-score units (rag/retrieve/ranking.py)
    translation_weight: float = Field(1.5, ge=0.0)  # ... of the query's dictionary-translated keywords, alone
    z_gap: float = 2.5  # relevance floor: hits within this many z-units of the best
    # ... and within this cosine of the best hit of their own language; unset: the embedder's own
    # (COSINE_GAPS), as each model spreads its cosines differently.
    cosine_gap: float | None = None
    prior_weight: float = 0.5  # bonus for documents the previous answer cited, on a follow-up
    hub_weight: float = Field(1.0, ge=0.0)  # how much of a chunk's closeness to the whole corpus is discounted
    hub_margin: float = Field(1.0, ge=0.0)  # ... beyond this many standard deviations above its language's mean
    stale_penalty: float = Field(1.0, ge=0.0)  # z units a repealed/superseded/archived document loses (a draft half)

    # Conversation
    history_turns: int = 10  # messages read per turn (5 exchanges)
    rewrite_turns: int = 8  # messages the rewriter looks at (4 exchanges)
    rewrite_max_chars: int = 300
    intent_threshold: float = 0.65
    chain: Literal["auto", "off"] = "auto"  # chain-of-retrieval for multi-part questions
    chain_max_steps: int = 3

    # Live-state lookups and confirmed actions (JSON in env, e.g. DOCBOT_LOOKUPS='[{"name": ...}]')
    lookups: list[LookupSpec] = Field(default_factory=list, description="HTTP JSON lookups: name, url, keywords, path, template")
    webhooks: list[WebhookSpec] = Field(default_factory=list, description="Webhook actions: name, url, keywords, description")
    action_admins: list[str] = Field(default_factory=list, description="User ids that may confirm anyone's action")
    action_ttl_seconds: int = 600
    rate_limit_per_user: int = 20  # messages a minute; 0 disables
    rate_limit_per_channel: int = 60

    # LLM (any OpenAI-compatible endpoint); none configured means fully offline
    openai_api_key: SecretStr | None = Field(None, validation_alias=AliasChoices("OPENAI_API_KEY", "DOCBOT_OPENAI_API_KEY"))
    openai_base_url: str | None = Field(None, validation_alias=AliasChoices("OPENAI_BASE_URL", "DOCBOT_OPENAI_BASE_URL"))
    answer_model: str = "gpt-4o-mini"
    rewrite_model: str = "gpt-4o-mini"
    rewrite_timeout: float = 4.0
    answer_timeout: float = 30.0

    # One retry policy for every outside call (LLM, embeddings, lookups, Slack, Teams, Elasticsearch)
    retry_attempts: int = 3
    retry_max_wait: float = 8.0
    http_timeout: float = 30.0

    # Chat platforms (adapters mount in `docbot serve` when these are set)
    slack_bot_token: SecretStr | None = Field(None, validation_alias=AliasChoices("SLACK_BOT_TOKEN"))
    # Installs from any number of workspaces (OAuth): tokens are stored per team in the database.
    slack_client_id: str | None = Field(None, validation_alias=AliasChoices("SLACK_CLIENT_ID"))
    slack_client_secret: SecretStr | None = Field(None, validation_alias=AliasChoices("SLACK_CLIENT_SECRET"))
    slack_signing_secret: SecretStr | None = Field(None, validation_alias=AliasChoices("SLACK_SIGNING_SECRET"))
    slack_app_token: SecretStr | None = Field(None, validation_alias=AliasChoices("SLACK_APP_TOKEN"))
    slack_api_base_url: str | None = Field(None, validation_alias=AliasChoices("SLACK_API_BASE_URL"))
    slack_streaming: bool = True  # chat.startStream; falls back to postMessage + update where unavailable
    slack_answer_bots: bool = Field(False, description="Answer other apps' mentions and messages (off: people only)")
    slack_suggested_prompts: list[PromptSpec] | None = Field(
        None, description='Assistant pane prompts, JSON: [{"title": "휴가 규정", "message": "연차는 며칠이야?"}] (up to 4)')
    slack_update_seconds: float = 1.0  # how often a streaming answer is pushed (Slack, Teams group chats)
    source_url_base: str | None = Field(None, description="Links sources as <base>/<path> in chat answers")
    microsoft_app_id: str | None = Field(None, validation_alias=AliasChoices("MICROSOFT_APP_ID"))
    microsoft_app_password: SecretStr | None = Field(None, validation_alias=AliasChoices("MICROSOFT_APP_PASSWORD"))
    microsoft_app_tenant_id: str | None = Field(None, validation_alias=AliasChoices("MICROSOFT_APP_TENANT_ID"))
    teams_anonymous: bool = Field(False, description="Serve /api/messages without JWT checks (local emulator only)")
    teams_service_url_hosts: list[str] | None = Field(
        None, description='Hosts (and their subdomains) an activity\'s serviceUrl may name, JSON: ["botframework.azure.us"];'
                          ' unset: Microsoft\'s public, GCC, GCC High and DoD hosts')

    @field_validator("database_url")
    @classmethod
    def _supported_database(cls, url: str | None) -> str | None:
        if url and not url.startswith(("sqlite:", "postgres://", "postgresql://", "postgresql+psycopg://")):
            scheme = url.split(":", 1)[0] if ":" in url else url[:20]
            raise ValueError(f"{scheme!r} databases are not supported; use postgresql://user:password@host:5432/db, "
                             "or leave it unset for SQLite in DOCBOT_DATA_DIR")
        return url

    @property
    def db_url(self) -> str:
        """The conversation database URL, with PostgreSQL URLs pointed at the bundled psycopg 3 driver."""
        url = self.database_url or f"sqlite:///{(self.data_dir / 'docbot.sqlite3').as_posix()}"
        for prefix in ("postgres://", "postgresql://"):
            if url.startswith(prefix):
                return "postgresql+psycopg://" + url[len(prefix):]
        return url

    @property
    def index_path(self) -> Path:
        """The embedded search index file."""
        return self.data_dir / "index.sqlite3"

    @property
    def llm_configured(self) -> bool:
        """Whether an OpenAI-compatible endpoint is configured."""
        return self.openai_api_key is not None or self.openai_base_url is not None

    @property
    def chat_platform_configured(self) -> bool:
        """Whether Slack or Teams is configured."""
        return bool(self.slack_configured or self.teams_configured)

    @property
    def slack_configured(self) -> bool:
        """Slack with one workspace's token, or installs through OAuth."""
        return bool(self.slack_bot_token or self.slack_client_id)

    @property
    def teams_configured(self) -> bool:
        """Teams with an app id (JWT-validated), or anonymous when explicitly asked for."""
        return bool(self.microsoft_app_id or self.teams_anonymous)

    def chunker_signature(self) -> str:
        """Part of every file hash: changing the chunker (or how docbot cuts text: v2 keeps list items
        and table rows whole, one per line; v3 reads plain-text sections and dot-leader rows, keeps
        abbreviations inside their sentence and leaves the title's own heading out of chunk headings; v4
        leaves a plain-text byline out of the text) re-chunks every file."""
        return f"{self.chunker}:{self.chunk_size}:{self.chunk_overlap}:v4"


def load_settings(**overrides: Any) -> Settings:
    """Settings from the environment and .env (and `overrides`), validated whole before anything loads.

    Every problem is named by its variable and position (`DOCBOT_SOURCES[1].path: Field required`)
    in one ConfigurationError, so a typo stops start-up at once instead of surfacing as a TypeError
    after the models have loaded.
    """
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise ConfigurationError("\n".join(_describe(e) for e in exc.errors())) from None
    except SettingsError as exc:  # a JSON setting that does not parse
        raise ConfigurationError(_bad_json(exc)) from None


def variable(field: str) -> str:
    """The environment variable a settings field is read from."""
    info = Settings.model_fields.get(field)
    alias = info.validation_alias if info else None
    return str(alias.choices[0]) if isinstance(alias, AliasChoices) else f"DOCBOT_{field.upper()}"


def raw_value(name: str, env_file: Path = Path(".env")) -> str | None:
    """A variable's raw text as pydantic-settings sees it: the environment (any case), else `.env`."""
    for key, value in os.environ.items():
        if key.upper() == name:
            return value
    return {k.upper(): v for k, v in _dotenv(env_file).items()}.get(name)


def _dotenv(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    from dotenv import dotenv_values

    return {k: v for k, v in dotenv_values(path).items() if v is not None}


def _bad_json(exc: SettingsError) -> str:
    """`DOCBOT_SOURCES is not valid JSON: <why> at line 1, column 3` and how to write it."""
    match = re.search(r'field "(\w+)"', str(exc))
    field = match.group(1) if match else "?"
    name = variable(field)
    value = raw_value(name) or ""
    try:
        json.loads(value)
        why = str(exc.__cause__ or exc)
    except json.JSONDecodeError as bad:
        around = value[max(0, bad.pos - 15): bad.pos + 15].replace("\n", " ")
        why = f"{bad.msg} at line {bad.lineno}, column {bad.colno} (near {around!r})"
    example = _EXAMPLES.get(field, '["..."]')
    return (f"{name} is not valid JSON: {why}.\n"
            f"Fix: write it on one line with double quotes and no trailing comma, e.g. {name}='{example}'")


_EXAMPLES = {"sources": '[{"name": "team", "path": "/path/to/your/docs"}]', "docs": '["/path/to/your/docs"]',
             "slack_suggested_prompts": '[{"title": "Vacation", "message": "How many vacation days do I get?"}]',
             "action_admins": '["U0123ABCD"]'}

# Variables docbot reads that are not settings fields (the CLI, scripts/build_teams_package.py), and the
# openai client's own: present in a healthy environment, so never warned about.
OTHER_VARIABLES = frozenset({
    "DOCBOT_LOG_FORMAT", "DOCBOT_DEBUG", "DOCBOT_PUBLIC_URL", "DOCBOT_TEAMS_DEVELOPER", "DOCBOT_PRIVACY_URL",
    "DOCBOT_TERMS_URL", "DOCBOT_LIVE_SLACK_TOKEN",
    "DOCBOT_LIVE_SLACK_CHANNEL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_LOG"})
PREFIXES = ("DOCBOT_", "SLACK_", "MICROSOFT_", "OPENAI_", "ELASTICSEARCH_")


def known_variables() -> set[str]:
    """Every variable name docbot understands."""
    names = set(OTHER_VARIABLES)
    for field, info in Settings.model_fields.items():
        alias = info.validation_alias
        names.update(str(c) for c in alias.choices) if isinstance(alias, AliasChoices) else \
            names.add(f"DOCBOT_{field.upper()}")
    return {str(n).upper() for n in names}


def unknown_variables(environ: Mapping[str, str] | None = None, env_file: Path = Path(".env")) -> list[str]:
    """One warning per docbot-looking variable (environment or `.env`) that no setting reads, with the
    closest known name: a misspelt DOCBOT_TOPK must not be silently ignored."""
    known = known_variables()
    seen = {**{k: ".env" for k in _dotenv(env_file)}, **{k: "the environment" for k in (environ or os.environ)}}
    warnings = []
    for name, where in sorted(seen.items()):
        upper = name.upper()
        if not upper.startswith(PREFIXES) or upper in known:
            continue
        close = difflib.get_close_matches(upper, known, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}?" if close else "docs/configuration.md lists every setting"
        warnings.append(f"{name} (in {where}) is not a docbot setting and is ignored; {hint}")
    return warnings


BOT_TOKEN_PREFIXES = ("xoxb-", "xoxe.xoxb-")  # a bot token, or one that Slack's token rotation issued
TOKEN_KINDS = {"xoxb-": "a bot token (xoxb-...), which belongs in SLACK_BOT_TOKEN",
               "xoxp-": "a user token (xoxp-...): docbot answers as its bot user, not as the person who installed it",
               "xapp-": "an app-level token (xapp-...), which belongs in SLACK_APP_TOKEN"}


def slack_token_problems(s: Settings) -> list[str]:
    """Slack tokens of the wrong kind, told by their prefixes (the value itself is never shown): Slack would
    refuse them only once Socket Mode or the first answer tries them, and in a way that does not name them."""
    bot = s.slack_bot_token.get_secret_value().strip() if s.slack_bot_token else ""
    app = s.slack_app_token.get_secret_value().strip() if s.slack_app_token else ""
    if bot.startswith("xapp-") and app.startswith(BOT_TOKEN_PREFIXES):
        return ["SLACK_BOT_TOKEN and SLACK_APP_TOKEN are swapped: SLACK_BOT_TOKEN holds the app-level token "
                "(xapp-...) and SLACK_APP_TOKEN the bot token (xoxb-...). Fix: exchange their values."]
    problems = []
    if bot and not bot.startswith(BOT_TOKEN_PREFIXES):
        kind = TOKEN_KINDS.get(bot[:5], "not a bot token (those start with xoxb-)")
        problems.append(f"SLACK_BOT_TOKEN is {kind}. Fix: copy the Bot User OAuth Token (xoxb-...) from your Slack "
                        "app's OAuth & Permissions page.")
    if app and not app.startswith("xapp-"):
        kind = TOKEN_KINDS.get(app[:5], "not an app-level token (those start with xapp-)")
        problems.append(f"SLACK_APP_TOKEN is {kind}. Fix: create an app-level token with the connections:write "
                        "scope (your Slack app's Basic Information page, App-Level Tokens) and set it (xapp-...).")
    return problems


def platform_problems(s: Settings) -> list[str]:
    """Chat platforms configured by half or with the wrong Slack tokens: each names what is set, what is
    missing or wrong, and where to find the right value."""
    problems = slack_token_problems(s)
    if s.slack_bot_token and not (s.slack_signing_secret or s.slack_app_token):
        problems.append("SLACK_BOT_TOKEN is set but neither SLACK_SIGNING_SECRET (Events API over HTTP) nor "
                        "SLACK_APP_TOKEN (Socket Mode) is. Fix: copy the signing secret from your Slack app's "
                        "Basic Information page, or create an app-level token (connections:write) for Socket Mode.")
    if (s.slack_signing_secret or s.slack_app_token) and not (s.slack_bot_token or s.slack_client_id):
        given = "SLACK_SIGNING_SECRET" if s.slack_signing_secret else "SLACK_APP_TOKEN"
        problems.append(f"{given} is set but SLACK_BOT_TOKEN is not. Fix: install the app to your workspace and "
                        "copy the Bot User OAuth Token (xoxb-...) from its OAuth & Permissions page.")
    if s.slack_client_id and not (s.slack_client_secret and s.slack_signing_secret):
        problems.append("SLACK_CLIENT_ID is set but SLACK_CLIENT_SECRET or SLACK_SIGNING_SECRET is not (OAuth "
                        "installs need both). Fix: copy them from your Slack app's Basic Information page.")
    if s.microsoft_app_id and not s.microsoft_app_password:
        problems.append("MICROSOFT_APP_ID is set but MICROSOFT_APP_PASSWORD is not. Fix: create a client secret "
                        "for the bot's app registration in Azure (Certificates & secrets) and set it.")
    if s.microsoft_app_password and not s.microsoft_app_id:
        problems.append("MICROSOFT_APP_PASSWORD is set but MICROSOFT_APP_ID is not. Fix: set the bot's "
                        "Microsoft App ID from its Azure Bot resource (Configuration).")
    return problems


def _describe(error: Any) -> str:
    """One validation error as `VARIABLE[index].key: message (got value)`."""
    field, *rest = error["loc"] or ("?",)
    name = variable(str(field))
    if field == "sources" and len(rest) > 1 and rest[1] in SOURCE_KINDS:  # the kind pydantic chose, not a key
        rest = [rest[0], *rest[2:]]
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in rest)
    message = str(error["msg"]).removeprefix("Value error, ")
    if field == "database_url":  # a URL may carry a password: the message says what is wrong without it
        return f"{name}{where}: {message}"
    got = repr(error.get("input"))
    return f"{name}{where}: {message} (got {got[:120]})"


def secret(env: str | None, file: Path | None, what: str) -> str:
    """A credential named by a setting: the environment variable `env`, else the contents of `file` (a
    mounted secret), else "" (none configured). The message names the variable or file, never the value."""
    if env:
        value = os.environ.get(env, "").strip()
        if not value:
            raise ConfigurationError(f"{what}: environment variable {env} is not set")
        return value
    if file:
        try:
            value = Path(file).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigurationError(f"{what}: cannot read token file {file}: {exc.strerror}") from None
        if not value:
            raise ConfigurationError(f"{what}: token file {file} is empty")
        return value
    return ""
