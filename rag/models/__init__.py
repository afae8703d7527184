"""Models: the embedding-model and chat-model ports with their real implementations.

Takes texts (passages, queries, prompts); gives vectors and completions. The bundled e5 works
offline; OpenAI-compatible endpoints serve production. Stages call these; these call no stage.
"""
