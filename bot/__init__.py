"""The docbot application: settings, storage, conversations, CLI and HTTP server."""
