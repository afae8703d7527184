"""Retrieve, the fourth stage: the standalone query's candidates, ranked once into the hits a turn cites.

Takes a query (and its vector) and a search index; gives ranked `Hit`s. One ranker puts each cosine
on its own language's scale and adds a bounded BM25 bonus; chain-of-retrieval decomposes multi-hop
questions into steps.
"""
