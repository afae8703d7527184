"""Answer, the fifth stage: from hits to what the user reads.

Takes the user's own words, the recent history and the ranked hits; gives a cited answer (an LLM
that must cite, or an extractive answer), or "not found" when the evidence does not answer it.
Realtime lookups (live state from tools, never documents) answer here too.
"""
