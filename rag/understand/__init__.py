"""Understand, the third stage: what the user is asking, before anything is searched.

Takes the user's message and the thread's recent turns; gives a standalone query for retrieval
(rewrite), and a route with a confidence (chitchat, knowledge_search, realtime_lookup, action).
The intent examples and their shipped e5 vectors live in `data/`.
"""
