"""The platform-agnostic RAG core: loading, chunking, embedding, search, rewriting, answering."""
