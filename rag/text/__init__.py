"""Text: which language a text is in, its BM25 terms (Kiwi for Korean, Snowball for English), masking.

Takes raw strings; gives languages, analysed terms and masked strings. Every stage below uses it;
it uses nothing of docbot's but the exception tree.
"""
