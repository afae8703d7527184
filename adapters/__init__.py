"""Chat adapters: thin translations between a platform and the conversation service."""
