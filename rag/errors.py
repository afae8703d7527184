"""The one exception tree for docbot; `bot` and `adapters` raise and catch these too.

    DocbotError
    ├── ConfigurationError        settings that cannot work together
    ├── DocumentError             a file that cannot be read, parsed or is empty (skipped, reported)
    │   └── SourceMissing           a configured source folder is gone (its documents withdrawn after a grace)
    ├── SourceUnavailable         a connector's service failed or refused (reported; its documents stay)
    ├── SearchIndexError          the search backend failed (one file's write: reported, run goes on)
    │   ├── SearchIndexUnavailable  unreachable or credentials refused (the run stops, retried later)
    │   ├── VisibilityNotApplied    a file's new audience could not be stamped on every chunk (the run fails)
    │   └── EmbeddingModelMismatch  the index was built by another embedding model
    ├── EmbeddingError            the embedder failed
    ├── LLMError                  the chat model failed or answered unusably
    │   └── LLMTimeout            ...or took longer than its budget
    ├── StorageError              the conversation database failed
    ├── ActionError               a confirmed action could not run (recorded as failed, never raised to chat)
    ├── DatasetError              an evaluation dataset line is malformed (named by file, line and field)
    ├── LeaseLost                 an index run's lease lapsed and another runner took it (the run stops)
    └── IndexRunStopped           an index run was asked to stop (the server is shutting down)

`component(exc)` names the part that failed, for metrics and logs: the one mapping from an
exception to where it came from.
"""


class DocbotError(Exception):
    """Base of every error docbot raises on purpose."""


class ConfigurationError(DocbotError):
    """Settings that cannot work together."""


class DocumentError(DocbotError):
    """A document that cannot be read, parsed, or has no text."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class SourceMissing(DocumentError):
    """A configured source that does not exist (now); its documents are withdrawn after a grace period."""


class SourceUnavailable(DocbotError):
    """A connector's service cannot be reached, throttled past its retries, or refused our credentials: the
    run reports it, the source's indexed documents stay, and the next run starts from the stored cursor."""


class SearchIndexError(DocbotError):
    """The search backend failed."""


class SearchIndexUnavailable(SearchIndexError):
    """The search backend cannot be reached or refuses our credentials."""


class VisibilityNotApplied(SearchIndexError):
    """A file's chunks could not all be restamped with a new audience: the run fails (a chunk might still be
    visible where it no longer may be), and the file's record keeps the old audience so the next run retries."""


class EmbeddingModelMismatch(SearchIndexError):
    """The index holds vectors of another embedding model; mixing them would corrupt ranking."""


class EmbeddingError(DocbotError):
    """The embedder failed."""


class LLMError(DocbotError):
    """The chat model failed or returned something unusable."""


class LLMTimeout(LLMError):
    """The chat model did not answer within its time budget."""


class StorageError(DocbotError):
    """The conversation database failed."""


class LeaseLost(DocbotError):
    """Our index lease lapsed and another runner took it; this run stops so two never write at once."""


class IndexRunStopped(DocbotError):
    """An index run was stopped between files because the process is shutting down; the next run resumes."""


class ActionError(DocbotError):
    """A confirmed action could not run (no handler for it now, or its target refused)."""


class DatasetError(DocbotError):
    """An evaluation dataset that cannot be replayed: the message names the file, line and field."""


_COMPONENTS: tuple[tuple[type[Exception], str], ...] = (
    (LLMError, "llm"), (SearchIndexError, "search"), (EmbeddingError, "embedding"), (StorageError, "storage"),
    (DocumentError, "document"), (SourceUnavailable, "source"), (ActionError, "action"), (ConfigurationError, "configuration"),
    (LeaseLost, "indexing"), (IndexRunStopped, "indexing"))


def component(exc: BaseException) -> str:
    """The part of docbot an exception came from ("other" for anything outside the tree: a bug)."""
    return next((name for kind, name in _COMPONENTS if isinstance(exc, kind)), "other")
